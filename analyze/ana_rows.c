/* SPDX-License-Identifier: MIT */
/*
 * ana_rows.c - long JSON arrays a row at a time (see ana_rows.h): the
 * row writers jansson's format needs, and the chunks of rows formatted on
 * two threads and written in order.
 *
 * The rows of an array are cut in chunks of ROWS_CHUNK; a chunk is taken
 * by whichever thread is free (chunks in order) into one of SLOTS
 * buffers, and this thread writes the buffers in the chunks' order,
 * formatting a chunk itself while the next one to write is not ready.  A
 * chunk's slot is taken once the chunk SLOTS before it is written.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <jansson.h>
#include "fmt.h"
#include "ana_rows.h"

#define ROWS_CHUNK 512
#define SLOTS 4

const char ana_digits2[200] =
	"00010203040506070809101112131415161718192021222324"
	"25262728293031323334353637383940414243444546474849"
	"50515253545556575859606162636465666768697071727374"
	"75767778798081828384858687888990919293949596979899";

void ana_rb_real(struct ana_rowbuf *r, double v)
{
	if (isnan(v) || isinf(v)) {
		ana_rb_lit(r, "null");
		return;
	}
	if (v == 0.0 || v == 1.0) {
		if (v == 0.0)
			ana_rb_lit(r, "0.0");
		else
			ana_rb_lit(r, "1.0");
		return;
	}
	/* the last value's text, kept: a million files' ratios are few */
	static __thread double last_v;
	static __thread char last_t[48];
	static __thread size_t last_l;
	if (v != last_v || !last_l) {
		int l = snprintf(last_t, sizeof(last_t), "%.10g", v);
		if (l < 0 || l >= (int)sizeof(last_t) - 2)
			l = 0;
		last_t[l] = 0;
		if (!strpbrk(last_t, ".eE")) {
			memcpy(last_t + l, ".0", 3);
			l += 2;
		}
		last_v = v;
		last_l = (size_t)l;
	}
	ana_rb_mem(r, last_t, last_l);
}

/* Whether s[0..l) is printable ASCII with no '"' or '\\' (copied as
 * it is into a JSON string): eight bytes at a time. */
static int plain(const char *s, size_t l)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	size_t i = 0;

	for (; i + 8 <= l; i += 8) {
		uint64_t w, q, b;
		memcpy(&w, s + i, 8);
		q = w ^ (ones * '"');
		b = w ^ (ones * '\\');
		/* a byte >= 0x80; < 0x20; '"'; '\\' (the last three exact
		 * where no byte is >= 0x80) */
		if ((w | ((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b)) & high)
			return 0;
	}
	for (; i < l; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
			return 0;
	}
	return 1;
}

void ana_rb_str(struct ana_rowbuf *r, const char *s)
{
	size_t l = strlen(s);
	if (plain(s, l)) {
		r->b[r->n++] = '"';
		ana_rb_mem(r, s, l);
		r->b[r->n++] = '"';
		return;
	}
	json_t *j = cm_json_str(s);	/* (not UTF-8: U+FFFD) */
	char *d = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
	json_decref(j);
	if (d) {
		size_t dl = strlen(d);
		if (dl > ANA_ROW_MAX - 1024)
			dl = ANA_ROW_MAX - 1024;
		ana_rb_mem(r, d, dl);
	} else {
		ana_rb_lit(r, "null");
	}
	free(d);
}

void ana_rb_path(struct ana_rowbuf *r, const struct ana *a, uint32_t id)
{
	size_t at = r->n;
	r->b[r->n++] = '"';
	size_t l = ana_path_put(a, id, r->b + r->n);
	if (plain(r->b + r->n, l)) {
		r->n += l;
		r->b[r->n++] = '"';
		return;
	}
	char s[ANA_PATH_BUF + 1];
	memcpy(s, r->b + r->n, l);
	s[l] = 0;
	r->n = at;
	ana_rb_str(r, s);
}

struct slot {
	struct ana_rowbuf r;
	int ready;
};

struct rows_job {
	ana_row_fn *fn;
	void *ctx;
	size_t n, nchunks;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t claimed;		/* chunks taken */
	size_t written;		/* chunks written */
	int err;
	struct slot s[SLOTS];
};

/* Chunk c's rows into its slot: 0 or -ENOMEM. */
static int fill(struct rows_job *j, size_t c)
{
	struct ana_rowbuf *r = &j->s[c % SLOTS].r;
	size_t end = (c + 1) * ROWS_CHUNK < j->n ? (c + 1) * ROWS_CHUNK : j->n;

	r->n = 0;
	for (size_t i = c * ROWS_CHUNK; i < end; i++) {
		if (r->cap - r->n < ANA_ROW_MAX) {
			size_t cap = r->cap ? 2 * r->cap : 8 * ANA_ROW_MAX;
			char *b = realloc(r->b, cap);
			if (!b)
				return -ENOMEM;
			r->b = b;
			r->cap = cap;
		}
		j->fn(j->ctx, i, r);
	}
	return 0;
}

/* Take the next chunk whose slot is free and fill it (mu held, and held
 * again on return); 0 when there was none to take. */
static int take(struct rows_job *j)
{
	if (j->claimed >= j->nchunks || j->claimed >= j->written + SLOTS || j->err)
		return 0;
	size_t c = j->claimed++;
	pthread_mutex_unlock(&j->mu);
	int err = fill(j, c);
	pthread_mutex_lock(&j->mu);
	if (err)
		j->err = err;
	else
		j->s[c % SLOTS].ready = 1;
	pthread_cond_broadcast(&j->cv);
	return 1;
}

static void *helper_main(void *arg)
{
	struct rows_job *j = arg;

	pthread_mutex_lock(&j->mu);
	while (j->claimed < j->nchunks && !j->err)
		if (!take(j))
			pthread_cond_wait(&j->cv, &j->mu);
	pthread_mutex_unlock(&j->mu);
	return NULL;
}

int ana_rows_write(FILE *out, size_t n, ana_row_fn *fn, void *ctx, int threads)
{
	struct rows_job j = { .fn = fn, .ctx = ctx, .n = n,
			      .nchunks = (n + ROWS_CHUNK - 1) / ROWS_CHUNK };
	pthread_t th;
	int helper = 0;

	if (!n)
		return 0;
	pthread_mutex_init(&j.mu, NULL);
	pthread_cond_init(&j.cv, NULL);
	if (threads > 1 && j.nchunks > 1 && pthread_create(&th, NULL, helper_main, &j) == 0)
		helper = 1;
	pthread_mutex_lock(&j.mu);
	while (j.written < j.nchunks && !j.err) {
		struct slot *s = &j.s[j.written % SLOTS];
		if (s->ready) {
			pthread_mutex_unlock(&j.mu);
			fwrite(s->r.b, 1, s->r.n, out);
			pthread_mutex_lock(&j.mu);
			s->ready = 0;
			j.written++;
			pthread_cond_broadcast(&j.cv);
		} else if (!take(&j)) {
			pthread_cond_wait(&j.cv, &j.mu);
		}
	}
	pthread_mutex_unlock(&j.mu);
	if (helper)
		pthread_join(th, NULL);
	for (int k = 0; k < SLOTS; k++)
		free(j.s[k].r.b);
	pthread_cond_destroy(&j.cv);
	pthread_mutex_destroy(&j.mu);
	return j.err;
}
