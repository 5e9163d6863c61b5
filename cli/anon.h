/* SPDX-License-Identifier: MIT */
/*
 * anon.h - a trace without its names (`iotape anonymize`).
 *
 * Every name a trace holds is replaced by a keyed hash of it, BLAKE2b
 * keyed with a 32-byte site key (libsodium's crypto_generichash), cut to
 * 8 bytes and written as 16 hex digits:
 *   - a path component by the hash of the path up to and including it,
 *     so a directory is the same wherever its files are named, the tree
 *     and every shared prefix survive, and two files are one file after
 *     exactly when they were before; the same name in two directories
 *     gets two hashes, so which names repeat across the tree (class
 *     directories, a user name under /home and /scratch) does not show;
 *   - "", "/", ".", ".." and empty components stay (structure, not
 *     names); so do the system's directory names the analysis tells code
 *     from data by (ana_path_is_code: /usr, /lib, /proc, /dev/shm, ...,
 *     site-packages, __pycache__, lib/python3.11: python and a version
 *     number, not any name that starts so) and the extensions of
 *     code (.py, .pyc, .so, .so.6), and with keep_ext every extension
 *     (the part after the last dot, 1-10 letters and digits), with
 *     keep_dirs the first keep_dirs components;
 *   - comm, the hostname and any string column this version does not
 *     know by the hash of the whole text (another personalization than
 *     paths'), argv by "" (its arguments are paths, options and values
 *     that no rule can tell apart).
 * Without the key a name can be checked only by someone holding the key:
 * a dictionary of likely names needs the key to be tried.  The same key
 * gives the same names in every trace; a key is identified by its key id,
 * an unkeyed BLAKE2b of it (16 hex digits), which says nothing of it.
 *
 * Metadata: the keys the analysis and the replay use and that name
 * nothing are kept when their values have the form this version writes
 * (cli_anon_meta_kept: a number, a kernel release, a source or clock it
 * sets; anything else under those keys, free text set with import -m, is
 * removed), hostname and a merged trace's host.H.name are hashed, a
 * merged trace's host.H.KEY follows KEY's rule (host.H.offset_ns, t_min,
 * t_max and merge.hosts are numbers: kept), every other key (cmdline,
 * cgroup, merge.align, host.H.input, those set by import -m, keys of
 * later versions) is removed; anon.* keys say what was done.
 *
 * Memory grows with distinct names (a cache of each one's hash), never
 * with events.  Functions return 0 or -errno (-ENOMEM, the reader's and
 * writer's errors); they print nothing.
 */
#ifndef IOTAPE_COMMON_ANON_H
#define IOTAPE_COMMON_ANON_H

#include <stddef.h>
#include <stdint.h>
#include "tape.h"

#define CLI_ANON_KEY_BYTES 32
#define CLI_ANON_ID_LEN 16	/* hex digits of a key id and of a hash */
#define CLI_ANON_METHOD "keyed-blake2b-64/1"

struct cli_anon_opts {
	uint8_t key[CLI_ANON_KEY_BYTES];
	int keep_ext;		/* keep every file name extension */
	unsigned keep_dirs;	/* keep the first keep_dirs path components */
};

typedef struct cli_anon cli_anon;

/* A new anonymizer (the key is copied); 0 or -ENOMEM (libsodium that
 * does not start: -ENOSYS), *out NULL on error. */
int cli_anon_new(cli_anon **out, const struct cli_anon_opts *o);
/* Wipes the key and frees; accepts NULL. */
void cli_anon_free(cli_anon *a);

/* The anonymous form of a path / of a name (comm, hostname): *out points
 * into a's cache and stays valid until cli_anon_free.  0 or -ENOMEM. */
int cli_anon_path(cli_anon *a, const char *path, const char **out);
int cli_anon_name(cli_anon *a, const char *name, const char **out);

/* The key id of key: CLI_ANON_ID_LEN hex digits and a NUL into id. */
void cli_anon_key_id(const uint8_t key[CLI_ANON_KEY_BYTES], char id[CLI_ANON_ID_LEN + 1]);
/* A key file's bytes: 32 raw bytes, or 64 hex digits with an optional
 * trailing newline.  0, or -EINVAL for anything else. */
int cli_anon_key_parse(const void *buf, size_t n, uint8_t key[CLI_ANON_KEY_BYTES]);
/* A new random key (randombytes_buf). */
void cli_anon_key_random(uint8_t key[CLI_ANON_KEY_BYTES]);
/* Zero n bytes at p (a key's copy), in a way the compiler keeps. */
void cli_anon_wipe(void *p, size_t n);
/* Whether metadata key k of value v is kept as it is: one of the keys
 * the analysis and the replay use, of a value of the form this version
 * writes (not free text set with import -m). */
int cli_anon_meta_kept(const char *k, const char *v);

struct cli_anon_stats {
	uint64_t events;
	uint64_t names;		/* distinct paths and names replaced */
	unsigned meta_kept, meta_replaced, meta_removed;
};

/*
 * Write the anonymous form of trace r into w: its metadata, then every
 * event of every table this library knows, in order per table.  On error
 * *side says where it happened: 'r' reading r, 'w' writing w (the caller
 * then discards w's file).  st may be NULL.
 */
int cli_anon_trace(cli_anon *a, tape_reader *r, tape_writer *w, struct cli_anon_stats *st,
		  char *side);

#endif /* IOTAPE_COMMON_ANON_H */
