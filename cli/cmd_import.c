/* SPDX-License-Identifier: MIT */
/*
 * cmd_import.c - `iotape import`: build a trace from a CSV file.
 *
 * The inverse of `iotape dump --format csv`, generic over the columns of
 * every table: the header row names the columns (any subset, any order) and
 * each row becomes one event, appended in file order.  A full dump imports
 * back to the same events, so dump | import | dump is byte-identical.
 *
 * Hand-written CSVs may leave columns out.  Other tables then get 0 or "";
 * the syscall table gets the values a real program would have produced
 * (pid 1, fds handed out lowest-free from 3, read/write offsets following
 * the file position, ...), documented in iotape-import(1).  Defaults only
 * ever fill columns that are absent from the header: a value that is
 * present, even empty, is taken as it is.
 *
 * Nothing is left behind on error: without -f the trace is created with
 * O_EXCL and unlinked on failure; with -f it is written to a temporary
 * file next to it and renamed over the old one at the end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "fstype.h"
#include "map.h"
#include "opt.h"
#include "tape.h"

struct import_cfg {
	int format;		/* csv, the only one */
	const char *table, *out;
	int force;
};

/* --meta is untyped: it may be repeated */
static const struct opt import_opts[] = {
	{ 'F', "format", "FORMAT", "input format", "csv", "csv",
	  OPT_T_CHOICE(struct import_cfg, format) },
	{ 't', "table", "TABLE", "table the rows belong to",
	  "syscall|block|cache|process|file|sample", "syscall",
	  OPT_T_STR(struct import_cfg, table) },
	{ 'f', "force", NULL, "replace TRACE if it exists", OPT_T_FLAG(struct import_cfg, force) },
	{ 'm', "meta", "KEY=VALUE", "set a metadata key (repeatable; after the defaults)" },
	{ 'o', "output", "TRACE", "trace to create", NULL, NULL, OPT_REQUIRED,
	  OPT_T_STR(struct import_cfg, out) },
	{ 0 }
};

const struct opt_cmd import_cmd = {
	"import", "FILE", "Build a trace from a CSV file.",
	"FILE '-' reads stdin.  The header row names the columns, as 'iotape dump\n"
	"--format csv' prints them; columns may be left out (see iotape-import(1)\n"
	"for the defaults).",
	import_opts,
};

/* ------------------------------------------------------------ csv reader */

/* RFC 4180 records from a FILE: quoted fields may hold commas, quotes
 * ("" inside quotes) and newlines; CRLF or LF ends a record. */
struct csv {
	FILE *f;
	unsigned long line;	/* line of the next byte */
	unsigned long rec_line;	/* line the current record starts on */
	char *buf;		/* the fields, each NUL-terminated */
	size_t len, cap;
	size_t *off;		/* offset of each field in buf */
	size_t nf, fcap;
	char err[128];
	int read_errno;		/* why getc failed (EISDIR for a directory) */
};

static int csv_putc(struct csv *c, char ch)
{
	if (c->len == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4096;
		char *p = realloc(c->buf, cap);

		if (!p)
			return -ENOMEM;
		c->buf = p;
		c->cap = cap;
	}
	c->buf[c->len++] = ch;
	return 0;
}

static int csv_new_field(struct csv *c)
{
	if (c->nf == c->fcap) {
		size_t cap = c->fcap ? 2 * c->fcap : 32;
		size_t *p = realloc(c->off, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		c->off = p;
		c->fcap = cap;
	}
	c->off[c->nf++] = c->len;
	return 0;
}

static const char *csv_field(const struct csv *c, size_t i)
{
	return c->buf + c->off[i];
}

/* 1 and a record, 0 at the end of the input, -errno (c->err says why). */
static int csv_read(struct csv *c)
{
	int ch, quoted, any;

again:
	c->len = 0;
	c->nf = 0;
	c->rec_line = c->line;
	any = 0;	/* the record has a byte or a quoted field */
	for (;;) {
		if (csv_new_field(c))
			return -ENOMEM;
		quoted = 0;
		ch = getc(c->f);
		if (ch == '"') {
			quoted = any = 1;
			for (;;) {
				ch = getc(c->f);
				if (ch == EOF) {
					snprintf(c->err, sizeof(c->err),
						 "quoted field never ends");
					c->read_errno = errno;
					return ferror(c->f) ? -EIO : -EBADMSG;
				}
				if (ch == '"') {
					ch = getc(c->f);
					if (ch != '"')
						break;
				}
				if (ch == '\n')
					c->line++;
				if (ch == '\0')
					goto nul;
				if (csv_putc(c, (char)ch))
					return -ENOMEM;
			}
		}
		/* unquoted bytes, or what follows the closing quote */
		for (;; ch = getc(c->f)) {
			if (ch == ',' || ch == '\n' || ch == EOF)
				break;
			if (ch == '\r') {
				int next = getc(c->f);

				if (next == '\n') {
					ch = next;
					break;
				}
				ungetc(next, c->f);
			}
			if (quoted) {
				snprintf(c->err, sizeof(c->err),
					 "text after the closing quote of field %zu", c->nf);
				return -EBADMSG;
			}
			if (ch == '"') {
				snprintf(c->err, sizeof(c->err),
					 "quote inside unquoted field %zu (quote the whole field)",
					 c->nf);
				return -EBADMSG;
			}
			if (ch == '\0')
				goto nul;
			any = 1;
			if (csv_putc(c, (char)ch))
				return -ENOMEM;
		}
		if (csv_putc(c, '\0'))
			return -ENOMEM;
		if (ch == ',') {
			any = 1;
			continue;
		}
		if (ch == '\n')
			c->line++;
		if (ch == EOF && ferror(c->f)) {
			snprintf(c->err, sizeof(c->err), "read error");
			c->read_errno = errno;
			return -EIO;
		}
		if (!any) {
			/* blank line: skip it, or the end */
			if (ch == EOF)
				return 0;
			goto again;
		}
		return 1;
	}
nul:
	snprintf(c->err, sizeof(c->err), "NUL byte in field %zu", c->nf);
	return -EBADMSG;
}

/* ------------------------------------------------------ syscall defaults */

struct fd_ent {
	uint32_t pid;
	int64_t fd;
	int open;
	uint32_t path;		/* id in paths */
	uint64_t pos;		/* file position */
};

/* What the rows so far did, to fill the columns the CSV leaves out.  A
 * path's file id is its id in paths + 1: 1, 2, ... in order of first
 * appearance. */
struct sysstate {
	struct cm_strtab paths;
	struct fd_ent *fds;
	size_t nfds, fcap;
	struct cm_map by_fd;	/* (pid, fd) -> fds index */
	struct cm_map last_open;/* (pid, path id) -> fd */
};

static void sysstate_release(struct sysstate *st)
{
	cm_strtab_release(&st->paths);
	free(st->fds);
	cm_map_release(&st->by_fd);
	cm_map_release(&st->last_open);
}

/* Id of path s, added when new; -ENOMEM. */
static int64_t path_intern(struct sysstate *st, const char *s)
{
	uint32_t id;
	int rc = cm_strtab_intern(&st->paths, s, &id);

	return rc < 0 ? rc : (int64_t)id;
}

/* The fd entry of (pid, fd) if it is open. */
static struct fd_ent *fd_find(struct sysstate *st, uint32_t pid, int64_t fd)
{
	uint64_t *v = cm_map_get(&st->by_fd, pid, (uint64_t)fd);

	return v && st->fds[*v].open ? &st->fds[*v] : NULL;
}

static int fd_set_open(struct sysstate *st, uint32_t pid, int64_t fd,
		       uint32_t path, uint64_t pos)
{
	uint64_t *v = cm_map_get(&st->by_fd, pid, (uint64_t)fd);
	struct fd_ent *e;

	if (!v) {
		if (st->nfds == st->fcap) {
			size_t cap = st->fcap ? 2 * st->fcap : 64;
			struct fd_ent *p = realloc(st->fds, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			st->fds = p;
			st->fcap = cap;
		}
		if (cm_map_set(&st->by_fd, pid, (uint64_t)fd, st->nfds))
			return -ENOMEM;
		e = &st->fds[st->nfds++];
	} else {
		e = &st->fds[*v];
	}
	*e = (struct fd_ent){ pid, fd, 1, path, pos };
	return cm_map_set(&st->last_open, pid, path, (uint64_t)fd);
}

static int64_t fd_lowest_free(struct sysstate *st, uint32_t pid)
{
	int64_t fd = 3;

	while (fd_find(st, pid, fd))
		fd++;
	return fd;
}

/* Ops that move the file position (read(2), not pread(2)). */
static int op_moves_pos(unsigned op)
{
	return op == TAPE_OP_READ || op == TAPE_OP_READV ||
	       op == TAPE_OP_WRITE || op == TAPE_OP_WRITEV;
}

/* Read and write ops whose ret is a byte count. */
static int op_transfers(unsigned op)
{
	enum tape_op_class k = tape_op_class(op);

	return ((k == TAPE_OPC_READ || k == TAPE_OPC_WRITE) &&
		op != TAPE_OP_FTRUNCATE && op != TAPE_OP_FALLOCATE) ||
	       tape_op_has_output(op);
}

#define HAVE(col) (have[(col) - cols])

/*
 * Fill the syscall columns the CSV left out (see the man page) and track
 * opens, closes and file positions.  Returns 0, -ENOMEM, or -EINVAL with a
 * message in err.
 */
static int syscall_fill(struct sysstate *st, struct tape_syscall *ev,
			const struct tape_column *cols, const char *have,
			char *err, size_t errlen)
{
#define COL(name) (tape_column_find(TAPE_TABLE_SYSCALL, name))
	const struct tape_column *c_pid = COL("pid"), *c_tid = COL("tid");
	const struct tape_column *c_path = COL("path"), *c_fd = COL("fd");
	const struct tape_column *c_ret = COL("ret"), *c_off = COL("offset");
	const struct tape_column *c_fid = COL("file_id");
	const struct tape_column *c_fd2 = COL("fd2"), *c_fid2 = COL("file_id2");
	const struct tape_column *c_off2 = COL("offset2"), *c_path2 = COL("path2");
#undef COL
	unsigned op = ev->op;
	enum tape_op_class cls = tape_op_class(op);
	const char *opname = tape_op_name(op) ? tape_op_name(op) : "op";
	int64_t path = -1;	/* id in st->paths */
	struct fd_ent *fe;

	if (!HAVE(c_pid))
		ev->pid = 1;
	if (!HAVE(c_tid))
		ev->tid = ev->pid;
	if (!HAVE(c_path) && tape_op_has_path(op)) {
		snprintf(err, errlen, "%s needs a path: add a path column", opname);
		return -EINVAL;
	}
	if (HAVE(c_path) && *ev->path) {
		path = path_intern(st, ev->path);
		if (path < 0)
			return (int)path;
	}
	if (!HAVE(c_fd)) {
		ev->fd = -1;
		if (tape_op_uses_fd(op)) {
			uint64_t *fd = path >= 0 ?
				cm_map_get(&st->last_open, ev->pid, (uint64_t)path) : NULL;

			if (path < 0) {
				snprintf(err, errlen, "%s acts on an fd: add an fd column, or a path opened earlier",
					 opname);
				return -EINVAL;
			}
			if (!fd || !fd_find(st, ev->pid, (int64_t)*fd)) {
				snprintf(err, errlen, "%s: no open file with this path in pid %u to take the fd from; add an fd column",
					 opname, ev->pid);
				return -EINVAL;
			}
			ev->fd = (int64_t)*fd;
		}
	}
	fe = tape_op_uses_fd(op) ? fd_find(st, ev->pid, ev->fd) : NULL;
	if (!HAVE(c_path) && fe) {
		ev->path = cm_strtab_str(&st->paths, fe->path);
		path = fe->path;
	}
	if (!HAVE(c_ret)) {
		if (cls == TAPE_OPC_OPEN || cls == TAPE_OPC_DUP)
			ev->ret = fd_lowest_free(st, ev->pid);
		else if (op_transfers(op))
			ev->ret = (int64_t)ev->size;
		else
			ev->ret = 0;
	}
	if (!HAVE(c_off))
		ev->offset = op_transfers(op) && fe ? fe->pos : 0;
	if (!HAVE(c_fid))
		ev->file_id = path >= 0 ? (uint64_t)path + 1 : 0;
	if (!HAVE(c_fd2))
		ev->fd2 = -1;
	if (tape_op_has_output(op)) {
		/* the output side from fd2's open file, as the input side
		 * from fd's */
		struct fd_ent *fe2 = ev->fd2 >= 0 ? fd_find(st, ev->pid, ev->fd2) : NULL;

		if (!HAVE(c_path2) && fe2)
			ev->path2 = cm_strtab_str(&st->paths, fe2->path);
		if (!HAVE(c_fid2))
			ev->file_id2 = fe2 ? (uint64_t)fe2->path + 1 : 0;
		if (!HAVE(c_off2))
			ev->offset2 = fe2 ? fe2->pos : 0;
		/* the output fd's position moves (sendfile always writes at
		 * it); the input is taken to be read at an explicit offset */
		if (fe2 && ev->ret > 0)
			fe2->pos = ev->offset2 + (uint64_t)ev->ret;
	}

	/* what this call did to the fd table */
	if (cls == TAPE_OPC_OPEN && ev->ret >= 0 && path >= 0)
		return fd_set_open(st, ev->pid, ev->ret, (uint32_t)path, 0);
	if (cls == TAPE_OPC_DUP && ev->ret >= 0 && fe)
		return fd_set_open(st, ev->pid, ev->ret, fe->path, fe->pos);
	if (cls == TAPE_OPC_CLOSE && fe && ev->ret == 0)
		fe->open = 0;
	else if (op_moves_pos(op) && fe && ev->ret > 0)
		fe->pos = ev->offset + (uint64_t)ev->ret;
	else if (op == TAPE_OP_LSEEK && fe && ev->ret >= 0)
		fe->pos = (uint64_t)ev->ret;
	return 0;
}

/* --------------------------------------------------------------- values */

/* Parse decimal, -decimal (signed columns) or 0x hex into *v, checking the
 * column's range. */
static int parse_num(const struct tape_column *c, const char *s, uint64_t *v,
		     char *err, size_t errlen)
{
	int neg = 0, hex = 0, sgn = c->type == TAPE_COL_I64;
	uint64_t max, x = 0;
	const char *p = s;

	if (*p == '-') {
		neg = 1;
		p++;
	}
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		hex = 1;
		p += 2;
	}
	if (!*p)
		goto bad;
	for (; *p; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (hex && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (hex && *p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			goto bad;
		if (x > (UINT64_MAX - d) / (hex ? 16 : 10))
			goto range;
		x = x * (hex ? 16 : 10) + d;
	}
	if (neg && !sgn)
		goto range;
	max = c->width == 4 ? (sgn ? INT32_MAX : UINT32_MAX) :
			      (sgn ? INT64_MAX : UINT64_MAX);
	if (neg ? x > max + 1 : x > max)
		goto range;
	*v = neg ? 0 - x : x;
	if (neg && c->width == 4)
		*v &= 0xffffffffu;
	return 0;
bad:
	snprintf(err, errlen, "column %s: '%.40s' is not a number", c->name, s);
	return -EINVAL;
range:
	snprintf(err, errlen, "column %s: %.40s is out of range (%s %d-bit)",
		 c->name, s, sgn ? "signed" : "unsigned", c->width * 8);
	return -ERANGE;
}

static int parse_value(const struct tape_column *c, const char *s, uint64_t *v,
		       char *err, size_t errlen)
{
	int n = -EINVAL;

	switch (c->text) {
	case TAPE_TXT_OP:
		n = tape_op_from_name(s);
		break;
	case TAPE_TXT_CACHEKIND:
		n = tape_cache_kind_from_name(s);
		break;
	case TAPE_TXT_METRIC:
		n = tape_metric_from_name(s);
		break;
	case TAPE_TXT_BLKFLAGS:
		if (*s && !(*s >= '0' && *s <= '9') && tape_blk_flags_parse(s, v) == 0)
			return 0;
		break;
	case TAPE_TXT_FSTYPE:	/* a magic, or its name in a hand-written CSV */
		if ((*v = cm_fstype_from_name(s)))
			return 0;
		break;
	}
	if (n >= 0) {
		*v = (uint64_t)n;
		return 0;
	}
	if (c->text != TAPE_TXT_NUM && c->text != TAPE_TXT_HEX &&
	    !(*s >= '0' && *s <= '9')) {
		snprintf(err, errlen, "column %s: unknown %s '%.40s'", c->name,
			 c->text == TAPE_TXT_OP ? "op" :
			 c->text == TAPE_TXT_BLKFLAGS ? "RWBS flags" :
			 c->text == TAPE_TXT_FSTYPE ? "file system type" :
			 c->text == TAPE_TXT_CACHEKIND ? "cache kind" : "metric", s);
		return -EINVAL;
	}
	return parse_num(c, s, v, err, errlen);
}

/* --------------------------------------------------------------- import */

union any_event {
	struct tape_syscall sys;
	struct tape_block blk;
	struct tape_cache cache;
	struct tape_process proc;
	struct tape_file file;
	struct tape_sample sample;
	uint64_t raw[32];
};

struct import {
	const char *in_name;	/* for messages */
	int table;
	struct csv csv;
	const struct tape_column *cols;	/* of the table */
	size_t ncols;
	const struct tape_column **map;	/* CSV field -> column */
	size_t nmap;
	char *have;		/* per table column: present in the CSV */
	struct sysstate st;
	char err[256];
	unsigned long err_line;
};

/* Read the header row: which column each field is. */
static int import_header(struct import *im)
{
	int ret = csv_read(&im->csv);

	im->err_line = im->csv.rec_line;
	if (ret < 0)
		return ret;
	if (ret == 0) {
		snprintf(im->err, sizeof(im->err), "empty input: no header row");
		return -EINVAL;
	}
	im->nmap = im->csv.nf;
	im->map = calloc(im->nmap, sizeof(*im->map));
	im->have = calloc(im->ncols, 1);
	if (!im->map || !im->have)
		return -ENOMEM;
	for (size_t i = 0; i < im->nmap; i++) {
		const char *name = csv_field(&im->csv, i);
		const struct tape_column *c;

		if (i == 0 && strncmp(name, "\xef\xbb\xbf", 3) == 0)
			name += 3;	/* UTF-8 byte order mark (spreadsheets) */
		c = tape_column_find(im->table, name);
		if (!c) {
			snprintf(im->err, sizeof(im->err),
				 "unknown column '%.60s' for table %s", name,
				 tape_table_name(im->table));
			return -EINVAL;
		}
		if (im->have[c - im->cols]) {
			snprintf(im->err, sizeof(im->err), "column %s appears twice",
				 name);
			return -EINVAL;
		}
		im->have[c - im->cols] = 1;
		im->map[i] = c;
	}
	if (!im->have[0]) {
		snprintf(im->err, sizeof(im->err), "no ts_ns column");
		return -EINVAL;
	}
	if (im->table == TAPE_TABLE_SYSCALL &&
	    !im->have[tape_column_find(im->table, "op") - im->cols]) {
		snprintf(im->err, sizeof(im->err), "no op column");
		return -EINVAL;
	}
	return 0;
}

/* Turn the current record into *ev. */
static int import_row(struct import *im, union any_event *ev)
{
	static const char *const empty = "";
	struct csv *csv = &im->csv;

	memset(ev, 0, sizeof(*ev));
	for (size_t i = 0; i < im->ncols; i++)
		if (im->cols[i].type == TAPE_COL_STR)
			memcpy((char *)ev + im->cols[i].offset, &empty, sizeof(empty));
	if (csv->nf != im->nmap) {
		snprintf(im->err, sizeof(im->err), "%zu fields, the header has %zu",
			 csv->nf, im->nmap);
		return -EINVAL;
	}
	for (size_t i = 0; i < im->nmap; i++) {
		const struct tape_column *c = im->map[i];
		const char *s = csv_field(csv, i);
		uint64_t v;
		int ret;

		if (c->type == TAPE_COL_STR) {
			if (strlen(s) > TAPE_MAX_STRING) {
				snprintf(im->err, sizeof(im->err),
					 "column %s: string longer than %u bytes",
					 c->name, TAPE_MAX_STRING);
				return -EINVAL;
			}
			memcpy((char *)ev + c->offset, &s, sizeof(s));
			continue;
		}
		ret = parse_value(c, s, &v, im->err, sizeof(im->err));
		if (ret)
			return ret;
		tape_column_set(c, ev, v);
	}
	if (im->table == TAPE_TABLE_SYSCALL)
		return syscall_fill(&im->st, &ev->sys, im->cols, im->have,
				    im->err, sizeof(im->err));
	return 0;
}

/*
 * Create the output.  Without force: the trace itself, with O_EXCL.  With
 * force: a temporary file beside it, renamed over it by import_finish().
 */
static int import_run(struct import *im, tape_writer *w, const char *out)
{
	union any_event ev;
	int ret;

	ret = import_header(im);
	if (ret)
		goto bad;
	while ((ret = csv_read(&im->csv)) > 0) {
		im->err_line = im->csv.rec_line;
		ret = import_row(im, &ev);
		if (ret)
			goto bad;
		ret = tape_writer_append(w, im->table, &ev);
		if (ret < 0) {
			cli_tape_error(out, ret);
			return ret;
		}
	}
	if (ret == 0)
		return 0;
	im->err_line = im->csv.rec_line;
bad:
	if (ret == -ENOMEM)
		cli_error("out of memory");
	else if (ret == -EIO)
		cli_error("%s: read error: %s", im->in_name,
			  strerror(im->csv.read_errno ? im->csv.read_errno : EIO));
	else
		cli_error("%s:%lu: %s", im->in_name, im->err_line,
			  im->err[0] ? im->err : im->csv.err);
	return ret;
}

int cmd_import(int argc, char **argv)
{
	struct opt_parser p;
	struct import_cfg cfg = { 0 };
	struct import im = { 0 };
	const char *out, *in;
	tape_writer *w = NULL;
	char *tmp = NULL;
	int force, c, err, ret = EXIT_FAIL, nmeta = 0;
	char **meta = NULL, **m;

	opt_init_cfg(&p, &import_cmd, &cfg, argc, argv);
	while ((c = opt_next(&p)) != OPT_END) {
		switch (c) {
		case OPT_HELP:
			return EXIT_OK;
		case OPT_ERR:
			free(meta);
			return EXIT_USAGE;
		case 'm':
			if (!strchr(p.arg, '=') || p.arg[0] == '=') {
				opt_error(&import_cmd, "--meta '%s': want KEY=VALUE", p.arg);
				free(meta);
				return EXIT_USAGE;
			}
			m = reallocarray(meta, nmeta + 1, sizeof(*meta));
			if (!m) {
				cli_error("out of memory");
				free(meta);
				return EXIT_FAIL;
			}
			meta = m;
			meta[nmeta++] = (char *)p.arg;
			break;
		}
	}
	out = cfg.out;
	force = cfg.force;
	if (!(in = opt_one_arg(&p, "FILE"))) {
		free(meta);
		return EXIT_USAGE;
	}
	if (!out) {
		opt_error(&import_cmd, "missing -o TRACE");
		free(meta);
		return EXIT_USAGE;
	}
	im.table = tape_table_from_name(cfg.table);
	im.cols = tape_table_columns(im.table, &im.ncols);
	if (cli_output_refused(out, force))
		goto cleanup;
	if (strcmp(in, "-") == 0) {
		im.csv.f = stdin;
		im.in_name = "<stdin>";
	} else {
		im.csv.f = fopen(in, "r");
		im.in_name = in;
		if (!im.csv.f) {
			cli_error("%s: %s", in, strerror(errno));
			goto cleanup;
		}
	}
	im.csv.line = 1;

	if (cli_trace_create(out, force, NULL, &tmp, &w))
		goto cleanup;
	if (tape_writer_set_meta(w, "source", "import:csv") ||
	    tape_writer_set_meta(w, "iotape_version", IOTAPE_VERSION) ||
	    tape_writer_set_meta(w, "clock", "unknown")) {
		cli_error("out of memory");
		goto fail;
	}
	for (int i = 0; i < nmeta; i++) {
		char *eq = strchr(meta[i], '=');

		*eq = '\0';
		err = tape_writer_set_meta(w, meta[i], eq + 1);
		*eq = '=';
		if (err < 0) {
			cli_tape_error(meta[i], err);
			goto fail;
		}
	}
	if (import_run(&im, w, out))
		goto fail;
	err = cli_trace_finish(w, out, tmp);
	w = NULL;
	if (err)
		goto fail;
	ret = EXIT_OK;
	goto cleanup;
fail:
	tape_writer_free(w);
	unlink(tmp ? tmp : out);
cleanup:
	free(tmp);
	free(meta);
	if (im.csv.f && im.csv.f != stdin)
		fclose(im.csv.f);
	free(im.csv.buf);
	free(im.csv.off);
	free(im.map);
	free(im.have);
	sysstate_release(&im.st);
	return ret;
}
