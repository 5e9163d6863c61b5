/* SPDX-License-Identifier: MIT */
/*
 * ana_block.c - the block pass: bytes, randomness per device, request
 * latency percentiles, request sizes and queue depth over time.
 *
 * A request is sequential when its first sector is where the previous
 * request on the same device ended (bcc biopattern's rule).  Queue depth
 * per timeline bucket is the time-weighted mean number of requests in
 * flight: the sum of each request's in-flight time inside the bucket over
 * the bucket length (Little's law, exact, no ordering needed).  Block
 * requests are not filtered by --pid: writeback and readahead are often
 * issued by kernel threads, so the block layer is reported for the whole
 * machine.
 */
#include <errno.h>
#include <string.h>
#include "analyze.h"

static struct ana_dev *dev_get(struct ana_blk *b, uint64_t dev)
{
	for (size_t i = 0; i < b->nd; i++)
		if (b->d[i].dev == dev)
			return &b->d[i];
	ANA_VEC_GROW(b->d, b->capd, b->nd);
	ANA_VEC_CLEAR(b->d, b->nd, b->nd);
	b->d[b->nd].dev = dev;
	return &b->d[b->nd++];
}

static inline struct ana_bucket *bucket_at(struct ana *a, size_t k)
{
	if (k >= a->ntl_blk) {
		ANA_VEC_GROW(a->tl_blk, a->captl_blk, k);
		ANA_VEC_CLEAR(a->tl_blk, a->ntl_blk, k);
		a->ntl_blk = k + 1;
	}
	return &a->tl_blk[k];
}

/* Spread [s, e) over the buckets it covers. */
static void add_busy(struct ana *a, uint64_t s, uint64_t e)
{
	if (s < a->t0)
		s = a->t0;
	if (e <= s)
		return;
	uint64_t bn = a->bucket_ns;
	struct ana_bkc *c = &a->blk.bkc_busy;
	if (s >= c->lo && e <= c->hi && c->i < a->ntl_blk) {	/* within one bucket */
		a->tl_blk[c->i].blk_busy_ns += e - s;
		return;
	}
	size_t k = ana_bucket_index(a, c, s);
	size_t last = e - 1 < c->hi ? k : (e - 1 - a->t0) / bn;
	if (last - k > 1000000)	/* a bogus hour-long request: clip */
		last = k + 1000000;
	for (; k <= last; k++) {
		uint64_t bs = a->t0 + k * bn, be = bs + bn;
		uint64_t x = s > bs ? s : bs, y = e < be ? e : be;
		if (y > x)
			bucket_at(a, k)->blk_busy_ns += y - x;
	}
}

int ana_pass_block(struct ana *a, tape_reader *r)
{
	struct ana_blk *b = &a->blk;
	b->lat_budget = 2u << 20;	/* 16 MiB */
	tape_cursor *c;
	int err = ana_cursor_open(r, TAPE_TABLE_BLOCK, a->t0, a->t1, &c);
	if (err)
		return err;
	const void *evs;
	size_t n;
	struct ana_dev *d = NULL;
	while ((err = tape_cursor_next_block(c, &evs, &n)) > 0) {
		const struct tape_block *e = evs;
		for (size_t i = 0; i < n; i++, e++) {
			if (ANA_HOST_SKIP(a, TAPE_TABLE_BLOCK, e))
				continue;
			b->n_events++;
			if (!d || d->dev != e->dev)
				d = dev_get(b, e->dev);
			d->reqs++;
			if (e->error)
				b->errors++;
			size_t k = ana_bucket_index(a, &b->bkc, e->ts_ns);
			bucket_at(a, k)->blk_reqs++;
			add_busy(a, e->ts_ns, e->ts_ns + e->dur_ns);
			struct ana_bucket *bk = &a->tl_blk[k];	/* add_busy may move it */
			b->busy_ns += e->dur_ns;
			ana_lat_add(&b->lat, e->dur_ns, &b->lat_budget);
			if (!e->bytes || (e->flags & TAPE_BLK_DISCARD) ||
			    !(e->flags & (TAPE_BLK_READ | TAPE_BLK_WRITE))) {
				if (e->flags & TAPE_BLK_FLUSH)
					d->flushes++;
				continue;	/* flushes, discards: no data moved */
			}
			if (d->has_last) {
				d->pairs++;
				if (e->sector != d->last_end)
					d->nonconsec++;
			}
			d->has_last = 1;
			d->last_end = e->sector + e->bytes / 512;
			if (e->flags & TAPE_BLK_WRITE) {
				d->write_ops++;
				d->write_bytes += e->bytes;
				b->wr_hist[ana_sz_bucket(e->bytes)]++;
				ana_lat_add(&b->wlat, e->dur_ns, &b->lat_budget);
				bk->blk_write_bytes += e->bytes;
			} else {
				d->read_ops++;
				d->read_bytes += e->bytes;
				b->rd_hist[ana_sz_bucket(e->bytes)]++;
				ana_lat_add(&b->rlat, e->dur_ns, &b->lat_budget);
				bk->blk_read_bytes += e->bytes;
			}
		}
	}
	if (err < 0)
		ana_note_damage(a, TAPE_TABLE_BLOCK, err);
	ana_cursor_free(c);
	return 0;
}
