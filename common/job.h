/* SPDX-License-Identifier: MIT */
/*
 * job.h - the job model: the keys of an iotape job file (format 1,
 * iotape-job(5), iotape-model(1)) and the writer of one.
 *
 * Shared by whatever makes a job (`iotape model`: the MLPerf Storage
 * presets, a DLIO workload YAML, a trace's analysis) and whatever reads
 * one (the job-file source, replay/rp_jobfile.c): cm_job_keys[] names
 * every key once, with its section, type, range, default and what the
 * generator does with it, and cm_job_parse() checks a value against it.
 *
 * A struct cm_job holds the keys a model gives, as text (NULL: left out, so
 * the reader's default applies: a model writes only what it knows), each
 * with an optional note that the writer puts in a comment (where the value
 * comes from).  It owns its strings: cm_job_set() copies them and
 * cm_job_release() frees them.
 */
#ifndef IOTAPE_COMMON_JOB_H
#define IOTAPE_COMMON_JOB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CM_JOB_FORMAT "1"

enum cm_job_type {		/* the value, and its C type once parsed */
	CM_JOB_STR,	/* text (the value itself) */
	CM_JOB_UINT,	/* a whole number (uint64_t) */
	CM_JOB_SIZE,	/* bytes, k/m/g/t suffixes allowed (parse.h; uint64_t) */
	CM_JOB_SECS,	/* seconds, a decimal from 0 (double) */
	CM_JOB_BOOL,	/* on|off (int: 1|0) */
	CM_JOB_CHOICE,	/* one of cm_job_keydef.choices (int: its index) */
};

/* The sections, in the order the writer writes them. */
#define CM_JOB_NSECTIONS 6
extern const char *const cm_job_sections[CM_JOB_NSECTIONS];

/* Every key, in the order the writer writes them. */
enum cm_job_key {
	CM_JOB_K_FORMAT, CM_JOB_K_NAME, CM_JOB_K_RANKS,
	CM_JOB_K_SRC_TRACE, CM_JOB_K_SRC_DURATION, CM_JOB_K_SRC_EVENTS,
	CM_JOB_K_DATA_FOLDER, CM_JOB_K_NUM_FILES, CM_JOB_K_NUM_SUBFOLDERS,
	CM_JOB_K_FILE_PREFIX, CM_JOB_K_FILE_SUFFIX, CM_JOB_K_RECORD_LENGTH,
	CM_JOB_K_RECORD_STDEV, CM_JOB_K_RECORD_MIN, CM_JOB_K_RECORD_MAX,
	CM_JOB_K_SAMPLES_PER_FILE, CM_JOB_K_GENERATE,
	CM_JOB_K_READ_THREADS, CM_JOB_K_BATCH_SIZE, CM_JOB_K_TRANSFER_SIZE,
	CM_JOB_K_FILE_SHUFFLE, CM_JOB_K_SAMPLE_SHUFFLE, CM_JOB_K_PREFETCH,
	CM_JOB_K_ODIRECT, CM_JOB_K_READ_EOF, CM_JOB_K_DROP_LAST, CM_JOB_K_MMAP,
	CM_JOB_K_EPOCHS, CM_JOB_K_STEPS_PER_EPOCH, CM_JOB_K_COMPUTE, CM_JOB_K_COMPUTE_STDEV,
	CM_JOB_K_COMPUTE_DIST,
	CM_JOB_K_SEED,
	CM_JOB_K_CKPT_FOLDER, CM_JOB_K_CKPT_AFTER, CM_JOB_K_CKPT_EPOCHS, CM_JOB_K_CKPT_STEPS,
	CM_JOB_K_CKPT_WRITES, CM_JOB_K_CKPT_READS, CM_JOB_K_CKPT_SIZE,
	CM_JOB_K_CKPT_FILES, CM_JOB_K_CKPT_TRANSFER, CM_JOB_K_CKPT_FSYNC, CM_JOB_K_CKPT_RENAME,
	CM_JOB_K_CKPT_READ_BACK,
	CM_JOB_NKEYS
};

/* cm_job_keydef.flags */
#define CM_JOB_REQUIRED	0x1	/* a job file without it is refused */
#define CM_JOB_INFO	0x2	/* informative: checked, then unused */

/*
 * A key: where it is, its type and range, its default, and what the
 * job-file source (replay/rp_jobfile.c) does with it; the one description
 * of the keys, for what writes job files and what reads them
 * (iotape-job(5) says the same in words).
 */
struct cm_job_keydef {
	const char *section;	/* "dataset" */
	const char *name;	/* "num_files" */
	enum cm_job_type type;
	unsigned flags;		/* CM_JOB_REQUIRED, CM_JOB_INFO */
	uint64_t min, max;	/* UINT, SIZE: the range; SECS: from 0 to max;
				 * STR: at most max bytes (0: any length) */
	const char *choices;	/* CHOICE: "off|on|once" */
	const char *def;	/* the default, a value of the key; NULL: none (a
				 * required or informative key, or one whose
				 * absence means something: use says what) */
	const char *use;	/* what the generator does with it */
};

/* Indexed by enum cm_job_key. */
extern const struct cm_job_keydef cm_job_keys[CM_JOB_NKEYS];

/* A value parsed as its key's type says (the one field of its type). */
struct cm_job_val {
	uint64_t u;	/* UINT, SIZE */
	double d;	/* SECS */
	int c;		/* BOOL, CHOICE */
};

struct cm_job {
	char *val[CM_JOB_NKEYS];	/* NULL: left out */
	char *note[CM_JOB_NKEYS];	/* NULL: no comment */
	char *header;			/* comment lines after the first, or NULL */
};

/* The key named section/name, or -ENOENT. */
int cm_job_find(const char *section, const char *name);
/* The index of section name in cm_job_sections[], or -ENOENT. */
int cm_job_section(const char *name);

/*
 * Parse value as a value of key (its type and range), into *out (NULL: only
 * check it): 0, or -EINVAL with the message in why, cut to whylen:
 * "dataset.num_files: 'x' is not a whole number from 0 to 100000000".
 * A string is not copied: the value is the string.
 */
int cm_job_parse(int key, const char *value, struct cm_job_val *out, char *why, size_t whylen);

/*
 * Give key the value (copied) and note (copied, NULL for none), replacing
 * what it had; value NULL leaves the key out.  The value is not checked
 * (cm_job_parse()).  0 or -ENOMEM (then the key is unchanged).
 */
int cm_job_set(struct cm_job *job, int key, const char *value, const char *note);
/* The same with the value formatted. */
int cm_job_setf(struct cm_job *job, int key, const char *note, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Comment lines put under the file's first line (copied; '\n' separates
 * lines): 0 or -ENOMEM. */
int cm_job_set_header(struct cm_job *job, const char *text);

/* Free what job holds and empty it; job may be NULL. */
void cm_job_release(struct cm_job *job);

/*
 * Write job as an INI job file to f: the format line ([job] format is
 * always written), then each section that has a key given, each key with
 * its note as a ';' comment.  0, or -EIO when f reports an error.
 */
int cm_job_write(FILE *f, const struct cm_job *job);

#endif /* IOTAPE_COMMON_JOB_H */
