/* SPDX-License-Identifier: MIT */
/*
 * imp_dftracer.c - the dftracer importer: DFTracer's trace files (.pfw,
 * and gzip'd .pfw.gz), the traces DLIO users produce, into syscalls.
 *
 * A .pfw file is "[" then one JSON object per line (Chrome-trace-like),
 * maybe "]" at the end; lines may end with a comma.  Complete events
 * ("ph": "X") of category POSIX or STDIO become syscall rows: the event
 * name picks the op (a table below), "ts"/"dur" (microseconds) give ts_ns
 * and dur_ns, "pid"/"tid" the process and thread, and "args" the rest:
 * fname (or fhash, resolved through the "FH" metadata events that map a
 * hash to a file name), fd, count (or size), offset, ret, flags, whence.
 * What args leave out imp_sys_fill gives, as for a CSV without the
 * column (iotape-import(1)).  Events of other categories (DLIO's compute,
 * checkpoint, TFReader, ...) are not I/O: they are counted in the
 * "import.app_events" metadata key and leave their time as gaps.  I/O
 * events iotape has no op for, and those that cannot be placed (no file
 * and no fd, or an fd whose open is not in the trace) are counted in
 * "import.skipped_events".
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "import.h"
#include "imp_text.h"
#include "tape_vec.h"

enum kind { K_PLAIN, K_STDIO_RW, K_SEEK };

static const struct dft_op {
	const char *name;
	unsigned op;
	enum kind kind;
} dft_ops[] = {
	{ "open", TAPE_OP_OPEN, K_PLAIN }, { "open64", TAPE_OP_OPEN, K_PLAIN },
	{ "__open_2", TAPE_OP_OPEN, K_PLAIN },
	{ "openat", TAPE_OP_OPENAT, K_PLAIN }, { "openat64", TAPE_OP_OPENAT, K_PLAIN },
	{ "creat", TAPE_OP_CREAT, K_PLAIN }, { "creat64", TAPE_OP_CREAT, K_PLAIN },
	{ "fopen", TAPE_OP_OPEN, K_PLAIN }, { "fopen64", TAPE_OP_OPEN, K_PLAIN },
	{ "close", TAPE_OP_CLOSE, K_PLAIN }, { "fclose", TAPE_OP_CLOSE, K_PLAIN },
	{ "read", TAPE_OP_READ, K_PLAIN }, { "fread", TAPE_OP_READ, K_STDIO_RW },
	{ "pread", TAPE_OP_PREAD64, K_PLAIN }, { "pread64", TAPE_OP_PREAD64, K_PLAIN },
	{ "write", TAPE_OP_WRITE, K_PLAIN }, { "fwrite", TAPE_OP_WRITE, K_STDIO_RW },
	{ "pwrite", TAPE_OP_PWRITE64, K_PLAIN }, { "pwrite64", TAPE_OP_PWRITE64, K_PLAIN },
	{ "lseek", TAPE_OP_LSEEK, K_SEEK }, { "lseek64", TAPE_OP_LSEEK, K_SEEK },
	{ "fseek", TAPE_OP_LSEEK, K_SEEK }, { "fseeko", TAPE_OP_LSEEK, K_SEEK },
	{ "fsync", TAPE_OP_FSYNC, K_PLAIN }, { "fdatasync", TAPE_OP_FDATASYNC, K_PLAIN },
	{ "ftruncate", TAPE_OP_FTRUNCATE, K_PLAIN },
	{ "mmap", TAPE_OP_MMAP, K_PLAIN }, { "mmap64", TAPE_OP_MMAP, K_PLAIN },
	{ "stat", TAPE_OP_NEWSTAT, K_PLAIN }, { "stat64", TAPE_OP_NEWSTAT, K_PLAIN },
	{ "__xstat", TAPE_OP_NEWSTAT, K_PLAIN }, { "__xstat64", TAPE_OP_NEWSTAT, K_PLAIN },
	{ "lstat", TAPE_OP_NEWLSTAT, K_PLAIN }, { "lstat64", TAPE_OP_NEWLSTAT, K_PLAIN },
	{ "__lxstat", TAPE_OP_NEWLSTAT, K_PLAIN }, { "__lxstat64", TAPE_OP_NEWLSTAT, K_PLAIN },
	{ "fstat", TAPE_OP_NEWFSTAT, K_PLAIN }, { "fstat64", TAPE_OP_NEWFSTAT, K_PLAIN },
	{ "__fxstat", TAPE_OP_NEWFSTAT, K_PLAIN }, { "__fxstat64", TAPE_OP_NEWFSTAT, K_PLAIN },
	{ "mkdir", TAPE_OP_MKDIR, K_PLAIN }, { "unlink", TAPE_OP_UNLINK, K_PLAIN },
	{ "remove", TAPE_OP_UNLINK, K_PLAIN }, { "rename", TAPE_OP_RENAME, K_PLAIN },
	{ "access", TAPE_OP_ACCESS, K_PLAIN }, { "readlink", TAPE_OP_READLINK, K_PLAIN },
};

struct dft {
	struct imp_sys st;
	struct cm_strtab fh_keys;	/* fhash (as text) -> id */
	struct cm_strtab fh_paths;
	uint32_t *fh_path;		/* fh_keys id -> fh_paths id */
	size_t fh_cap;
	const char *cols_have;
	uint64_t app_events, skipped;
	char *pbuf[2];			/* normalized paths: path, path2 */
	size_t pcap[2];
	char err[200];
};

/* A copy of path in x->pbuf[i], normalized (imp_path_normalize); NULL:
 * ENOMEM. */
static const char *norm_path(struct dft *x, int i, const char *path)
{
	size_t n = strlen(path) + 1;

	if (n > x->pcap[i]) {
		char *p = realloc(x->pbuf[i], n);

		if (!p)
			return NULL;
		x->pbuf[i] = p;
		x->pcap[i] = n;
	}
	memcpy(x->pbuf[i], path, n);
	imp_path_normalize(x->pbuf[i]);
	return x->pbuf[i];
}

/* Older DFTracer writers print numbers as strings ("pid":"1338896",
 * "ret":"131072"): the keys of o that hold numbers, as numbers.
 * 0, -ENOMEM. */
static int unstring(json_t *o, const char *const *keys)
{
	for (; *keys; keys++) {
		json_t *j = json_object_get(o, *keys), *v = NULL;
		const char *s = json_string_value(j), *q;
		char *end;
		int real = 0;

		if (!s || !((s[0] >= '0' && s[0] <= '9') ||
			    (s[0] == '-' && s[1] >= '0' && s[1] <= '9')))
			continue;
		for (q = s + 1; *q; q++) {
			if (*q == '.' || *q == 'e' || *q == 'E' || *q == '+' || *q == '-')
				real = 1;
			else if (*q < '0' || *q > '9')
				break;
		}
		if (*q)
			continue;	/* not a number: left to be refused */
		errno = 0;
		if (!real) {
			long long n = strtoll(s, &end, 10);

			if (!*end && !errno)
				v = json_integer(n);
		} else {
			double d = strtod(s, &end);

			if (!*end && !errno)
				v = json_real(d);
		}
		if (!*end && !errno && (!v || json_object_set_new(o, *keys, v)))
			return -ENOMEM;
	}
	return 0;
}

static const struct dft_op *op_find(const char *name)
{
	for (size_t i = 0; i < sizeof(dft_ops) / sizeof(dft_ops[0]); i++)
		if (strcmp(dft_ops[i].name, name) == 0)
			return &dft_ops[i];
	return NULL;
}

/* A hash value as text: integers in decimal, strings as they are. */
static int hash_text(json_t *v, char *buf, size_t len)
{
	if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_string(v) && json_string_length(v) < len)
		snprintf(buf, len, "%s", json_string_value(v));
	else
		return -1;
	return 0;
}

/* An "FH" metadata event: a file name and its hash. */
static int fh_add(struct dft *x, json_t *args)
{
	json_t *name = json_object_get(args, "name");
	char key[64];
	uint32_t k, p;

	if (!json_is_string(name) || hash_text(json_object_get(args, "value"), key, sizeof(key))) {
		snprintf(x->err, sizeof(x->err), "FH event without args.name and args.value");
		return -EINVAL;
	}
	if (json_string_length(name) > TAPE_MAX_STRING) {
		snprintf(x->err, sizeof(x->err), "file name longer than %u bytes", TAPE_MAX_STRING);
		return -EINVAL;
	}
	const char *path = norm_path(x, 0, json_string_value(name));

	if (!path || cm_strtab_intern(&x->fh_keys, key, &k) < 0 ||
	    cm_strtab_intern(&x->fh_paths, path, &p) < 0)
		return -ENOMEM;
	if (TAPE_VEC_GROW(x->fh_path, x->fh_cap, (size_t)k + 1, 64))
		return -ENOMEM;
	x->fh_path[k] = p;	/* a later FH of the same hash wins */
	return 0;
}

/* args[key] as an integer (a JSON integer, or a real with no fraction):
 * 1 found, 0 absent, -EINVAL not an integer. */
static int arg_int(struct dft *x, json_t *args, const char *key, int64_t *v)
{
	json_t *j = json_object_get(args, key);

	if (!j || json_is_null(j))
		return 0;
	if (json_is_integer(j)) {
		*v = json_integer_value(j);
		return 1;
	}
	if (json_is_real(j) && json_real_value(j) == (double)(int64_t)json_real_value(j)) {
		*v = (int64_t)json_real_value(j);
		return 1;
	}
	snprintf(x->err, sizeof(x->err), "args.%s is not an integer", key);
	return -EINVAL;
}

/* Microseconds (integer or real) as nanoseconds. */
static int usec(struct dft *x, json_t *o, const char *key, int need, uint64_t *ns)
{
	json_t *j = json_object_get(o, key);
	double d;

	if (!j) {
		if (!need) {
			*ns = 0;
			return 0;
		}
		snprintf(x->err, sizeof(x->err), "no \"%s\"", key);
		return -EINVAL;
	}
	if (!json_is_number(j)) {
		snprintf(x->err, sizeof(x->err), "\"%s\" is not a number", key);
		return -EINVAL;
	}
	if (json_is_integer(j)) {
		json_int_t v = json_integer_value(j);

		if (v < 0 || (uint64_t)v > UINT64_MAX / 1000) {
			snprintf(x->err, sizeof(x->err), "\"%s\" out of range", key);
			return -ERANGE;
		}
		*ns = (uint64_t)v * 1000;
		return 0;
	}
	d = json_real_value(j);
	if (!(d >= 0 && d < 1.8e16)) {
		snprintf(x->err, sizeof(x->err), "\"%s\" out of range", key);
		return -ERANGE;
	}
	*ns = (uint64_t)(d * 1000 + 0.5);
	return 0;
}

static int id32(struct dft *x, json_t *o, const char *key, uint32_t *v)
{
	json_t *j = json_object_get(o, key);

	if (!j) {
		*v = 0;
		return 0;
	}
	if (!json_is_integer(j) || json_integer_value(j) < 0 ||
	    json_integer_value(j) > UINT32_MAX) {
		snprintf(x->err, sizeof(x->err), "\"%s\" is not a 32-bit id", key);
		return -EINVAL;
	}
	*v = (uint32_t)json_integer_value(j);
	return 1;
}

#define COL(name) (tape_column_find(TAPE_TABLE_SYSCALL, name) - cols)

/* The integer arguments of an I/O event, each with whether it is there. */
struct dft_args {
	int64_t fd, count, size, ret, off, flags, whence;
	int has_fd, has_count, has_size, has_ret, has_off, has_flags, has_whence;
};

static int dft_args_get(struct dft *x, json_t *args, struct dft_args *a)
{
	*a = (struct dft_args){ .fd = -1 };
	if ((a->has_fd = arg_int(x, args, "fd", &a->fd)) < 0 ||
	    (a->has_count = arg_int(x, args, "count", &a->count)) < 0 ||
	    (a->has_size = arg_int(x, args, "size", &a->size)) < 0 ||
	    (a->has_ret = arg_int(x, args, "ret", &a->ret)) < 0 ||
	    (a->has_off = arg_int(x, args, "offset", &a->off)) < 0 ||
	    (a->has_flags = arg_int(x, args, "flags", &a->flags)) < 0 ||
	    (a->has_whence = arg_int(x, args, "whence", &a->whence)) < 0)
		return -EINVAL;
	return 0;
}

/* The event's path (args.fname, or the file of args.fhash), a rename's new
 * path and the fd; 0, 1 for an event that cannot make a row (skipped), or
 * -errno (x->err). */
static int dft_paths(struct dft *x, json_t *args, const struct dft_op *d,
		     const struct dft_args *a, struct tape_syscall *ev, char *have)
{
	const struct tape_column *cols = tape_table_columns(TAPE_TABLE_SYSCALL, NULL);
	json_t *fname = json_object_get(args, "fname"), *j;
	char key[64];

	if (json_is_string(fname)) {
		if (json_string_length(fname) > TAPE_MAX_STRING) {
			snprintf(x->err, sizeof(x->err), "fname longer than %u bytes",
				 TAPE_MAX_STRING);
			return -EINVAL;
		}
		if (!(ev->path = norm_path(x, 0, json_string_value(fname))))
			return -ENOMEM;
	} else if (!hash_text(json_object_get(args, "fhash"), key, sizeof(key))) {
		uint32_t k;

		if (cm_strtab_find(&x->fh_keys, key, &k) == 0)
			ev->path = cm_strtab_str(&x->fh_paths, x->fh_path[k]);
	}
	if (*ev->path)
		have[COL("path")] = 1;
	j = json_object_get(args, "newpath");
	if (d->op == TAPE_OP_RENAME) {
		if (!json_is_string(j) || json_string_length(j) > TAPE_MAX_STRING)
			return 1;
		if (!(ev->path2 = norm_path(x, 1, json_string_value(j))))
			return -ENOMEM;
		have[COL("path2")] = 1;
	}
	if (tape_op_has_path(d->op) && !*ev->path)
		return 1;
	if (tape_op_uses_fd(d->op) && !a->has_fd && !*ev->path)
		return 1;
	if (a->has_fd) {
		ev->fd = a->fd;
		have[COL("fd")] = 1;
	}
	return 0;
}

/* The size asked for and what came back: fread/fwrite count items, mmap
 * and ftruncate have a length; 0, 1 to skip the event, or -errno. */
static int dft_size(struct dft *x, json_t *args, const struct dft_op *d,
		    const struct dft_args *a, struct tape_syscall *ev, char *have)
{
	const struct tape_column *cols = tape_table_columns(TAPE_TABLE_SYSCALL, NULL);
	int64_t size = a->size, count = a->count, ret = a->ret;
	int rc;

	if (d->kind == K_STDIO_RW) {
		/* fread/fwrite(ptr, size, count, fp): ret counts items */
		if (!a->has_size)
			size = 1;
		if (size < 0 || count < 0 || (size && count > INT64_MAX / size))
			return 1;
		ev->size = (uint64_t)(size * count);
		if (a->has_ret) {
			if (ret >= 0 && size && ret > INT64_MAX / size)
				return 1;
			ev->ret = ret >= 0 ? ret * size : ret;
			have[COL("ret")] = 1;
		}
	} else {
		if (d->op == TAPE_OP_MMAP || d->op == TAPE_OP_FTRUNCATE) {
			int64_t length = 0;

			if ((rc = arg_int(x, args, "length", &length)) < 0)
				return rc;
			ev->size = (uint64_t)length;
		} else {
			ev->size = (uint64_t)(a->has_count ? count : a->has_size ? size : 0);
		}
		if (a->has_ret) {
			ev->ret = ret;
			have[COL("ret")] = 1;
		}
	}
	have[COL("size")] = 1;
	return 0;
}

/* The flags (a seek's whence) and the offset; 1 to skip the event (an
 * fseek whose position is not known), else 0. */
static int dft_flags_offset(const struct dft_op *d, const struct dft_args *a,
			    struct tape_syscall *ev, char *have)
{
	const struct tape_column *cols = tape_table_columns(TAPE_TABLE_SYSCALL, NULL);

	if (d->kind == K_SEEK) {
		ev->flags = (uint64_t)a->whence;
		have[COL("flags")] = 1;
		/* fseek returns 0, not the position: the position is known
		 * for SEEK_SET only */
		if (strncmp(d->name, "fseek", 5) == 0) {
			if (a->whence != 0 || !a->has_off || a->off < 0)
				return 1;
			ev->ret = a->off;
			have[COL("ret")] = 1;
		}
	} else if (a->has_flags) {
		ev->flags = (uint64_t)a->flags;
		have[COL("flags")] = 1;
	}
	if (a->has_off && (d->op == TAPE_OP_PREAD64 || d->op == TAPE_OP_PWRITE64 ||
			   d->op == TAPE_OP_LSEEK || d->op == TAPE_OP_MMAP)) {
		ev->offset = (uint64_t)a->off;
		have[COL("offset")] = 1;
	}
	return 0;
}

/* One complete I/O event. */
static int dft_io(struct dft *x, tape_writer *w, json_t *o, const struct dft_op *d)
{
	const struct tape_column *cols = tape_table_columns(TAPE_TABLE_SYSCALL, NULL);
	json_t *args = json_object_get(o, "args");
	struct tape_syscall ev = { .path = "", .path2 = "" };
	struct dft_args a;
	char have[32] = { 0 };
	int rc;

	if (args && !json_is_object(args)) {
		snprintf(x->err, sizeof(x->err), "\"args\" is not an object");
		return -EINVAL;
	}
	if ((rc = usec(x, o, "ts", 1, &ev.ts_ns)) || (rc = usec(x, o, "dur", 0, &ev.dur_ns)))
		return rc;
	if ((rc = id32(x, o, "pid", &ev.pid)) < 0)
		return rc;
	have[COL("pid")] = rc > 0;
	if ((rc = id32(x, o, "tid", &ev.tid)) < 0)
		return rc;
	have[COL("tid")] = rc > 0;
	if ((rc = dft_args_get(x, args, &a)))
		return rc;
	ev.op = d->op;
	have[COL("ts_ns")] = have[COL("dur_ns")] = have[COL("op")] = 1;

	rc = dft_paths(x, args, d, &a, &ev, have);
	if (!rc)
		rc = dft_size(x, args, d, &a, &ev, have);
	if (!rc)
		rc = dft_flags_offset(d, &a, &ev, have);
	if (rc < 0)
		return rc;
	if (rc)
		goto skip;
	rc = imp_sys_fill(&x->st, &ev, have, x->err, sizeof(x->err));
	if (rc == -EINVAL) {
		x->err[0] = '\0';
		goto skip;	/* an fd whose open the trace does not have */
	}
	if (rc)
		return rc;
	rc = tape_writer_append(w, TAPE_TABLE_SYSCALL, &ev);
	if (rc < 0)
		x->err[0] = '\0';
	return rc;
skip:
	x->skipped++;
	return 0;
}

/* Drop the commas before a '}' or ']' (outside strings) of s[0, len):
 * DFTracer's writer leaves one after the last of the args it could not
 * print ("args":{"hhash":1,"step":1,}, as in DLIO's traces).  The new
 * length. */
static size_t drop_trailing_commas(char *s, size_t len)
{
	size_t o = 0;
	int in_str = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (in_str) {
			if (c == '\\' && i + 1 < len) {
				s[o++] = c;
				c = s[++i];
			} else if (c == '"') {
				in_str = 0;
			}
		} else if (c == '"') {
			in_str = 1;
		} else if (c == ',') {
			size_t j = i + 1;

			while (j < len && (s[j] == ' ' || s[j] == '\t'))
				j++;
			if (j < len && (s[j] == '}' || s[j] == ']'))
				continue;
		}
		s[o++] = c;
	}
	return o;
}

static const char *const event_nums[] = { "pid", "tid", "ts", "dur", NULL };
static const char *const arg_nums[] = {
	"fd", "count", "size", "ret", "offset", "flags", "whence", "length", NULL
};

/* One line: 0 or -errno (x->err set for the input's faults). */
static int dft_line(struct dft *x, tape_writer *w, char *s, size_t len)
{
	json_error_t jerr;
	json_t *o, *j;
	const char *ph, *cat, *name;
	int rc = 0;

	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == ','))
		len--;
	if (len && *s == '[') {
		s++;
		len--;
	}
	if (len && s[len - 1] == ']')
		len--;
	if (!len)
		return 0;
	len = drop_trailing_commas(s, len);
	o = json_loadb(s, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
	if (!o) {
		snprintf(x->err, sizeof(x->err), "bad JSON at column %d: %s",
			 jerr.column, jerr.text);
		return -EINVAL;
	}
	if (!json_is_object(o)) {
		snprintf(x->err, sizeof(x->err), "not a JSON object");
		rc = -EINVAL;
		goto out;
	}
	j = json_object_get(o, "args");
	if (unstring(o, event_nums) || (json_is_object(j) && unstring(j, arg_nums))) {
		rc = -ENOMEM;
		goto out;
	}
	j = json_object_get(o, "name");
	name = json_string_value(j);
	j = json_object_get(o, "ph");
	ph = json_string_value(j);
	if (json_is_integer(j))	/* DFTracer's newer writer: 1 complete, 4 metadata */
		ph = json_integer_value(j) == 1 ? "X" : json_integer_value(j) == 4 ? "M" : "?";
	cat = json_string_value(json_object_get(o, "cat"));
	if (!name) {
		snprintf(x->err, sizeof(x->err), "event without a \"name\" string");
		rc = -EINVAL;
		goto out;
	}
	if (ph && strcmp(ph, "M") == 0) {
		if (strcmp(name, "FH") == 0)
			rc = fh_add(x, json_object_get(o, "args"));
		goto out;
	}
	if (!ph || strcmp(ph, "X") != 0) {
		x->skipped++;	/* only complete events have a duration */
		goto out;
	}
	if (!cat || (strcasecmp(cat, "POSIX") != 0 && strcasecmp(cat, "STDIO") != 0)) {
		x->app_events++;
		goto out;
	}
	const struct dft_op *d = op_find(name);

	if (!d)
		x->skipped++;
	else
		rc = dft_io(x, w, o, d);
out:
	json_decref(o);
	return rc;
}

static int dftracer_import(FILE *in, tape_writer *w, const struct imp_opts *o,
			   struct imp_diag *d)
{
	struct dft x = { 0 };
	struct imp_text t;
	size_t len;
	char num[32];
	int rc;

	rc = imp_text_init(&t, in);
	while (rc == 0 && (rc = imp_text_next(&t, &len)) > 0) {
		x.err[0] = '\0';
		rc = dft_line(&x, w, t.line, len);
		if (rc < 0)
			imp_diag_set(d, t.lineno, x.err);
	}
	imp_text_diag(&t, rc, d);
	if (rc == 0) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)x.app_events);
		rc = tape_writer_set_meta(w, "import.app_events", num);
	}
	if (rc == 0) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)x.skipped);
		rc = tape_writer_set_meta(w, "import.skipped_events", num);
	}
	imp_text_release(&t);
	imp_sys_release(&x.st);
	cm_strtab_release(&x.fh_keys);
	cm_strtab_release(&x.fh_paths);
	free(x.fh_path);
	free(x.pbuf[0]);
	free(x.pbuf[1]);
	return rc < 0 ? rc : 0;
}

const struct importer imp_dftracer = {
	.name = "dftracer",
	.summary = "DFTracer/DLIO trace files (.pfw JSON lines, or .pfw.gz)",
	.not_recorded = "block, cache, process, file: POSIX and STDIO calls only, "
			"of the files DFTracer was told to trace",
	.clock = "dftracer: microseconds, as the trace's ts (usually since the epoch)",
	.run = dftracer_import,
};
