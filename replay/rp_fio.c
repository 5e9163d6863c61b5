/* SPDX-License-Identifier: MIT */
/*
 * rp_fio.c - a job (iotape-job(5)) as an fio job file, as far as fio can
 * express it: `iotape model --fio`, and the bench's synthetic run against
 * fio on the same storage (issue 17).
 *
 * fio has no words for a training job: readers that share one data set
 * batch by batch, a trainer whose compute paces them, a new file order
 * each epoch.  What it has words for is written: the readers as fio jobs
 * (numjobs = read_threads) that each read their own share of the files,
 * of the job's sizes, in the job's transfers, loops = epochs, the compute
 * as each reader's thinktime per batch; the checkpoints as a job after
 * them (stonewall).  Every fio option comes after a comment naming the
 * job keys it is derived from; what fio cannot express is listed at the
 * top of the file, only what applies to this job.
 *
 * Invariant: the fio file reads as many files of the job's sizes (the same
 * mean and spread where they vary) as many times as the job does, so its
 * read bytes equal the job's where each file is a whole number of blocks;
 * where not, the comment "bytes read per epoch" gives both figures.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "job.h"
#include "replay.h"

/* What fio reads as something else in a file name: '$' starts a
 * filename_format token, ':' separates file names, ';' and '#' start a
 * comment, '\' escapes, quotes and blanks. */
static const char fio_special[] = "$:;#\\\"' \t";

static int bad_name(const char *what, const char *s, char *err, size_t errlen)
{
	const char *c = strpbrk(s, fio_special);

	if (!c)
		return 0;
	snprintf(err, errlen, "%s '%s': fio would not read '%c' as part of a file name", what, s,
		 *c);
	return -EINVAL;
}

/* "; comment" then "key=value" */
static void opt(FILE *f, const char *key, const char *value, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void opt(FILE *f, const char *key, const char *value, const char *fmt, ...)
{
	va_list ap;

	fputs("; ", f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fprintf(f, "\n%s=%s\n", key, value);
}

static const char *u64s(char *buf, uint64_t v)
{
	snprintf(buf, 32, "%llu", (unsigned long long)v);
	return buf;
}

/* What the readers' fio jobs are made of. */
struct fio_plan {
	uint64_t jobs, per, rest;	/* fio jobs; files each; jobs with one more */
	uint64_t rl, lo, hi;		/* record length: mean; range (range set) */
	int range;
	uint64_t bs;
	const char *bs_why;
	int rw_random, fs_random;
	uint64_t think_us, think_blocks;
	uint64_t nck, shard, ck_bs;	/* checkpoints in the run, shard size, bs */
	uint64_t nckr;			/* checkpoints read back: read_back's, and
					 * num_checkpoints_read after the writes */
};

static void plan(const struct rp_jobspec *j, struct fio_plan *p)
{
	uint64_t N = j->num_files, S = j->num_samples_per_file, bs0;

	memset(p, 0, sizeof(*p));
	p->rl = j->record_length;
	if (p->rl < j->record_length_min)
		p->rl = j->record_length_min;
	if (j->record_length_max && p->rl > j->record_length_max)
		p->rl = j->record_length_max;
	if (j->record_length_stdev) {
		/* a uniform law on mean +- sqrt(3) stdev has that stdev */
		double half = sqrt(3.0) * (double)j->record_length_stdev;
		double lo = (double)p->rl - half, hi = (double)p->rl + half;
		double min = j->record_length_min ? (double)j->record_length_min : 1;

		p->lo = lo < min ? (uint64_t)min : (uint64_t)llround(lo);
		p->hi = (uint64_t)llround(hi);
		if (j->record_length_max && p->hi > j->record_length_max)
			p->hi = j->record_length_max;
		p->range = p->hi > p->lo;
	}
	bs0 = j->transfer_size && j->transfer_size < p->rl ? j->transfer_size : p->rl;
	p->bs_why = j->transfer_size && j->transfer_size < p->rl ? "reader.transfer_size" :
		    j->transfer_size ? "dataset.record_length (reader.transfer_size is larger: "
				       "a record in one read)" :
				       "dataset.record_length (reader.transfer_size 0: a record in "
				       "one read)";
	if (p->range && bs0 > p->lo * S) {
		bs0 = p->lo * S;
		p->bs_why = "the smallest file of the range (fio fails on a file smaller than bs)";
	}
	if (j->mmap) {
		bs0 = j->transfer_size ? j->transfer_size : RP_JOB_MAP_WINDOW;
		p->bs_why = "reader.mmap: the fault window (reader.transfer_size; 0: 64 KiB)";
	}
	if (j->odirect && bs0 % RP_ALIGN) {
		bs0 = bs0 > RP_ALIGN ? bs0 / RP_ALIGN * RP_ALIGN : RP_ALIGN;
		p->bs_why = "rounded to whole 4 KiB blocks for O_DIRECT (reader.odirect)";
	}
	p->bs = bs0;
	p->rw_random = j->sample_shuffle && S > 1;
	p->fs_random = j->file_shuffle && N > 1;
	if (N) {
		p->jobs = j->read_threads < N ? j->read_threads : N;
		p->per = N / p->jobs;
		p->rest = N % p->jobs;
		if (j->computation_time > 0) {
			double bytes = (double)j->batch_size * (double)p->rl;

			p->think_us = (uint64_t)llround(j->computation_time * 1e6 * (double)p->jobs);
			p->think_blocks = (uint64_t)llround(bytes / (double)p->bs);
			if (!p->think_blocks)
				p->think_blocks = 1;
		}
	}
	if (j->checkpoint && j->ckpt_files) {
		uint64_t reads;

		rp_jobspec_checkpoints(j, &p->nck, &reads);
		p->nckr = (j->ckpt_read_back ? p->nck : 0) + reads;
		p->shard = j->ckpt_size / j->ckpt_files;
		p->ck_bs = j->ckpt_transfer_size < p->shard ? j->ckpt_transfer_size : p->shard;
	}
}

static void cannot(FILE *f, const struct rp_jobspec *j, const struct fio_plan *p)
{
	fprintf(f, ";\n; What fio cannot express (left out, or approximated as said):\n");
	if (j->num_files) {
		fprintf(f, ";  - the trainer: no fio job consumes batches; its compute is each "
			   "reader's\n;    thinktime, serial with that reader's reads, where iotape's "
			   "readers read\n;    ahead of the compute (reader.prefetch_size = %llu "
			   "batches)\n", (unsigned long long)j->prefetch_size);
		fprintf(f, ";  - the readers share the data set, batch b read by reader b mod %llu; "
			   "each fio\n;    job reads its own files, named by fio "
			   "(PREFIX<job>_<file>SUFFIX, not PREFIX<n>SUFFIX)\n",
			(unsigned long long)j->read_threads);
		fprintf(f, ";  - a file is opened for each batch that reads it; fio opens it once "
			   "per loop\n");
		if (p->fs_random)
			fprintf(f, ";  - reader.file_shuffle: a new permutation of the files each epoch "
				   "(train.seed);\n;    fio picks a file at random after each "
				   "file's worth of blocks\n");
		if (p->rw_random)
			fprintf(f, ";  - reader.sample_shuffle: a file's samples in a new order each "
				   "epoch, each read\n;    whole; fio reads blocks of bs in its own "
				   "random order\n");
		if (j->read_eof && !j->mmap)
			fprintf(f, ";  - reader.read_eof: the 0-byte read at the end of a file read "
				   "whole\n");
		if (j->mmap)
			fprintf(f, ";  - reader.mmap: a reader faults in only the windows its samples "
				   "touch, once an\n;    epoch; fio's mmap engine copies every block "
				   "of bs of its files from the map\n");
		if (j->record_length_stdev)
			fprintf(f, ";  - dataset.record_length_stdev: a normal spread of record "
				   "lengths; fio draws\n;    each file's size uniformly from a "
				   "range of the same mean and standard\n;    deviation (mean +- "
				   "sqrt(3) stdev), in whole blocks of bs\n");
		if (j->computation_time_stdev > 0)
			fprintf(f, ";  - train.computation_time_stdev: fio's thinktime is constant\n");
		if (j->num_subfolders)
			fprintf(f, ";  - dataset.num_subfolders: fio's files are all in "
				   "dataset.data_folder\n");
		if (p->bs < p->rl && p->rl % p->bs)
			fprintf(f, ";  - a record's last transfer, shorter than bs: fio reads whole "
				   "blocks only\n");
	}
	if (p->nck && p->shard) {
		fprintf(f, ";  - checkpoints between the training steps: fio writes them all "
			   "after the reads\n;    (stonewall), rewriting the same shard files each "
			   "loop, where iotape\n;    writes a new file per checkpoint\n");
		if (j->ckpt_size % j->ckpt_files)
			fprintf(f, ";  - checkpoint.size %% files: shards of equal size, %llu bytes "
				   "fewer\n", (unsigned long long)(j->ckpt_size % j->ckpt_files));
		if (p->shard % p->ck_bs)
			fprintf(f, ";  - a shard's last write, shorter than bs: fio writes whole "
				   "blocks only\n");
		if (j->ckpt_rename)
			fprintf(f, ";  - checkpoint.rename: fio writes the shard under its name, no "
				   ".tmp and rename\n");
		if (j->ckpt_read_back)
			fprintf(f, ";  - checkpoint.read_back: read back after all the writes (a "
				   "third job), not\n;    after each checkpoint\n");
	}
}

/* One fio job of the readers: numjobs jobs of nrfiles files each. */
static void readers(FILE *f, const struct rp_jobspec *j, const struct fio_plan *p,
		    const char *name, const char *tag, uint64_t numjobs, uint64_t nrfiles)
{
	uint64_t S = j->num_samples_per_file;
	char a[32], b[32], v[RP_JOB_STR * 2 + 160];

	fprintf(f, "\n[%s]\n", name);
	opt(f, "numjobs", u64s(a, numjobs), "reader.read_threads %llu, dataset.num_files %llu: "
	    "%llu reader jobs of %llu files", (unsigned long long)j->read_threads,
	    (unsigned long long)j->num_files, (unsigned long long)numjobs,
	    (unsigned long long)nrfiles);
	opt(f, "nrfiles", u64s(a, nrfiles), "each job's own share of the data set");
	if (p->range) {
		snprintf(v, sizeof(v), "%llu-%llu", (unsigned long long)(p->lo * S),
			 (unsigned long long)(p->hi * S));
		opt(f, "filesize", v, "dataset.record_length %llu, record_length_stdev %llu "
		    "(uniform, same mean and stdev) x num_samples_per_file %llu",
		    (unsigned long long)j->record_length,
		    (unsigned long long)j->record_length_stdev, (unsigned long long)S);
	} else {
		opt(f, "filesize", u64s(a, p->rl * S), "dataset.record_length %llu x "
		    "num_samples_per_file %llu", (unsigned long long)p->rl, (unsigned long long)S);
	}
	snprintf(v, sizeof(v), "%s/%s%s$jobnum_$filenum%s", j->data_folder, j->file_prefix, tag,
		 j->file_suffix);
	opt(f, "filename_format", v, "dataset.data_folder, file_prefix, file_suffix; fio numbers "
	    "a job's files (job_file)");
	if (j->mmap)
		opt(f, "ioengine", "mmap", "reader.mmap: the data set read through a memory map");
	opt(f, "bs", u64s(a, p->bs), "%s", p->bs_why);
	opt(f, "rw", p->rw_random ? "randread" : "read", "%s",
	    p->rw_random ? "reader.sample_shuffle on: a file's samples in random order" :
	    S > 1 ? "reader.sample_shuffle off: a file's samples in order" :
		    "one sample per file: each file read from start to end");
	if (p->fs_random) {
		snprintf(v, sizeof(v), "random:%llu",
			 (unsigned long long)((p->rl * S + p->bs - 1) / p->bs));
		opt(f, "file_service_type", v, "reader.file_shuffle on: another file at random "
		    "after a file's blocks");
	} else {
		opt(f, "file_service_type", "sequential", "%s", j->file_shuffle ?
		    "one file: nothing to shuffle" : "reader.file_shuffle off: file after file");
	}
	opt(f, "openfiles", "1", "a reader has one file open at a time");
	opt(f, "loops", u64s(a, j->epochs), "train.epochs");
	opt(f, "direct", j->odirect ? "1" : "0", "reader.odirect %s", j->odirect ? "on" : "off");
	if (p->think_us) {
		opt(f, "thinktime", u64s(a, p->think_us), "train.computation_time %g s per batch x "
		    "%llu readers, in us: a reader's share of the trainer's steps",
		    j->computation_time, (unsigned long long)p->jobs);
		opt(f, "thinktime_blocks", u64s(b, p->think_blocks), "reader.batch_size %llu x "
		    "record_length / bs: the blocks of one batch", (unsigned long long)j->batch_size);
	} else if (j->computation_time > 0) {
		fprintf(f, "; train.computation_time %g s: below 1 us a batch, no thinktime\n",
			j->computation_time);
	} else {
		fprintf(f, "; train.computation_time 0: no thinktime\n");
	}
}

static void ckpt_job(FILE *f, const struct rp_jobspec *j, const struct fio_plan *p, int read)
{
	char a[32], v[RP_JOB_STR + 64];

	fprintf(f, "\n[%s]\n", read ? "checkpoint_read" : "checkpoint");
	opt(f, "stonewall", "1", "%s", read ? "checkpoint.read_back, num_checkpoints_read: "
	    "after the writes" : "a [checkpoint] section: after the reads, not between the steps");
	opt(f, "rw", read ? "read" : "write", "%s", read ? "the checkpoints read back" :
	    "the checkpoint's shards, written from the start");
	opt(f, "nrfiles", u64s(a, j->ckpt_files), "checkpoint.files");
	opt(f, "filesize", u64s(a, p->shard), "checkpoint.size %llu / files",
	    (unsigned long long)j->ckpt_size);
	snprintf(v, sizeof(v), "%s/ckpt_$filenum.pt", j->checkpoint_folder);
	opt(f, "filename_format", v, "checkpoint.checkpoint_folder; fio numbers the shards");
	opt(f, "bs", u64s(a, p->ck_bs), "checkpoint.transfer_size");
	opt(f, "direct", "0", "checkpoints go through the page cache");
	if (!read && j->ckpt_fsync)
		opt(f, "fsync_on_close", "1", "checkpoint.fsync on: each shard fsync'd, then closed");
	if (read)
		opt(f, "loops", u64s(a, p->nckr), "the checkpoints read: read_back's and "
		    "num_checkpoints_read");
	else
		opt(f, "loops", u64s(a, p->nck), "the run's checkpoints: %s",
		    j->num_checkpoints_write ? "checkpoint.num_checkpoints_write" :
		    j->steps_between_checkpoints ?
		    "checkpoint.steps_between_checkpoints in each epoch's steps" :
		    "train.epochs after checkpoint_after_epoch, every epochs_between_checkpoints");
}

int rp_fio_write(FILE *f, const struct rp_jobspec *j, char *err, size_t errlen)
{
	struct fio_plan p;
	char a[32];

	if (j->num_files && (bad_name("dataset.data_folder", j->data_folder, err, errlen) ||
			     bad_name("dataset.file_prefix", j->file_prefix, err, errlen) ||
			     bad_name("dataset.file_suffix", j->file_suffix, err, errlen)))
		return -EINVAL;
	if (j->checkpoint &&
	    bad_name("checkpoint.checkpoint_folder", j->checkpoint_folder, err, errlen))
		return -EINVAL;
	plan(j, &p);
	if (!j->num_files && !(p.nck && p.shard)) {
		if (j->checkpoint && !p.shard)
			snprintf(err, errlen, "no data set, and checkpoint.size / files is 0 "
				 "bytes: no fio job to write");
		else if (j->checkpoint)
			snprintf(err, errlen, "no data set, and train.epochs %llu / checkpoint."
				 "epochs_between_checkpoints %llu makes no checkpoint: no fio job "
				 "to write", (unsigned long long)j->epochs,
				 (unsigned long long)j->epochs_between_checkpoints);
		else
			snprintf(err, errlen, "the job reads no data set and writes no checkpoint: "
				 "no fio job to write");
		return -EINVAL;
	}
	fprintf(f, "; fio job file of the iotape job '%s' (iotape model --fio): the job\n"
		   "; as far as fio can express it.  Run it on the storage under test:\n"
		   ";   IOTAPE_DIR=DIR fio FILE     (DIR must exist; fio creates the files)\n"
		   "; Each option's comment says what it is derived from.\n",
		j->name[0] ? j->name : "(no name)");
	cannot(f, j, &p);
	if (j->num_files) {
		uint64_t S = j->num_samples_per_file;
		uint64_t io = j->num_files * p.rl * S;
		uint64_t fio = j->num_files * (p.rl * S / p.bs * p.bs);

		if (p.range)
			fprintf(f, ";\n; bytes read per epoch: %llu files of random sizes, mean "
				   "%llu bytes\n", (unsigned long long)j->num_files,
				(unsigned long long)(p.rl * S));
		else if (io == fio)
			fprintf(f, ";\n; bytes read per epoch: %llu, as the job (%llu files of "
				   "%llu bytes)\n", (unsigned long long)io,
				(unsigned long long)j->num_files, (unsigned long long)(p.rl * S));
		else
			fprintf(f, ";\n; bytes read per epoch: iotape %llu, fio %llu (whole blocks "
				   "of bs)\n", (unsigned long long)io, (unsigned long long)fio);
	}
	fprintf(f, "\n[global]\n");
	opt(f, "directory", "${IOTAPE_DIR}", "where the files go (iotape replay -d DIR): set "
	    "IOTAPE_DIR, fio expands it");
	opt(f, "ioengine", "io_uring", "iotape replay issues its I/O with io_uring");
	opt(f, "iodepth", "1", "a reader or the trainer has one request in flight at a time");
	opt(f, "randseed", u64s(a, j->seed), "train.seed");
	opt(f, "group_reporting", "1", "one report for the readers, one per checkpoint job");
	if (j->num_files) {
		readers(f, j, &p, "readers", "", p.jobs - p.rest, p.per);
		if (p.rest)
			readers(f, j, &p, "readers_more", "m", p.rest, p.per + 1);
	}
	if (p.nck && p.shard) {
		ckpt_job(f, j, &p, 0);
		if (p.nckr)
			ckpt_job(f, j, &p, 1);
	} else if (j->checkpoint) {
		fprintf(f, "\n; [checkpoint]: %s\n", p.shard ? "no checkpoint falls within the run" :
			"checkpoint.size / files is 0 bytes: nothing to write");
	}
	if (fflush(f) || ferror(f)) {
		snprintf(err, errlen, "writing the fio job file: %s", strerror(EIO));
		return -EIO;
	}
	return 0;
}

int rp_jobspec_model(struct rp_jobspec *j, const struct cm_job *job, const char *what,
		     char *err, size_t errlen)
{
	char kv[RP_JOB_STR * 2 + 64], why[512];
	const char *m;

	rp_jobspec_init(j);
	/* cm_job_write() always writes the format line: so does this */
	if (!job->val[CM_JOB_K_FORMAT] &&
	    rp_jobspec_set(j, "job.format=" CM_JOB_FORMAT, what, err, errlen))
		return -EINVAL;
	for (int k = 0; k < CM_JOB_NKEYS; k++) {
		const char *v = job->val[k];

		if (!v || (k == CM_JOB_K_NUM_FILES && !strcmp(v, "0")))
			continue;	/* left out; 0 files: checkpoints only */
		snprintf(kv, sizeof(kv), "%s.%s=%s", cm_job_keys[k].section, cm_job_keys[k].name, v);
		if (rp_jobspec_set(j, kv, what, err, errlen))
			return -EINVAL;
	}
	if (!j->num_files)
		return 0;	/* no data set: its required keys do not apply */
	if (!rp_jobspec_check(j, "", why, sizeof(why)))
		return 0;
	/* no file, no line: drop the check's ":LINE: " */
	m = strstr(why, ": ");
	snprintf(err, errlen, "%s: %s", what, m ? m + 2 : why);
	return -EINVAL;
}
