/* SPDX-License-Identifier: MIT */
/*
 * test_robust.c - damaged traces: the reader returns correct data or a
 * clear error, never a wrong value, a crash or a hang.
 *
 * A small trace (several blocks of every table, metadata in three chunks,
 * with and without its footer) is
 *  (a) truncated at every byte offset: the reader must deliver exactly the
 *      events of the BLOCK chunks that are complete in the prefix, exactly
 *      the metadata of the complete META chunks, and count the rest as
 *      trailing bytes (or refuse the file with a detail when the header is
 *      cut);
 *  (b) damaged by random bit flips (fixed seed): every event returned must
 *      be the original event at that position, errors must carry a detail;
 *      a flip inside a BLOCK payload must cost exactly that block;
 *  (c) stripped of or damaged in its footer: the index is rebuilt and
 *      everything is read; and written by a process SIGKILLed mid-stream:
 *      every flushed block is readable.
 * The expectations come from the test's own walk of the chunk headers
 * (iotape-format(5)), not from the reader under test.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "tape_internal.h"
#include "../lib/tlib.h"

#define SEED 0xB17F11Bull
#define MAXCH 256

/* The reference trace: events per table and the metadata as set. */
struct ref {
	struct t_evs exp[TAPE_TABLE_MAX];
	uint8_t *file;		/* with footer */
	size_t len;
	uint8_t *nofooter;	/* flushed, writer freed (a crash after flush) */
	size_t nflen;
	struct t_chunk ch[MAXCH];
	size_t nch;
};

static const char *const meta_keys[] = { "host", "cmd", "clock", "note" };
static const char *const meta_vals[][3] = {
	{ "node1", "node1", "node2" },
	{ "python train.py", "python train.py --epochs=3", "python train.py --epochs=3" },
	{ "monotonic", "monotonic", "monotonic" },
	{ "a,b\n\"c\"", "", "\xff\xfe" },
};

static int build_ref(struct ref *R)
{
	struct t_rng r = { SEED };
	struct tape_writer_opts o = { .block_rows = 5 };
	static const int counts[TAPE_TABLE_MAX] = { 0, 14, 7, 6, 4, 5, 11 };
	tape_writer *w;
	int fd, err;
	uint8_t ev[256];

	memset(R, 0, sizeof(*R));
	if ((err = t_writer_memfd(&w, &o, &fd)))
		return err;
	for (int t = 1; t < TAPE_TABLE_MAX; t++)
		t_evs_init(&R->exp[t], t);
	uint64_t ts = 1000;
	for (int phase = 0; phase < 3; phase++) {
		for (int k = 0; k < 4; k++)
			tape_writer_set_meta(w, meta_keys[k], meta_vals[k][phase]);
		for (int t = 1; t < TAPE_TABLE_MAX; t++) {
			int n = counts[t] / 3 + (phase == 2 ? counts[t] % 3 : 0);
			for (int i = 0; i < n; i++) {
				memset(ev, 0, sizeof(ev));
				t_ev_random(&r, t, ev, i % 3 == 0, &ts);
				/* short strings keep the trace a few KB */
				size_t nc;
				const struct tape_column *cols = tape_table_columns(t, &nc);
				for (size_t c = 0; c < nc; c++)
					if (cols[c].type == TAPE_COL_STR) {
						char *str = (char *)t_ev_str(&cols[c], ev);
						if (strlen(str) > 24)
							str[24] = 0;
					}
				if ((err = tape_writer_append(w, t, ev)) ||
				    (err = t_evs_push_copy(&R->exp[t], ev)))
					return err;
				t_ev_free_strings(t, ev);
			}
		}
		if ((err = tape_writer_flush(w)))
			return err;
	}
	if ((err = t_fd_contents(fd, &R->nofooter, &R->nflen)))
		return err;
	if ((err = tape_writer_close(w)))
		return err;
	if ((err = t_fd_contents(fd, &R->file, &R->len)))
		return err;
	close(fd);
	R->nch = t_chunks(R->file, R->len, R->ch, MAXCH);
	return 0;
}

static void free_ref(struct ref *R)
{
	for (int t = 1; t < TAPE_TABLE_MAX; t++)
		t_evs_release(&R->exp[t]);
	free(R->file);
	free(R->nofooter);
}

static int setup(void **state)
{
	struct ref *R = calloc(1, sizeof(*R));
	if (!R || build_ref(R))
		return -1;
	/* the reference must be what the test thinks it is */
	if (R->nofooter == NULL || R->nflen + TAPE_TRAILER_SIZE >= R->len ||
	    memcmp(R->file, R->nofooter, R->nflen))
		return -1;
	*state = R;
	return 0;
}

static int teardown(void **state)
{
	free_ref(*state);
	free(*state);
	return 0;
}

/* ------------------------------------------------------------- helpers */

struct meta {
	char *k[16], *v[16];
	size_t n;
};

static void meta_fold(struct meta *m, const uint8_t *raw, size_t len, uint32_t count)
{
	struct rd rd = { raw, raw + len };
	for (uint32_t i = 0; i < count; i++) {
		uint64_t kl, vl;
		assert_int_equal(rd_varint(&rd, &kl), 0);
		char *k = strndup((const char *)rd.p, kl);
		rd.p += kl;
		assert_int_equal(rd_varint(&rd, &vl), 0);
		char *v = strndup((const char *)rd.p, vl);
		rd.p += vl;
		size_t j;
		for (j = 0; j < m->n; j++)
			if (!strcmp(m->k[j], k))
				break;
		if (j == m->n) {
			assert_true(m->n < 16);
			m->k[m->n++] = k;
		} else {
			free(k);
			free(m->v[j]);
		}
		m->v[j] = v;
	}
}

static void meta_release(struct meta *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->k[i]);
		free(m->v[i]);
	}
	m->n = 0;
}

/* A key/value the writer set at some point. */
static int meta_plausible(const char *k, const char *v)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(k, meta_keys[i]))
			for (int j = 0; j < 3; j++)
				if (!strcmp(v, meta_vals[i][j]))
					return 1;
	return 0;
}

static int is_clear_error(int err)
{
	return err == -EBADMSG || err == -EILSEQ || err == -ENOTSUP ||
	       err == -EPROTONOSUPPORT;
}

/*
 * Read every table of r.  Every event must equal exp at its position; the
 * count read goes to got[t], the cursor's result to rc[t].
 */
static void read_all(tape_reader *r, const struct ref *R, size_t got[], int rc[],
		     const char *ctx)
{
	char why[600];
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		struct t_evs ev;
		t_clear_detail();
		rc[t] = t_read_table(r, t, 0, UINT64_MAX, &ev);
		got[t] = ev.n;
		if (ev.n > R->exp[t].n)
			fail_msg("%s: %s: %zu events read, the trace has %zu", ctx,
				 tape_table_name(t), ev.n, R->exp[t].n);
		if (t_evs_cmp_prefix(&ev, &R->exp[t], ev.n, why, sizeof(why)))
			fail_msg("%s: wrong event returned: %s", ctx, why);
		if (rc[t] < 0) {
			if (!is_clear_error(rc[t]))
				fail_msg("%s: %s: cursor error %d (%s)", ctx, tape_table_name(t),
					 rc[t], tape_strerror(rc[t]));
			if (!*tape_error_detail())
				fail_msg("%s: %s: cursor error %d without a detail", ctx,
					 tape_table_name(t), rc[t]);
		}
		t_evs_release(&ev);
	}
}

/* ------------------------------------------------------- (a) truncation */

static void truncate_all(const struct ref *R, const uint8_t *file, size_t len, int footer)
{
	char ctx[128];
	for (size_t L = 0; L <= len; L++) {
		int fd = t_memfd(file, L);
		tape_reader *r;
		assert_true(fd >= 0);
		snprintf(ctx, sizeof(ctx), "%s footer, cut at %zu of %zu",
			 footer ? "with" : "without", L, len);
		t_clear_detail();
		int err = tape_reader_open_fd(&r, fd);
		if (L < TAPE_HEADER_SIZE) {
			/* no header: refused, with a reason */
			if (err >= 0)
				fail_msg("%s: opened a file without a whole header", ctx);
			if (!is_clear_error(err) || !*tape_error_detail())
				fail_msg("%s: error %d, detail '%s'", ctx, err, tape_error_detail());
			assert_null(r);
			close(fd);
			continue;
		}
		if (err)
			fail_msg("%s: open failed: %d %s", ctx, err, tape_error_detail());

		/* What the prefix holds, by our own walk of the chunk headers. */
		size_t want[TAPE_TABLE_MAX] = { 0 }, blocks[TAPE_TABLE_MAX] = { 0 };
		uint64_t last_end = TAPE_HEADER_SIZE;
		struct meta m = { 0 };
		for (size_t i = 0; i < R->nch; i++) {
			const struct t_chunk *c = &R->ch[i];
			if (c->end > L)
				break;
			last_end = c->end;
			if (c->type == CHUNK_BLOCK) {
				want[c->table] += c->count;
				blocks[c->table]++;
			} else if (c->type == CHUNK_META) {
				size_t rl;
				uint8_t *raw = t_chunk_raw(R->file, c, &rl);
				assert_non_null(raw);
				meta_fold(&m, raw, rl, c->count);
				free(raw);
			}
		}
		int whole = footer && L == len;
		if (whole ? tape_reader_recovered(r) != NULL : tape_reader_recovered(r) == NULL)
			fail_msg("%s: recovered() is '%s'", ctx,
				 tape_reader_recovered(r) ? tape_reader_recovered(r) : "(null)");
		uint64_t trailing = whole ? 0 : L - last_end;
		if (tape_reader_trailing_bytes(r) != trailing)
			fail_msg("%s: %llu trailing bytes, expected %llu", ctx,
				 (unsigned long long)tape_reader_trailing_bytes(r),
				 (unsigned long long)trailing);

		/* exactly the metadata of the complete META chunks */
		if (tape_reader_damaged_meta(r, NULL))
			fail_msg("%s: a META chunk is reported damaged", ctx);
		if (tape_reader_meta_count(r) != m.n)
			fail_msg("%s: %zu meta keys, expected %zu", ctx,
				 tape_reader_meta_count(r), m.n);
		for (size_t i = 0; i < m.n; i++) {
			const char *v = tape_reader_meta(r, m.k[i]);
			if (!v || strcmp(v, m.v[i]))
				fail_msg("%s: meta %s is '%s', expected '%s'", ctx, m.k[i],
					 v ? v : "(null)", m.v[i]);
		}
		meta_release(&m);

		size_t got[TAPE_TABLE_MAX];
		int rc[TAPE_TABLE_MAX];
		read_all(r, R, got, rc, ctx);
		for (int t = 1; t < TAPE_TABLE_MAX; t++) {
			struct tape_table_stats st;
			if (rc[t] != 0)
				fail_msg("%s: %s: cursor error %d: %s", ctx, tape_table_name(t),
					 rc[t], tape_error_detail());
			if (got[t] != want[t])
				fail_msg("%s: %s: %zu events read, the complete blocks hold %zu",
					 ctx, tape_table_name(t), got[t], want[t]);
			assert_int_equal(tape_reader_table_stats(r, t, &st), 0);
			if (st.events != want[t] || st.blocks != blocks[t])
				fail_msg("%s: %s: stats say %llu events in %llu blocks, expected %zu in %zu",
					 ctx, tape_table_name(t), (unsigned long long)st.events,
					 (unsigned long long)st.blocks, want[t], blocks[t]);
		}
		tape_reader_free(r);
		close(fd);
	}
}

static void test_truncate_every_byte(void **state)
{
	const struct ref *R = *state;
	assert_true(R->len < 8192); /* keep this test fast */
	truncate_all(R, R->file, R->len, 1);
	truncate_all(R, R->nofooter, R->nflen, 0);
}

/* ------------------------------------------------------- (b) bit flips */

/* The chunk holding byte off, or NULL (file header, trailer). */
static const struct t_chunk *chunk_at(const struct ref *R, uint64_t off)
{
	for (size_t i = 0; i < R->nch; i++)
		if (off >= R->ch[i].off && off < R->ch[i].end)
			return &R->ch[i];
	return NULL;
}

static void flip_case(const struct ref *R, const uint8_t *orig, size_t len, int footer,
		      struct t_rng *rng, int i, int stats[4])
{
	uint8_t *f = malloc(len);
	uint64_t pos[8];
	int nflip = (int)(i % 3 == 0 ? 1 + t_below(rng, 8) : 1);
	char ctx[160];

	memcpy(f, orig, len);
	for (int k = 0; k < nflip; k++) {
		/* half in chunk headers / the file header, where the structure is */
		if (t_below(rng, 2)) {
			pos[k] = t_below(rng, len);
		} else {
			const struct t_chunk *c = &R->ch[t_below(rng, R->nch)];
			pos[k] = t_below(rng, 3) ? c->off + t_below(rng, TAPE_CHUNK_HDR)
						  : t_below(rng, TAPE_HEADER_SIZE);
			if (pos[k] >= len)
				pos[k] = len - 1;
		}
		if (k > 0 && t_below(rng, 4) == 0)
			pos[k] = pos[k - 1]; /* same byte, another bit */
		f[pos[k]] ^= (uint8_t)(1u << t_below(rng, 8));
	}
	snprintf(ctx, sizeof(ctx), "%s footer, case %d, %d flip(s) first at %llu",
		 footer ? "with" : "without", i, nflip, (unsigned long long)pos[0]);

	int fd = t_memfd(f, len);
	tape_reader *r;
	t_clear_detail();
	int err = tape_reader_open_fd(&r, fd);
	if (err) {
		if (!is_clear_error(err))
			fail_msg("%s: open: unexpected error %d (%s)", ctx, err, tape_strerror(err));
		if (!*tape_error_detail())
			fail_msg("%s: open failed (%d) without a detail", ctx, err);
		assert_null(r);
		stats[0]++;
		goto out;
	}
	/* metadata can be missing, never invented */
	for (size_t k = 0; k < tape_reader_meta_count(r); k++) {
		const char *key, *v;
		assert_int_equal(tape_reader_meta_at(r, k, &key, &v), 0);
		if (!meta_plausible(key, v))
			fail_msg("%s: meta '%s' = '%s' was never written", ctx, key, v);
	}
	size_t got[TAPE_TABLE_MAX];
	int rc[TAPE_TABLE_MAX], any_err = 0;
	read_all(r, R, got, rc, ctx);
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		struct tape_table_stats st;
		assert_int_equal(tape_reader_table_stats(r, t, &st), 0);
		if (st.events > R->exp[t].n)
			fail_msg("%s: %s: stats claim %llu events", ctx, tape_table_name(t),
				 (unsigned long long)st.events);
		any_err |= rc[t] < 0;
	}
	stats[any_err ? 1 : 2]++;

	/* One flip inside a BLOCK payload costs exactly that block: the
	 * checksum catches it, earlier blocks and other tables are whole. */
	const struct t_chunk *c = nflip == 1 ? chunk_at(R, pos[0]) : NULL;
	if (c && c->type == CHUNK_BLOCK && pos[0] >= c->off + TAPE_CHUNK_HDR) {
		size_t before = 0;
		for (size_t k = 0; &R->ch[k] != c; k++)
			if (R->ch[k].type == CHUNK_BLOCK && R->ch[k].table == c->table)
				before += R->ch[k].count;
		for (int t = 1; t < TAPE_TABLE_MAX; t++) {
			if (t == c->table) {
				if (rc[t] != -EBADMSG || got[t] != before)
					fail_msg("%s: damaged %s block: %zu events then %d; expected %zu then -EBADMSG",
						 ctx, tape_table_name(t), got[t], rc[t], before);
			} else if (rc[t] != 0 || got[t] != R->exp[t].n) {
				fail_msg("%s: damage in a %s block cost %s: %zu of %zu events, rc %d",
					 ctx, tape_table_name(c->table), tape_table_name(t),
					 got[t], R->exp[t].n, rc[t]);
			}
		}
		stats[3]++;
	}
	tape_reader_free(r);
out:
	close(fd);
	free(f);
}

static void test_bit_flips(void **state)
{
	const struct ref *R = *state;
	struct t_rng rng = { SEED + 1 };
	int stats[2][4] = { { 0 } };
	for (int i = 0; i < 2000; i++)
		flip_case(R, R->file, R->len, 1, &rng, i, stats[0]);
	for (int i = 0; i < 1000; i++)
		flip_case(R, R->nofooter, R->nflen, 0, &rng, i, stats[1]);
	for (int k = 0; k < 2; k++)
		print_message("%s footer: %d refused, %d read with a cursor error, %d read cleanly, "
			      "%d single flips in a block payload\n", k ? "without" : "with",
			      stats[k][0], stats[k][1], stats[k][2], stats[k][3]);
	/* the cases must exercise every outcome, or the test proves little */
	for (int k = 0; k < 2; k++)
		for (int j = 0; j < 4; j++)
			assert_true(stats[k][j] > 0);
}

/*
 * iotape-format(5): "A damaged META chunk: reports it with its file offset;
 * the keys it held are unknown, every other chunk stays usable."
 */
static void test_damaged_meta(void **state)
{
	const struct ref *R = *state;
	int metas = 0;
	for (size_t i = 0; i < R->nch; i++) {
		const struct t_chunk *c = &R->ch[i];
		if (c->type != CHUNK_META)
			continue;
		for (int footer = 0; footer <= 1; footer++) {
			size_t len = footer ? R->len : R->nflen;
			uint8_t *f = malloc(len);
			memcpy(f, footer ? R->file : R->nofooter, len);
			f[c->off + TAPE_CHUNK_HDR + 1] ^= 0x10; /* payload: checksum mismatch */
			int fd = t_memfd(f, len);
			tape_reader *r;
			char ctx[96];
			snprintf(ctx, sizeof(ctx), "META chunk at %llu damaged, %s footer",
				 (unsigned long long)c->off, footer ? "with" : "without");
			int err = tape_reader_open_fd(&r, fd);
			if (err)
				fail_msg("%s: the whole trace is refused: %d (%s)", ctx, err,
					 tape_error_detail());
			/* it says so, and the keys of the other chunks are there */
			const char *detail = NULL;
			if (tape_reader_damaged_meta(r, &detail) != 1 || !detail || !*detail)
				fail_msg("%s: damaged_meta() = %llu, detail '%s'", ctx,
					 (unsigned long long)tape_reader_damaged_meta(r, NULL),
					 detail ? detail : "(null)");
			struct meta m = { 0 };
			for (size_t j = 0; j < R->nch; j++) {
				size_t rl;
				uint8_t *raw;
				if (R->ch[j].type != CHUNK_META || j == i)
					continue;
				assert_non_null(raw = t_chunk_raw(R->file, &R->ch[j], &rl));
				meta_fold(&m, raw, rl, R->ch[j].count);
				free(raw);
			}
			assert_int_equal(tape_reader_meta_count(r), m.n);
			for (size_t j = 0; j < m.n; j++) {
				const char *v = tape_reader_meta(r, m.k[j]);
				if (!v || strcmp(v, m.v[j]))
					fail_msg("%s: meta %s is '%s', expected '%s'", ctx, m.k[j],
						 v ? v : "(null)", m.v[j]);
			}
			meta_release(&m);
			size_t got[TAPE_TABLE_MAX];
			int rc[TAPE_TABLE_MAX];
			read_all(r, R, got, rc, ctx);
			for (int t = 1; t < TAPE_TABLE_MAX; t++)
				if (rc[t] || got[t] != R->exp[t].n)
					fail_msg("%s: %s: %zu of %zu events, rc %d", ctx,
						 tape_table_name(t), got[t], R->exp[t].n, rc[t]);
			tape_reader_free(r);
			close(fd);
			free(f);
		}
		metas++;
	}
	assert_int_equal(metas, 3);
}

/* ------------------------------------------------------- (c) footer */

static void expect_everything(const struct ref *R, const uint8_t *f, size_t len,
			      const char *ctx, int recovered)
{
	int fd = t_memfd(f, len);
	tape_reader *r;
	int err = tape_reader_open_fd(&r, fd);
	if (err)
		fail_msg("%s: open: %d %s", ctx, err, tape_error_detail());
	const char *why = tape_reader_recovered(r);
	assert_int_equal(tape_reader_damaged_meta(r, NULL), 0);
	if (recovered && (!why || !*why))
		fail_msg("%s: recovered() does not say the index was rebuilt", ctx);
	if (!recovered && why)
		fail_msg("%s: recovered() says '%s'", ctx, why);
	size_t got[TAPE_TABLE_MAX];
	int rc[TAPE_TABLE_MAX];
	read_all(r, R, got, rc, ctx);
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		struct tape_table_stats st;
		if (rc[t] || got[t] != R->exp[t].n)
			fail_msg("%s: %s: %zu of %zu events, rc %d", ctx, tape_table_name(t),
				 got[t], R->exp[t].n, rc[t]);
		assert_int_equal(tape_reader_table_stats(r, t, &st), 0);
		assert_int_equal(st.events, R->exp[t].n);
	}
	for (int k = 0; k < 4; k++) {
		const char *v = tape_reader_meta(r, meta_keys[k]);
		if (!v || strcmp(v, meta_vals[k][2]))
			fail_msg("%s: meta %s is '%s'", ctx, meta_keys[k], v ? v : "(null)");
	}
	tape_reader_free(r);
	close(fd);
}

static void test_footer_damage(void **state)
{
	const struct ref *R = *state;
	const struct t_chunk *ix = &R->ch[R->nch - 1];
	size_t tr = R->len - TAPE_TRAILER_SIZE;
	uint8_t *f = malloc(R->len);
	struct {
		const char *what;
		size_t off;
		uint8_t x;
		int recovered;
	} cases[] = {
		{ "trailer index offset", tr + 1, 0x01, 1 },
		{ "trailer index offset (high byte)", tr + 7, 0x80, 1 },
		{ "trailer check", tr + 9, 0x04, 1 },
		{ "trailer magic", tr + 23, 0x20, 1 },
		{ "trailer reserved field (ignored)", tr + 13, 0xff, 0 },
		{ "index chunk magic", ix->off, 0x01, 1 },
		{ "index chunk count", ix->off + 8, 0x01, 1 },
		{ "index chunk payload check", ix->off + 41, 0x01, 1 },
		{ "index payload", ix->off + TAPE_CHUNK_HDR + 3, 0x40, 1 },
		{ "index payload (last byte)", tr - 1, 0x01, 1 },
	};
	assert_int_equal(ix->type, CHUNK_INDEX);
	assert_int_equal(ix->end, tr);
	expect_everything(R, R->file, R->len, "intact", 0);
	expect_everything(R, R->nofooter, R->nflen, "no footer", 1);
	expect_everything(R, R->file, tr, "index without trailer", 1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(f, R->file, R->len);
		f[cases[i].off] ^= cases[i].x;
		expect_everything(R, f, R->len, cases[i].what, cases[i].recovered);
	}
	free(f);
}

/* ------------------------------------------------------- (c) SIGKILL */

#define KILL_TABLES (TAPE_TABLE_MAX - 1)

static void kill_event(uint64_t i, uint8_t *ev)
{
	struct t_rng r = { SEED ^ (i * 0x9E3779B97F4A7C15ull) };
	uint64_t ts = i * 1000;
	memset(ev, 0, 256);
	t_ev_random(&r, (int)(i % KILL_TABLES) + 1, ev, (int)(i % 5 == 0), &ts);
}

static void child_writer(const char *path, int wfd)
{
	tape_writer *w;
	struct tape_writer_opts o = { .block_rows = 7 };
	uint8_t ev[256];
	if (tape_writer_open(&w, path, &o))
		_exit(2);
	tape_writer_set_meta(w, "host", "killed");
	for (uint64_t i = 0;; i++) {
		kill_event(i, ev);
		if (tape_writer_append(w, (int)(i % KILL_TABLES) + 1, ev))
			_exit(3);
		t_ev_free_strings((int)(i % KILL_TABLES) + 1, ev);
		if (i % 50 == 49) {
			if (tape_writer_flush(w))
				_exit(4);
			uint64_t done = i + 1;
			if (write(wfd, &done, sizeof(done)) != sizeof(done))
				_exit(5);
		}
	}
}

static void sigkill_round(const char *path, unsigned delay_us)
{
	int p[2];
	uint64_t flushed = 0, msg;
	int status;

	unlink(path);
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		child_writer(path, p[1]);
		_exit(0);
	}
	close(p[1]);
	for (int k = 0; k < 20; k++) {
		assert_int_equal(read(p[0], &msg, sizeof(msg)), sizeof(msg));
		flushed = msg;
	}
	/* the child is busy appending and writing full blocks right now */
	if (delay_us)
		usleep(delay_us);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* reports written after the ones read only raise the floor */
	while (read(p[0], &msg, sizeof(msg)) == sizeof(msg))
		flushed = msg;
	close(p[0]);

	tape_reader *r;
	int err = tape_reader_open(&r, path);
	if (err)
		fail_msg("open after SIGKILL: %d %s", err, tape_error_detail());
	const char *why = tape_reader_recovered(r);
	assert_non_null(why);
	assert_true(strlen(why) > 0);
	print_message("killed after %u us: %llu events flushed; recovered: %s; %llu trailing bytes\n",
		      delay_us, (unsigned long long)flushed, why,
		      (unsigned long long)tape_reader_trailing_bytes(r));
	assert_string_equal(tape_reader_meta(r, "host"), "killed");
	for (int t = 1; t <= KILL_TABLES; t++) {
		struct t_evs got;
		char w[600];
		uint8_t ev[256];
		err = t_read_table(r, t, 0, UINT64_MAX, &got);
		if (err)
			fail_msg("%s: cursor error %d %s", tape_table_name(t), err, tape_error_detail());
		size_t need = (size_t)(flushed / KILL_TABLES) + ((uint64_t)(t - 1) < flushed % KILL_TABLES);
		if (got.n < need)
			fail_msg("%s: %zu events read, %zu were flushed", tape_table_name(t), got.n, need);
		for (size_t k = 0; k < got.n; k++) {
			kill_event(k * KILL_TABLES + (uint64_t)(t - 1), ev);
			if (t_ev_cmp(t, t_evs_at(&got, k), ev, w, sizeof(w)))
				fail_msg("%s event %zu: %s", tape_table_name(t), k, w);
			t_ev_free_strings(t, ev);
		}
		t_evs_release(&got);
	}
	tape_reader_free(r);
	unlink(path);
}

static void test_sigkill_writer(void **state)
{
	static const unsigned delays[] = { 0, 200, 1000, 5000 };
	char dir[4096], path[4200];
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/iotape-robust.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/killed.iotape", dir);
	for (size_t i = 0; i < sizeof(delays) / sizeof(delays[0]); i++)
		sigkill_round(path, delays[i]);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncate_every_byte),
		cmocka_unit_test(test_bit_flips),
		cmocka_unit_test(test_damaged_meta),
		cmocka_unit_test(test_footer_damage),
		cmocka_unit_test(test_sigkill_writer),
	};
	return cmocka_run_group_tests(tests, setup, teardown) ? 1 : 0;
}
