/* SPDX-License-Identifier: MIT */
/*
 * anon.c - the names of a trace replaced by keyed hashes (see anon.h for
 * the rules and why).
 *
 * Invariant: the form of a path component depends only on the key, the
 * options and the path up to and including that component, never on what
 * follows it, so a directory's name is the same in its own path and in
 * the paths of everything under it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>
#include "anon.h"
#include "map.h"
#include "tape_vec.h"

/* BLAKE2b personalizations (16 bytes each): one domain per kind of name,
 * so a path and a comm of equal text do not hash alike. */
static const unsigned char PERS_PATH[16] = "iotape/anon/path";
static const unsigned char PERS_NAME[16] = "iotape/anon/name";
static const unsigned char PERS_KID[16] = "iotape/anon/kid_";

#define HASH_BYTES (CLI_ANON_ID_LEN / 2)
#define EXT_MAX 10	/* --keep-ext: letters and digits after the last dot */

/* Inputs already seen, each with its output: in id -> out id. */
struct cache {
	struct cm_strtab in, out;
	uint32_t *res;
	size_t cap;
};

struct cli_anon {
	struct cli_anon_opts o;
	struct cache path, name;
	char *buf;		/* the output being built */
	size_t len, cap;
};

static void cache_release(struct cache *c)
{
	cm_strtab_release(&c->in);
	cm_strtab_release(&c->out);
	free(c->res);
}

int cli_anon_new(cli_anon **out, const struct cli_anon_opts *o)
{
	cli_anon *a;

	*out = NULL;
	if (sodium_init() < 0)
		return -ENOSYS;
	if (!(a = calloc(1, sizeof(*a))))
		return -ENOMEM;
	a->o = *o;
	*out = a;
	return 0;
}

void cli_anon_free(cli_anon *a)
{
	if (!a)
		return;
	sodium_memzero(a->o.key, sizeof(a->o.key));
	cache_release(&a->path);
	cache_release(&a->name);
	free(a->buf);
	free(a);
}

void cli_anon_key_id(const uint8_t key[CLI_ANON_KEY_BYTES], char id[CLI_ANON_ID_LEN + 1])
{
	unsigned char h[HASH_BYTES];

	crypto_generichash_blake2b_salt_personal(h, sizeof(h), key, CLI_ANON_KEY_BYTES,
						 NULL, 0, NULL, PERS_KID);
	sodium_bin2hex(id, CLI_ANON_ID_LEN + 1, h, sizeof(h));
}

int cli_anon_key_parse(const void *buf, size_t n, uint8_t key[CLI_ANON_KEY_BYTES])
{
	const char *s = buf;
	size_t bin;

	if (n == CLI_ANON_KEY_BYTES) {
		memcpy(key, buf, n);
		return 0;
	}
	if (n == 2 * CLI_ANON_KEY_BYTES + 1 && s[n - 1] == '\n')
		n--;
	if (n != 2 * CLI_ANON_KEY_BYTES)
		return -EINVAL;
	if (sodium_hex2bin(key, CLI_ANON_KEY_BYTES, s, n, NULL, &bin, NULL) < 0 ||
	    bin != CLI_ANON_KEY_BYTES)
		return -EINVAL;
	return 0;
}

void cli_anon_key_random(uint8_t key[CLI_ANON_KEY_BYTES])
{
	if (sodium_init() < 0)
		abort();	/* no source of randomness: nothing safe to do */
	randombytes_buf(key, CLI_ANON_KEY_BYTES);
}

void cli_anon_wipe(void *p, size_t n)
{
	sodium_memzero(p, n);
}

/* ------------------------------------------------------------ metadata */

/* s[0..n) is 1 to max of the characters in set (NULL: digits). */
static int span_of(const char *s, size_t n, size_t max, const char *set)
{
	if (!n || n > max)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (set ? !s[i] || !strchr(set, s[i]) : s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static int digits(const char *v)
{
	return span_of(v, strlen(v), 20, NULL);
}

static int one_of(const char *v, const char *const *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v, l[i]))
			return 1;
	return 0;
}
#define ONE_OF(v, l) one_of(v, l, sizeof(l) / sizeof(*l))

/* A kernel release as uname(2) gives it: 6.1.0-28-amd64, 5.14.0-284.el9.x86_64 */
static int kernel_release(const char *v)
{
	size_t n = strlen(v), d = strspn(v, "0123456789");

	return d && v[d] == '.' &&
	       span_of(v, n, 64, "0123456789.-+_~abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
}

/* An iotape version: 0.1.0, 0.1.0-12-gabcdef0 */
static int version(const char *v)
{
	size_t n = strlen(v), d = strspn(v, "0123456789.");

	return d && (d == n || (v[d] == '-' && span_of(v + d + 1, n - d - 1, 40,
						      "0123456789abcdefghijklmnopqrstuvwxyz.-")));
}

/* A comma-separated list of the recorder's layers */
static int layers(const char *v)
{
	static const char *const l[] = { "syscall", "mmap", "cache", "block", "sched", "sample",
					 "proc" };
	char w[16];

	for (const char *p = v; ; ) {
		size_t n = strcspn(p, ",");
		if (!n || n >= sizeof(w))
			return 0;
		memcpy(w, p, n);
		w[n] = 0;
		if (!ONE_OF(w, l))
			return 0;
		if (!p[n])
			return 1;
		p += n + 1;
	}
}

/*
 * What becomes of metadata key k of value v: its value is kept only when
 * it is one this version writes or of the form it writes (a number, a
 * kernel release, a clock or source it names), so that free text set with
 * import -m under a kept key goes; hostname and a merged trace's host
 * names are hashed; every other key is removed.  A merged trace's
 * host.H.KEY follows KEY's rule (its own keys: offset_ns, t_min, t_max
 * numbers, name hashed, input removed), so split --by host and the
 * analysis's HOSTS still work.
 */
enum meta_rule { M_REMOVE, M_KEEP, M_NAME };

static enum meta_rule meta_rule(const char *k, const char *v)
{
	/* the sources and clocks this version's writers set */
	static const char *const sources[] = {
		"record", "merge", "import:csv", "import:strace", "import:fio-iolog",
		"import:blkparse", "import:dftracer", "import:darshan-dxt",
	};
	static const char *const clocks[] = {
		"monotonic", "realtime", "unknown", "relative",
		"blkparse: seconds since the trace's first event",
		"dftracer: microseconds, as the trace's ts (usually since the epoch)",
		"darshan: seconds since the job's start, 0.1 ms resolution",
	};
	static const char *const numbers[] = {
		"start_wall_ns", "start_mono_ns", "end_mono_ns", "page_size", "buffer_bytes",
		"bad_events", "sched.wait_min_ns",
	};
	size_t h = strspn(k + (strncmp(k, "host.", 5) ? 0 : 5), "0123456789");

	if (!strncmp(k, "host.", 5) && h && k[5 + h] == '.') {	/* host.H.KEY */
		const char *sk = k + 5 + h + 1;
		if (!strcmp(sk, "name"))
			return M_NAME;
		if (!strcmp(sk, "offset_ns"))
			return digits(v + (*v == '-')) ? M_KEEP : M_REMOVE;
		if (!strcmp(sk, "t_min") || !strcmp(sk, "t_max"))
			return digits(v) ? M_KEEP : M_REMOVE;
		if (!strncmp(sk, "host.", 5) || !strncmp(sk, "merge.", 6))
			return M_REMOVE;
		k = sk;
	}
	if (!strcmp(k, "hostname"))
		return M_NAME;
	if (ONE_OF(k, numbers) || (!strncmp(k, "lost.", 5) && k[5]) || !strcmp(k, "merge.hosts"))
		return digits(v) ? M_KEEP : M_REMOVE;
	if (!strcmp(k, "kernel"))
		return kernel_release(v) ? M_KEEP : M_REMOVE;
	if (!strcmp(k, "iotape_version"))
		return version(v) ? M_KEEP : M_REMOVE;
	if (!strcmp(k, "layers"))
		return layers(v) ? M_KEEP : M_REMOVE;
	if (!strcmp(k, "source"))
		return ONE_OF(v, sources) ? M_KEEP : M_REMOVE;
	if (!strcmp(k, "clock"))
		return ONE_OF(v, clocks) ? M_KEEP : M_REMOVE;
	if (!strcmp(k, "arch"))	/* uname's machine: x86_64, aarch64, ppc64le */
		return span_of(v, strlen(v), 16, "0123456789_abcdefghijklmnopqrstuvwxyz") ?
		       M_KEEP : M_REMOVE;
	return M_REMOVE;
}

int cli_anon_meta_kept(const char *k, const char *v)
{
	return meta_rule(k, v) == M_KEEP;
}

/* ------------------------------------------------------------ building */

static int put(cli_anon *a, const char *s, size_t n)
{
	if (TAPE_VEC_GROW(a->buf, a->cap, a->len + n + 1, 256))
		return -ENOMEM;
	memcpy(a->buf + a->len, s, n);
	a->len += n;
	a->buf[a->len] = 0;
	return 0;
}

static int put_hash(cli_anon *a, const unsigned char *pers, const char *s, size_t n)
{
	unsigned char h[HASH_BYTES];
	char hex[CLI_ANON_ID_LEN + 1];

	crypto_generichash_blake2b_salt_personal(h, sizeof(h), (const unsigned char *)s, n,
						 a->o.key, sizeof(a->o.key), NULL, pers);
	sodium_bin2hex(hex, sizeof(hex), h, sizeof(h));
	return put(a, hex, CLI_ANON_ID_LEN);
}

static int is(const char *c, size_t n, const char *w)
{
	return strlen(w) == n && !memcmp(c, w, n);
}

/* Whether a component stays as it is: structure, and the directory names
 * analyze/ana_dataset.c's ana_path_is_code() tells code from data by
 * (first: the first component of an absolute path; prev: the one before). */
static int generic(const char *c, size_t n, int first, const char *prev, size_t pn)
{
	static const char *const sys[] = { "proc", "sys", "dev", "run", "etc", "usr", "lib",
					   "lib32", "lib64", "libx32", "bin", "sbin", "boot" };
	static const char *const any[] = { "site-packages", "dist-packages", "__pycache__",
					   "locale", "locale-archive", "lib", "lib64" };

	if (is(c, n, ".") || is(c, n, ".."))
		return 1;
	for (size_t i = 0; first && i < sizeof(sys) / sizeof(*sys); i++)
		if (is(c, n, sys[i]))
			return 1;
	if (prev && is(prev, pn, "dev") && is(c, n, "shm"))	/* /dev/shm: memory */
		return 1;
	for (size_t i = 0; i < sizeof(any) / sizeof(*any); i++)
		if (is(c, n, any[i]))
			return 1;
	/* an interpreter's library: lib/python3.11/, lib/python3, lib/python
	 * (python and a version number: a name like python_secret is not) */
	if (n < 6 || memcmp(c, "python", 6) || !prev || !(is(prev, pn, "lib") || is(prev, pn, "lib64")))
		return 0;
	size_t d = 6 + strspn(c + 6, "0123456789");
	if (d > 6 && d < n && c[d] == '.')
		d += 1 + strspn(c + d + 1, "0123456789");
	return d == n && c[n - 1] != '.';
}

/* Length of the suffix of c[0..n) that stays: a code extension (.py,
 * .pyc, .pyo, .pyd, .so, .so.N.N, .sh, .bash), else with keep_ext the
 * extension. */
static size_t kept_suffix(const char *c, size_t n, int keep_ext)
{
	static const char *const code[] = { ".py", ".pyc", ".pyo", ".pyd", ".so", ".sh", ".bash" };
	const char *v = memmem(c, n, ".so.", 4);

	if (v && v + 4 < c + n && v > c) {
		const char *d = v + 4;
		while (d < c + n && ((*d >= '0' && *d <= '9') || *d == '.'))
			d++;
		if (d == c + n)
			return (size_t)(c + n - v);
	}
	for (size_t i = 0; i < sizeof(code) / sizeof(*code); i++) {
		size_t l = strlen(code[i]);
		if (n > l && !memcmp(c + n - l, code[i], l))
			return l;
	}
	if (keep_ext) {
		size_t i = n;
		while (i > 1 && c[i - 1] != '.' &&
		       ((c[i - 1] >= '0' && c[i - 1] <= '9') || (c[i - 1] >= 'a' && c[i - 1] <= 'z') ||
			(c[i - 1] >= 'A' && c[i - 1] <= 'Z')))
			i--;
		if (i > 1 && c[i - 1] == '.' && n - i >= 1 && n - i <= EXT_MAX)
			return n - i + 1;
	}
	return 0;
}

/* The anonymous path of p into a->buf. */
static int build_path(cli_anon *a, const char *p)
{
	const char *c = p, *prev = NULL;
	size_t pn = 0;
	unsigned idx = 0;
	int abs = *p == '/', err;

	a->len = 0;
	if ((err = put(a, "", 0)))
		return err;
	for (;;) {
		const char *e = strchr(c, '/');
		size_t n = e ? (size_t)(e - c) : strlen(c);

		if (n && (idx < a->o.keep_dirs || generic(c, n, abs && !idx, prev, pn))) {
			err = put(a, c, n);
		} else if (n) {
			size_t x = kept_suffix(c, n, a->o.keep_ext);
			/* the hash covers the path up to here: see anon.h */
			if (!(err = put_hash(a, PERS_PATH, p, (size_t)(c + n - p))))
				err = put(a, c + n - x, x);
		}
		if (err)
			return err;
		if (n) {
			idx++;
			prev = c;
			pn = n;
		}
		if (!e)
			return 0;
		if ((err = put(a, "/", 1)))
			return err;
		c = e + 1;
	}
}

static int build_name(cli_anon *a, const char *s)
{
	a->len = 0;
	return *s ? put_hash(a, PERS_NAME, s, strlen(s)) : put(a, "", 0);
}

static int lookup(cli_anon *a, struct cache *k, const char *s, const char **out,
		  int (*build)(cli_anon *, const char *))
{
	uint32_t id, oid;
	int err;

	if (cm_strtab_find(&k->in, s, &id) == 0) {
		*out = cm_strtab_str(&k->out, k->res[id]);
		return 0;
	}
	if (TAPE_VEC_GROW(k->res, k->cap, (size_t)k->in.n + 1, 1024))
		return -ENOMEM;
	if ((err = build(a, s)) < 0 || (err = cm_strtab_intern(&k->out, a->buf, &oid)) < 0 ||
	    (err = cm_strtab_intern(&k->in, s, &id)) < 0)
		return err;
	k->res[id] = oid;
	*out = cm_strtab_str(&k->out, oid);
	return 0;
}

int cli_anon_path(cli_anon *a, const char *path, const char **out)
{
	return lookup(a, &a->path, path, out, build_path);
}

int cli_anon_name(cli_anon *a, const char *name, const char **out)
{
	return lookup(a, &a->name, name, out, build_name);
}

/* ------------------------------------------------------------ a trace */

enum rule { R_PATH, R_NAME, R_EMPTY };

struct strcol {
	size_t off;
	enum rule rule;
};

/* What each string column of table becomes: path and path2 paths, argv
 * "", comm and any other (a column of a later version) a name. */
static size_t str_columns(int table, struct strcol *sc, size_t max)
{
	size_t n, k = 0;
	const struct tape_column *c = tape_table_columns(table, &n);

	for (size_t i = 0; c && i < n && k < max; i++) {
		if (c[i].type != TAPE_COL_STR)
			continue;
		sc[k].off = c[i].offset;
		sc[k].rule = !strcmp(c[i].name, "path") || !strcmp(c[i].name, "path2") ? R_PATH :
			     !strcmp(c[i].name, "argv") ? R_EMPTY : R_NAME;
		k++;
	}
	return k;
}

static int copy_table(cli_anon *a, tape_reader *r, tape_writer *w, int table,
		      struct cli_anon_stats *st, char *side)
{
	_Alignas(16) unsigned char ev[512];
	struct strcol sc[16];
	size_t nsc = str_columns(table, sc, 16), size = tape_table_event_size(table), k;
	tape_cursor *c;
	const void *evs;
	int ret;

	*side = 'r';
	if (size > sizeof(ev))
		return -EOVERFLOW;
	if ((ret = tape_cursor_open(r, table, 0, UINT64_MAX, &c)) < 0)
		return ret;
	while ((ret = tape_cursor_next_block(c, &evs, &k)) > 0) {
		for (size_t i = 0; i < k; i++) {
			memcpy(ev, (const char *)evs + i * size, size);
			for (size_t j = 0; j < nsc; j++) {
				const char **s = (const char **)(void *)(ev + sc[j].off);
				if (!*s || !**s)
					continue;
				ret = sc[j].rule == R_PATH ? cli_anon_path(a, *s, s) :
				      sc[j].rule == R_NAME ? cli_anon_name(a, *s, s) : (*s = "", 0);
				if (ret < 0)
					goto out;
			}
			if ((ret = tape_writer_append(w, table, ev)) < 0) {
				*side = 'w';
				goto out;
			}
		}
		st->events += k;
	}
out:
	tape_cursor_free(c);
	return ret;
}

/* Append key to the comma-separated list l[0..cap) unless it is there. */
static void list_add(char *l, size_t cap, const char *key)
{
	size_t n = strlen(l), kn = strlen(key);

	for (const char *p = l; *p; ) {
		const char *e = strchr(p, ',');
		size_t m = e ? (size_t)(e - p) : strlen(p);
		if (m == kn && !memcmp(p, key, kn))
			return;
		p += m + (e != NULL);
	}
	if (n + kn + 2 <= cap)
		snprintf(l + n, cap - n, "%s%s", n ? "," : "", key);
}

static int write_meta(cli_anon *a, tape_reader *r, tape_writer *w, struct cli_anon_stats *st)
{
	char removed[4096] = "", replaced[256] = "", id[CLI_ANON_ID_LEN + 1], num[32];
	const char *k, *v, *h;
	int err;

	for (size_t i = 0; i < tape_reader_meta_count(r); i++) {
		if (tape_reader_meta_at(r, i, &k, &v) < 0)
			continue;
		if (!strncmp(k, "anon.", 5))	/* an earlier anonymization's: redone */
			continue;
		enum meta_rule m = meta_rule(k, v);
		if (m == M_KEEP) {
			st->meta_kept++;
			err = tape_writer_set_meta(w, k, v);
		} else if (m == M_NAME) {
			st->meta_replaced++;
			list_add(replaced, sizeof(replaced), k);
			if (!(err = cli_anon_name(a, v, &h)))
				err = tape_writer_set_meta(w, k, h);
		} else {
			st->meta_removed++;
			list_add(removed, sizeof(removed), k);
			err = 0;
		}
		if (err < 0)
			return err;
	}
	cli_anon_key_id(a->o.key, id);
	snprintf(num, sizeof(num), "%u", a->o.keep_dirs);
	if ((err = tape_writer_set_meta(w, "anon.method", CLI_ANON_METHOD)) < 0 ||
	    (err = tape_writer_set_meta(w, "anon.key_id", id)) < 0 ||
	    (err = tape_writer_set_meta(w, "anon.keep_ext", a->o.keep_ext ? "1" : "0")) < 0 ||
	    (err = tape_writer_set_meta(w, "anon.keep_dirs", num)) < 0 ||
	    (err = tape_writer_set_meta(w, "anon.replaced", replaced)) < 0 ||
	    (err = tape_writer_set_meta(w, "anon.removed", removed)) < 0)
		return err;
	return 0;
}

int cli_anon_trace(cli_anon *a, tape_reader *r, tape_writer *w, struct cli_anon_stats *st,
		  char *side)
{
	struct cli_anon_stats dummy;
	int err;

	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	*side = 'w';
	if ((err = write_meta(a, r, w, st)) < 0)
		return err;
	for (int t = 1; t < TAPE_TABLE_MAX; t++)
		if ((err = copy_table(a, r, w, t, st, side)) < 0)
			return err;
	st->names = a->path.in.n + a->name.in.n;
	return 0;
}
