/* SPDX-License-Identifier: MIT */
/*
 * tlib.c - shared test helpers: seeded randomness, generic event sets and
 * comparison, memfd traces and a chunk walker.  See tlib.h.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>
#include <xxhash.h>
#include <zstd.h>
#include "tape_internal.h"
#include "tlib.h"

uint64_t t_rand(struct t_rng *r)
{
	uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

uint64_t t_below(struct t_rng *r, uint64_t n)
{
	return t_rand(r) % n;
}

/* ---------------------------------------------------------- event sets */

void t_evs_init(struct t_evs *s, int table)
{
	memset(s, 0, sizeof(*s));
	s->table = table;
	s->size = tape_table_event_size(table);
}

void *t_evs_at(const struct t_evs *s, size_t i)
{
	return s->ev + i * s->size;
}

const char *t_ev_str(const struct tape_column *c, const void *ev)
{
	const char *s;
	memcpy(&s, (const char *)ev + c->offset, sizeof(s));
	return s;
}

void t_ev_set_str(const struct tape_column *c, void *ev, const char *s)
{
	memcpy((char *)ev + c->offset, &s, sizeof(s));
}

int t_evs_push_copy(struct t_evs *s, const void *ev)
{
	size_t ncols;
	const struct tape_column *cols = tape_table_columns(s->table, &ncols);

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		uint8_t *p = realloc(s->ev, cap * s->size);
		if (!p)
			return -ENOMEM;
		s->ev = p;
		s->cap = cap;
	}
	uint8_t *d = s->ev + s->n * s->size;
	memcpy(d, ev, s->size);
	for (size_t c = 0; c < ncols; c++) {
		if (cols[c].type != TAPE_COL_STR)
			continue;
		const char *str = t_ev_str(&cols[c], ev);
		char *copy = strdup(str ? str : "");
		if (!copy)
			return -ENOMEM;
		t_ev_set_str(&cols[c], d, copy);
	}
	s->n++;
	return 0;
}

void t_ev_free_strings(int table, void *ev)
{
	size_t ncols;
	const struct tape_column *cols = tape_table_columns(table, &ncols);
	for (size_t c = 0; c < ncols; c++) {
		if (cols[c].type != TAPE_COL_STR)
			continue;
		free((char *)t_ev_str(&cols[c], ev));
		t_ev_set_str(&cols[c], ev, NULL);
	}
}

void t_evs_release(struct t_evs *s)
{
	for (size_t i = 0; i < s->n; i++)
		t_ev_free_strings(s->table, t_evs_at(s, i));
	free(s->ev);
	s->ev = NULL;
	s->n = s->cap = 0;
}

/* ------------------------------------------------------- random events */

static uint64_t random_int(struct t_rng *r, const struct tape_column *c, int extreme)
{
	uint64_t max = c->width == 4 ? UINT32_MAX : UINT64_MAX;
	uint64_t x = t_rand(r);

	if (!extreme) {
		switch (t_below(r, 4)) {
		case 0: return t_below(r, 16);
		case 1: return t_below(r, 100000);
		case 2: return 4096 * t_below(r, 1000);
		default: return x & max;
		}
	}
	switch (t_below(r, 12)) {
	case 0: return 0;
	case 1: return max;
	case 2: return max - 1;
	case 3: return 1;
	case 4: return c->width == 4 ? 1u << 31 : 1ull << 63; /* INT_MIN */
	case 5: return c->width == 4 ? 0x7fffffffu : INT64_MAX;
	case 6: return (uint64_t)-(int64_t)(1 + t_below(r, 133)) & max; /* -errno */
	case 7: return t_below(r, 256);
	case 8: return x >> t_below(r, 64) & max;
	default: return x & max;
	}
}

static const char *const specials[] = {
	"", "a,b", "\"quoted\"", "line\nbreak", "cr\rlf\n", "tab\there",
	"'single'", "back\\slash", "\x80\xff\xfe high", "caf\xc3\xa9",
	",\",\n", " leading and trailing ", "%s%n%d", "\x01\x02\x7f",
	"/data/train-00001-of-01024.tfrecord",
};

static char *random_str(struct t_rng *r, int extreme)
{
	size_t len;
	char *s;

	if (extreme) {
		unsigned k = (unsigned)t_below(r, 40);
		if (k < sizeof(specials) / sizeof(specials[0]))
			return strdup(specials[k]);
		if (k == 39 || k == 38) {	/* a 4 KiB path */
			len = 4096;
			s = malloc(len + 1);
			for (size_t i = 0; i < len; i++)
				s[i] = i % 16 == 0 ? '/' : (char)('a' + t_below(r, 26));
			s[len] = 0;
			return s;
		}
	}
	len = t_below(r, extreme ? 40 : 12);
	s = malloc(len + 2);
	s[0] = '/';
	for (size_t i = 1; i <= len; i++) {
		unsigned c = (unsigned)t_below(r, extreme ? 255 : 26);
		s[i] = (char)(extreme ? c + 1 : 'a' + c); /* never NUL */
	}
	s[len + 1] = 0;
	/* few distinct values now and then, so dictionaries repeat */
	if (!extreme && t_below(r, 2))
		s[len > 2 ? 2 : len + 1] = 0;
	return s;
}

void t_ev_random(struct t_rng *r, int table, void *ev, int extreme, uint64_t *ts)
{
	size_t ncols;
	const struct tape_column *cols = tape_table_columns(table, &ncols);

	for (size_t c = 0; c < ncols; c++) {
		const struct tape_column *col = &cols[c];
		if (col->type == TAPE_COL_STR) {
			t_ev_set_str(col, ev, random_str(r, extreme));
		} else if (col->offset == 0 && ts) {
			*ts += t_below(r, 3) ? t_below(r, 1000) : t_below(r, 1ull << 40);
			tape_column_set(col, ev, *ts);
		} else {
			tape_column_set(col, ev, random_int(r, col, extreme));
		}
	}
}

int t_ev_cmp(int table, const void *a, const void *b, char *why, size_t len)
{
	size_t ncols;
	const struct tape_column *cols = tape_table_columns(table, &ncols);
	/* the output side of a syscall row counts only where its op has
	 * one: elsewhere the writer stores -1, 0, 0 whatever it was given */
	int noout = table == TAPE_TABLE_SYSCALL &&
		    !tape_op_has_output(((const struct tape_syscall *)a)->op);

	for (size_t c = 0; c < ncols; c++) {
		const struct tape_column *col = &cols[c];
		if (noout && (col->offset == offsetof(struct tape_syscall, fd2) ||
			      col->offset == offsetof(struct tape_syscall, file_id2) ||
			      col->offset == offsetof(struct tape_syscall, offset2)))
			continue;
		if (col->type == TAPE_COL_STR) {
			const char *x = t_ev_str(col, a), *y = t_ev_str(col, b);
			if (!x || !y || strcmp(x, y)) {
				snprintf(why, len, "%s.%s: \"%.40s\"%s (len %zu) != \"%.40s\"%s (len %zu)",
					 tape_table_name(table), col->name,
					 x ? x : "(null)", x && strlen(x) > 40 ? "..." : "", x ? strlen(x) : 0,
					 y ? y : "(null)", y && strlen(y) > 40 ? "..." : "", y ? strlen(y) : 0);
				return -1;
			}
		} else if (tape_column_get(col, a) != tape_column_get(col, b)) {
			snprintf(why, len, "%s.%s: %llu != %llu", tape_table_name(table), col->name,
				 (unsigned long long)tape_column_get(col, a),
				 (unsigned long long)tape_column_get(col, b));
			return -1;
		}
	}
	return 0;
}

/* -------------------------------------------------------------- traces */

int t_read_table(tape_reader *r, int table, uint64_t from, uint64_t to, struct t_evs *out)
{
	tape_cursor *c;
	const void *ev;
	int err;

	t_evs_init(out, table);
	if ((err = tape_cursor_open(r, table, from, to, &c)))
		return err;
	while ((err = tape_cursor_next(c, &ev)) == 1)
		if ((err = t_evs_push_copy(out, ev)))
			break;
	tape_cursor_free(c);
	return err;
}

int t_evs_cmp_prefix(const struct t_evs *got, const struct t_evs *exp, size_t n,
		     char *why, size_t len)
{
	char w[400];
	if (got->n < n || n > exp->n) {
		snprintf(why, len, "%s: %zu events read, expected %zu",
			 tape_table_name(exp->table), got->n, n);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (t_ev_cmp(exp->table, t_evs_at(got, i), t_evs_at(exp, i), w, sizeof(w))) {
			snprintf(why, len, "event %zu: %s", i, w);
			return -1;
		}
	}
	return 0;
}

int t_memfd(const void *p, size_t len)
{
	int fd = memfd_create("iotape-test", MFD_CLOEXEC);
	const uint8_t *c = p;
	if (fd < 0)
		return -1;
	while (len) {
		ssize_t n = write(fd, c, len);
		if (n <= 0) {
			close(fd);
			return -1;
		}
		c += n;
		len -= (size_t)n;
	}
	return fd;
}

int t_fd_contents(int fd, uint8_t **p, size_t *len)
{
	struct stat st;
	if (fstat(fd, &st))
		return -errno;
	*len = (size_t)st.st_size;
	*p = malloc(*len ? *len : 1);
	if (!*p)
		return -ENOMEM;
	size_t got = 0;
	while (got < *len) {
		ssize_t n = pread(fd, *p + got, *len - got, (off_t)got);
		if (n <= 0) {
			free(*p);
			*p = NULL;
			return n < 0 ? -errno : -EIO;
		}
		got += (size_t)n;
	}
	return 0;
}

int t_file_contents(const char *path, uint8_t **p, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int err = t_fd_contents(fd, p, len);
	close(fd);
	return err;
}

int t_writer_memfd(tape_writer **w, const struct tape_writer_opts *o, int *fd)
{
	*fd = memfd_create("iotape-test", MFD_CLOEXEC);
	if (*fd < 0)
		return -errno;
	int wfd = dup(*fd);
	if (wfd < 0)
		return -errno;
	int err = tape_writer_open_fd(w, wfd, o);
	if (err)
		close(wfd);
	return err;
}

size_t t_chunks(const uint8_t *p, size_t len, struct t_chunk *out, size_t max)
{
	size_t n = 0;
	uint64_t off = len >= TAPE_HEADER_SIZE ? get_le32(p + 12) : len;

	while (off + TAPE_CHUNK_HDR <= len && n < max) {
		const uint8_t *h = p + off;
		if (memcmp(h, TAPE_CHUNK_MAGIC, 4))
			break;
		uint64_t end = off + TAPE_CHUNK_HDR + get_le32(h + 12);
		if (end > len)
			break;
		out[n++] = (struct t_chunk){ off, end, h[4], get_le16(h + 6), get_le32(h + 8) };
		off = end;
	}
	return n;
}

uint8_t *t_chunk_raw(const uint8_t *file, const struct t_chunk *c, size_t *len)
{
	const uint8_t *h = file + c->off;
	uint32_t stored = get_le32(h + 12), raw = get_le32(h + 16);
	uint8_t *p = malloc((size_t)raw + 1);
	if (!p)
		return NULL;
	if (h[5] == CODEC_STORED && stored == raw) {
		memcpy(p, h + TAPE_CHUNK_HDR, raw);
	} else if (h[5] == CODEC_ZSTD) {
		size_t n = ZSTD_decompress(p, raw, h + TAPE_CHUNK_HDR, stored);
		if (ZSTD_isError(n) || n != raw) {
			free(p);
			return NULL;
		}
	} else {
		free(p);
		return NULL;
	}
	*len = raw;
	return p;
}

int t_restore_stored(const uint8_t *in, size_t len, int footer, uint8_t **out,
		     size_t *outlen)
{
	struct t_chunk ch[4096];
	size_t n = t_chunks(in, len, ch, 4096);
	size_t hs = get_le32(in + 12), cap = hs, nent = 0;
	uint8_t *p, *idx;

	for (size_t i = 0; i < n; i++)
		cap += TAPE_CHUNK_HDR + get_le32(in + ch[i].off + 16);
	cap += TAPE_CHUNK_HDR + 32 * n + TAPE_TRAILER_SIZE;
	if (!(p = malloc(cap)) || !(idx = malloc(32 * n + 1))) {
		free(p);
		return -ENOMEM;
	}
	memcpy(p, in, hs);
	size_t off = hs;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *h = in + ch[i].off;
		size_t rl;
		if (ch[i].type == CHUNK_INDEX)
			continue;
		uint8_t *raw = t_chunk_raw(in, &ch[i], &rl);
		if (!raw)
			break;
		uint8_t *o = p + off;
		memcpy(o, h, TAPE_CHUNK_HDR);
		o[5] = CODEC_STORED;
		put_le32(o + 12, (uint32_t)rl);
		put_le64(o + 40, XXH64(raw, rl, 0));
		t_fix_chunk_header(o);
		memcpy(o + TAPE_CHUNK_HDR, raw, rl);
		free(raw);
		uint8_t *e = idx + 32 * nent++;
		put_le64(e, off);
		e[8] = h[4];
		e[9] = 0;
		memcpy(e + 10, h + 6, 2);	/* table */
		memcpy(e + 12, h + 8, 4);	/* count */
		memcpy(e + 16, h + 24, 16);	/* t_min, t_max */
		off += TAPE_CHUNK_HDR + rl;
	}
	if (footer) {
		uint8_t *o = p + off;
		size_t il = 32 * nent;
		memset(o, 0, TAPE_CHUNK_HDR);
		memcpy(o, TAPE_CHUNK_MAGIC, 4);
		o[4] = CHUNK_INDEX;
		put_le32(o + 8, (uint32_t)nent);
		put_le32(o + 12, (uint32_t)il);
		put_le32(o + 16, (uint32_t)il);
		put_le64(o + 40, XXH64(idx, il, 0));
		t_fix_chunk_header(o);
		memcpy(o + TAPE_CHUNK_HDR, idx, il);
		uint8_t *t = o + TAPE_CHUNK_HDR + il;
		put_le64(t, off);
		put_le32(t + 8, XXH32(t, 8, 0));
		put_le32(t + 12, 0);
		memcpy(t + 16, TAPE_TRAILER_MAGIC, 8);
		off += TAPE_CHUNK_HDR + il + TAPE_TRAILER_SIZE;
	}
	free(idx);
	*out = p;
	*outlen = off;
	return 0;
}

void t_fix_chunk_header(uint8_t *h)
{
	put_le32(h + 20, 0);
	put_le32(h + 20, XXH32(h, TAPE_CHUNK_HDR, 0));
}

void t_fix_file_header(uint8_t *p)
{
	put_le32(p + 28, XXH32(p, 28, 0));
}

void t_clear_detail(void)
{
	tape__fail(0, "%s", "");
}
