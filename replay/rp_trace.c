/* SPDX-License-Identifier: MIT */
/*
 * rp_trace.c - turn a trace's syscall table into a replay plan.
 *
 * Invariants the runner relies on:
 *  - every path in the plan is relative, has no ".." component and is not
 *    the marker file (rp_path_map); the runner still opens it with
 *    RESOLVE_BENEATH, so a symlink under DIR cannot lead out of it;
 *  - ops are sorted by recorded time (ties in file order) and each
 *    thread's list follows that order, so a dependency always points to an
 *    earlier op: waiting on it cannot deadlock;
 *  - fds are resolved here to slots (one per recorded open, shared by its
 *    dups), so the runner needs no fd table.
 *
 * Page faults on file mappings (cache table, recorded with the mmap
 * layer) become reads, in the faulting thread's order among its
 * syscalls, through an implicit read-only slot per (process, file): the
 * mapping's fd is often closed by then.
 *   fault      (mm_filemap_fault: the page was not mapped from the cache
 *              by fault-around) -> a read of that page;
 *   map_pages  (fault-around: one fault mapped the cached pages of a
 *              window) -> one read of the window, unless the same
 *              thread's next cache event is a fault inside that window
 *              on the same file: then it was the first half of that
 *              fault (the kernel tries fault-around first), and the
 *              fault's page read stands for both.
 * Pages are the recording's page_size (meta, default 4096).  Faults on a
 * file the trace ever maps executable (a program or a shared library:
 * the loader maps its code PROT_EXEC) are left out: they are the loading
 * of code, which page-fault reads would inflate to whole fault-around
 * windows of libraries, not the job's data (plan->faults_code counts them);
 * so are faults on files under /dev (DataLoader's shared-memory batches
 * and semaphores in /dev/shm: memory, not storage; plan->faults_shm).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "replay.h"
#include "tape.h"

static const char *const kind_names[RP_KIND_MAX] = {
	[RP_OPEN] = "open", [RP_CLOSE] = "close", [RP_READ] = "read",
	[RP_WRITE] = "write", [RP_FSYNC] = "fsync", [RP_FDATASYNC] = "fdatasync",
	[RP_UNLINK] = "unlink", [RP_RENAME] = "rename", [RP_MKDIR] = "mkdir",
};

const char *rp_kind_name(unsigned kind)
{
	return kind < RP_KIND_MAX && kind_names[kind] ? kind_names[kind] : "?";
}

int rp_path_map(const char *path, char **out)
{
	size_t n = strlen(path);
	char *r = malloc(n + 1), *w = r;
	const char *p = path;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	while (*p) {
		const char *e = strchr(p, '/');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l == 2 && p[0] == '.' && p[1] == '.') {
			free(r);
			return -EPERM;
		}
		if (l && !(l == 1 && p[0] == '.')) {
			if (w != r)
				*w++ = '/';
			memcpy(w, p, l);
			w += l;
		}
		p += l;
		if (*p == '/')
			p++;
	}
	*w = 0;
	if (!*r || strcmp(r, RP_MARKER) == 0 ||
	    strncmp(r, RP_COPY_DIR, sizeof(RP_COPY_DIR) - 1) == 0) {
		free(r);
		return -EINVAL;
	}
	*out = r;
	return 0;
}

/* ------------------------------------------------------- hash tables */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static uint64_t hash_u64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

/* key -> value, keys any u64, open addressing; val 0 means absent. */
struct umap {
	uint64_t *k, *v;
	size_t cap, n;
};

static int umap_grow(struct umap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 1024;
	uint64_t *nk = calloc(ncap, 8), *nv = calloc(ncap, 8);

	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->v[i])
			continue;
		size_t j = hash_u64(m->k[i]) & (ncap - 1);
		while (nv[j])
			j = (j + 1) & (ncap - 1);
		nk[j] = m->k[i];
		nv[j] = m->v[i];
	}
	free(m->k);
	free(m->v);
	m->k = nk;
	m->v = nv;
	m->cap = ncap;
	return 0;
}

static uint64_t *umap_slot(struct umap *m, uint64_t key)
{
	size_t j;

	if ((m->n + 1) * 2 > m->cap && umap_grow(m))
		return NULL;
	j = hash_u64(key) & (m->cap - 1);
	while (m->v[j] && m->k[j] != key)
		j = (j + 1) & (m->cap - 1);
	if (!m->v[j])
		m->k[j] = key;
	return &m->v[j];
}

static uint64_t umap_get(const struct umap *m, uint64_t key)
{
	if (!m->cap)
		return 0;
	for (size_t j = hash_u64(key) & (m->cap - 1); m->v[j]; j = (j + 1) & (m->cap - 1))
		if (m->k[j] == key)
			return m->v[j];
	return 0;
}

static int umap_put(struct umap *m, uint64_t key, uint64_t val)
{
	uint64_t *s = umap_slot(m, key);
	if (!s)
		return -ENOMEM;
	if (!*s)
		m->n++;
	*s = val;	/* val 0 deletes logically; counts stay approximate */
	return 0;
}

static void umap_free(struct umap *m)
{
	free(m->k);
	free(m->v);
}

/* ------------------------------------------------------------ loading */

struct loader {
	struct rp_plan *p;
	size_t capops, capfiles, capslots;
	struct umap paths;	/* hash(rel) -> file index + 1 (chained by probing on rel) */
	struct umap fds;	/* pid << 32 | fd -> slot + 1 */
	struct umap tids;	/* tid -> thread + 1 */
	struct umap fslots;	/* pid << 32 | file -> fault slot + 1 */
	struct umap nonreg;	/* file_id -> 1: a pipe, socket or device */
	uint32_t *slot_refs;
	int64_t *slot_last;	/* last op (global index) on the slot, -1 */
	int64_t *file_last;	/* last open/namespace op on the path */
	int64_t *file_lastw;	/* last write on the path */
	uint32_t *op_tid;
	uint32_t *op_pid;
	char *err;
	size_t errlen;
};

struct rec {
	struct tape_syscall s;
	uint64_t seq;
};

/* tape_syscall.op of a page-fault read made from the cache table */
#define REC_OP_FAULT 0x7fff0001u

static int file_index(struct loader *L, const char *path, uint32_t *out)
{
	struct rp_plan *p = L->p;
	char *rel;
	int rc = rp_path_map(path, &rel);
	uint64_t h, *s;

	if (rc == -EPERM) {
		snprintf(L->err, L->errlen, "path '%s' has a '..' component: refused", path);
		return rc;
	}
	if (rc == -EINVAL) {
		snprintf(L->err, L->errlen, "path '%s' names no file under DIR: refused", path);
		return rc;
	}
	if (rc)
		return rc;
	/* probe by hash; compare strings on collision */
	for (h = hash_str(rel);; h++) {
		s = umap_slot(&L->paths, h);
		if (!s) {
			free(rel);
			return -ENOMEM;
		}
		if (!*s)
			break;
		if (strcmp(p->files[*s - 1].rel, rel) == 0) {
			free(rel);
			*out = (uint32_t)(*s - 1);
			return 0;
		}
	}
	if (p->nfiles == L->capfiles) {
		size_t nc = L->capfiles ? L->capfiles * 2 : 256;
		void *nf = realloc(p->files, nc * sizeof(*p->files));
		int64_t *a = realloc(L->file_last, nc * 8), *b;
		if (a)
			L->file_last = a;
		b = realloc(L->file_lastw, nc * 8);
		if (b)
			L->file_lastw = b;
		if (!nf || !a || !b) {
			if (nf)
				p->files = nf;
			free(rel);
			return -ENOMEM;
		}
		p->files = nf;
		L->capfiles = nc;
	}
	memset(&p->files[p->nfiles], 0, sizeof(p->files[0]));
	p->files[p->nfiles].rel = rel;
	L->file_last[p->nfiles] = -1;
	L->file_lastw[p->nfiles] = -1;
	*s = p->nfiles + 1;
	L->paths.n++;
	*out = (uint32_t)p->nfiles++;
	return 0;
}

static int new_slot(struct loader *L, uint32_t file, uint32_t oflags, int implicit)
{
	struct rp_plan *p = L->p;

	if (p->nslots == L->capslots) {
		size_t nc = L->capslots ? L->capslots * 2 : 256;
		void *a = realloc(p->slots, nc * sizeof(*p->slots));
		if (a)
			p->slots = a;
		void *b = realloc(L->slot_refs, nc * 4);
		if (b)
			L->slot_refs = b;
		void *c = realloc(L->slot_last, nc * 8);
		if (c)
			L->slot_last = c;
		if (!a || !b || !c)
			return -ENOMEM;
		L->capslots = nc;
	}
	p->slots[p->nslots] = (struct rp_slot){ file, oflags, implicit };
	L->slot_refs[p->nslots] = 1;
	L->slot_last[p->nslots] = -1;
	return (int)p->nslots++;
}

static struct rp_op *new_op(struct loader *L, const struct tape_syscall *s,
			    uint64_t t0, unsigned kind)
{
	struct rp_plan *p = L->p;

	if (p->nops == L->capops) {
		size_t nc = L->capops ? L->capops * 2 : 4096;
		void *a = realloc(p->ops, nc * sizeof(*p->ops));
		void *b = realloc(L->op_tid, nc * 4);
		if (a)
			p->ops = a;
		if (b)
			L->op_tid = b;
		void *c = realloc(L->op_pid, nc * 4);
		if (c)
			L->op_pid = c;
		if (!a || !b || !c)
			return NULL;
		L->capops = nc;
	}
	struct rp_op *op = &p->ops[p->nops];
	memset(op, 0, sizeof(*op));
	op->ts = s->ts_ns - t0;
	op->end = op->ts + s->dur_ns;
	op->kind = kind;
	op->dep = -1;
	L->op_tid[p->nops] = s->tid;
	L->op_pid[p->nops] = s->pid;
	p->nops++;
	p->expected[kind]++;
	return op;
}

/* dep = the latest of the candidates done by another thread */
static void add_dep(struct loader *L, struct rp_op *op, int64_t cand)
{
	size_t self = (size_t)(op - L->p->ops);

	if (cand < 0 || L->op_tid[cand] == L->op_tid[self])
		return;
	if (cand > op->dep)
		op->dep = cand;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->s.ts_ns != y->s.ts_ns)
		return x->s.ts_ns < y->s.ts_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Open flags the replay uses: access mode, create/truncate/append. */
static uint32_t open_flags(uint64_t rec, unsigned op, int direct)
{
	uint32_t f;

	if (op == TAPE_OP_CREAT)
		rec = O_WRONLY | O_CREAT | O_TRUNC;
	f = (uint32_t)rec & (O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND | O_DIRECT |
			     O_DIRECTORY);
	if (f & O_DIRECTORY)
		return (f & ~(O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND | O_DIRECT)) |
		       O_RDONLY | O_CLOEXEC;
	if (direct)
		f |= O_DIRECT;
	return f | O_CLOEXEC;
}

/* Resolve the slot of an fd op: the recorded open, or an implicit one by
 * path.  Returns the slot, -1 when unmatched, or -errno. */
static int fd_slot(struct loader *L, const struct tape_syscall *s, int direct,
		   int writes)
{
	uint64_t key = (uint64_t)s->pid << 32 | (uint32_t)s->fd;
	uint64_t v = umap_get(&L->fds, key);
	uint32_t file;
	int rc, sl;

	if (v) {
		sl = (int)(v - 1);
		if (writes && (L->p->slots[sl].oflags & O_ACCMODE) == O_RDONLY &&
		    L->p->slots[sl].implicit)
			L->p->slots[sl].oflags = (L->p->slots[sl].oflags & ~O_ACCMODE) | O_RDWR;
		return sl;
	}
	if (!s->path || !*s->path)
		return -1;
	rc = file_index(L, s->path, &file);
	if (rc)
		return rc;
	sl = new_slot(L, file, open_flags(writes ? O_RDWR : O_RDONLY, 0, direct), 1);
	if (sl < 0)
		return sl;
	L->p->files[file].prepare = 1;
	rc = umap_put(&L->fds, key, (uint64_t)sl + 1);
	return rc ? rc : sl;
}

/* A page-fault read: the (process, file) fault slot, opened implicitly. */
static int fault_read(struct loader *L, const struct tape_syscall *s, uint64_t t0,
		      int direct)
{
	struct rp_plan *p = L->p;
	uint32_t file;
	uint64_t v;
	struct rp_op *op;
	int rc, sl;

	if ((rc = file_index(L, s->path, &file)))
		return rc;
	v = umap_get(&L->fslots, (uint64_t)s->pid << 32 | file);
	if (v) {
		sl = (int)(v - 1);
	} else {
		sl = new_slot(L, file, open_flags(O_RDONLY, 0, direct), 1);
		if (sl < 0)
			return sl;
		if ((rc = umap_put(&L->fslots, (uint64_t)s->pid << 32 | file, (uint64_t)sl + 1)))
			return rc;
	}
	if (!(op = new_op(L, s, t0, RP_READ)))
		return -ENOMEM;
	op->flags |= RP_F_FAULT;
	op->slot = (uint32_t)sl;
	op->file = file;
	op->off = s->offset;
	op->len = s->size;
	struct rp_file *f = &p->files[file];
	f->prepare = 1;
	if (!f->from_table && op->off + op->len > f->size)
		f->size = op->off + op->len;
	f->rbytes += op->len;
	p->fault_reads++;
	p->fault_pages += s->flags;
	add_dep(L, op, L->file_lastw[file]);
	L->slot_last[sl] = (int64_t)(op - p->ops);
	return 0;
}

/* A read, write or sync of s on its fd's slot (kind RP_*): the op with
 * its file's byte counts and its order after the slot's last op (and,
 * unless a write, after the file's last write).  0 (unmatched counted),
 * or -errno; *last gets the op's end. */
static int plan_io(struct loader *L, const struct tape_syscall *s, uint64_t t0,
		   int direct, unsigned kind, uint64_t *last)
{
	struct rp_plan *p = L->p;
	struct rp_op *op;
	uint32_t file;
	int sl = fd_slot(L, s, direct, kind == RP_WRITE);

	if (sl < -1)
		return sl;
	if (sl < 0) {
		p->unmatched++;
		return 0;
	}
	if (!(op = new_op(L, s, t0, kind)))
		return -ENOMEM;
	op->slot = (uint32_t)sl;
	file = p->slots[sl].file;
	op->file = file;
	if (kind == RP_READ || kind == RP_WRITE) {
		op->off = s->offset;
		op->len = (s->ret >= 0 && (uint64_t)s->ret < s->size) ? (uint64_t)s->ret : s->size;
		if (kind == RP_READ) {
			struct rp_file *f = &p->files[file];
			if (!f->from_table && op->off + op->len > f->size)
				f->size = op->off + op->len;
			f->rbytes += op->len;
		} else {
			p->files[file].wbytes += op->len;
			p->files[file].modified = 1;
		}
	}
	add_dep(L, op, L->slot_last[sl]);
	if (kind != RP_WRITE)
		add_dep(L, op, L->file_lastw[file]);
	L->slot_last[sl] = (int64_t)(op - p->ops);
	if (kind == RP_WRITE)
		L->file_lastw[file] = (int64_t)(op - p->ops);
	if (op->end > *last)
		*last = op->end;
	return 0;
}

/* A read or write of a copy's side s (fd, file_id, offset, path: the
 * input side, or the output side moved there): ret bytes at offset, as a
 * read or write of them is planned.  0 (unmatched and not-storage sides
 * counted), or -errno; *last gets the op's end. */
static int copy_side(struct loader *L, const struct tape_syscall *s, uint64_t t0,
		     int direct, unsigned kind, uint64_t *last)
{
	if (s->fd < 0 && !s->file_id)
		return 0;	/* not recorded (traces before fd2) */
	if (s->file_id && umap_get(&L->nonreg, s->file_id)) {
		L->p->not_storage++;	/* splice's pipe, sendfile's socket */
		return 0;
	}
	return plan_io(L, s, t0, direct, kind, last);
}

/* A copy (sendfile, copy_file_range, splice): a read of ret bytes from
 * the input side, then a write of them to the output side. */
static int plan_copy(struct loader *L, const struct tape_syscall *s, uint64_t t0,
		     int direct, uint64_t *last)
{
	struct tape_syscall in = *s, out = tape_syscall_output(s);
	int rc;

	if (s->ret < 0) {
		L->p->failed++;
		return 0;
	}
	in.size = out.size = (uint64_t)s->ret;	/* each side moves ret bytes */
	if ((rc = copy_side(L, &in, t0, direct, RP_READ, last)))
		return rc;
	return copy_side(L, &out, t0, direct, RP_WRITE, last);
}

static int plan_build(struct loader *L, struct rec *recs, size_t n, int direct)
{
	struct rp_plan *p = L->p;
	uint64_t t0 = n ? recs[0].s.ts_ns : 0, last = 0;
	int rc;

	for (size_t i = 0; i < n; i++) {
		const struct tape_syscall *s = &recs[i].s;
		enum tape_op_class cls = tape_op_class(s->op);
		struct rp_op *op;
		uint32_t file, file2;
		uint64_t key = (uint64_t)s->pid << 32 | (uint32_t)s->fd;
		int sl;

		if (s->op == REC_OP_FAULT) {
			if ((rc = fault_read(L, s, t0, direct)))
				return rc;
			op = &p->ops[p->nops - 1];
			if (op->end > last)
				last = op->end;
			continue;
		}
		if (tape_op_has_output(s->op)) {
			if ((rc = plan_copy(L, s, t0, direct, &last)))
				return rc;
			continue;
		}
		if (s->ret < 0 && cls != TAPE_OPC_OTHER && cls != TAPE_OPC_META &&
		    cls != TAPE_OPC_MMAP) {
			p->failed++;
			continue;
		}
		/* I/O on a pipe, socket or device is not storage I/O (the
		 * recorder names a pipe "pipe:[N]": it must not become a file) */
		if (s->file_id && cls >= TAPE_OPC_OPEN && cls <= TAPE_OPC_SYNC &&
		    umap_get(&L->nonreg, s->file_id)) {
			p->not_storage++;
			continue;
		}
		switch (cls) {
		case TAPE_OPC_OPEN:
			if ((rc = file_index(L, s->path ? s->path : "", &file)))
				return rc;
			if (!(op = new_op(L, s, t0, RP_OPEN)))
				return -ENOMEM;
			op->file = file;
			op->oflags = open_flags(s->flags, s->op, direct);
			if ((op->oflags & O_ACCMODE) != O_RDONLY ||
			    (op->oflags & (O_CREAT | O_TRUNC)))
				p->files[file].modified = 1;
			if (op->oflags & O_DIRECTORY)
				p->files[file].isdir = 1;	/* opendir() */
			else if (!(op->oflags & O_CREAT))
				p->files[file].prepare = 1;
			else if (!(op->oflags & O_TRUNC) && L->file_last[file] < 0)
				p->files[file].prepare = 1;	/* may exist: its data may be read */
			sl = new_slot(L, file, op->oflags, 0);
			if (sl < 0)
				return sl;
			op->slot = (uint32_t)sl;
			add_dep(L, op, L->file_last[file]);
			L->file_last[file] = (int64_t)(op - p->ops);
			L->slot_last[sl] = L->file_last[file];
			key = (uint64_t)s->pid << 32 | (uint32_t)s->ret;
			if ((rc = umap_put(&L->fds, key, (uint64_t)sl + 1)))
				return rc;
			break;
		case TAPE_OPC_DUP: {
			uint64_t v = umap_get(&L->fds, key);
			if (!v || s->op == TAPE_OP_UNKNOWN) {
				p->unmatched++;
				continue;
			}
			L->slot_refs[v - 1]++;
			if ((rc = umap_put(&L->fds, (uint64_t)s->pid << 32 | (uint32_t)s->ret, v)))
				return rc;
			p->skipped++;	/* mapped, not replayed */
			continue;
		}
		case TAPE_OPC_CLOSE: {
			uint64_t v = umap_get(&L->fds, key);
			if (s->op == TAPE_OP_CLOSE_RANGE || !v) {
				if (s->op == TAPE_OP_CLOSE_RANGE)
					p->skipped++;
				else
					p->unmatched++;
				continue;
			}
			sl = (int)(v - 1);
			umap_put(&L->fds, key, 0);
			if (--L->slot_refs[sl]) {
				p->skipped++;	/* an alias: the fd stays open */
				continue;
			}
			if (!(op = new_op(L, s, t0, RP_CLOSE)))
				return -ENOMEM;
			op->slot = (uint32_t)sl;
			op->flags |= RP_F_REALCLOSE;
			add_dep(L, op, L->slot_last[sl]);
			L->slot_last[sl] = (int64_t)(op - p->ops);
			break;
		}
		case TAPE_OPC_READ:
		case TAPE_OPC_WRITE:
		case TAPE_OPC_SYNC: {
			unsigned kind = cls == TAPE_OPC_READ ? RP_READ :
					cls == TAPE_OPC_WRITE ? RP_WRITE :
					s->op == TAPE_OP_FSYNC || s->op == TAPE_OP_URING_FSYNC ?
					RP_FSYNC : RP_FDATASYNC;
			if (s->op == TAPE_OP_FTRUNCATE || s->op == TAPE_OP_FALLOCATE ||
			    s->op == TAPE_OP_MSYNC) {
				p->skipped++;
				continue;
			}
			if ((rc = plan_io(L, s, t0, direct, kind, &last)))
				return rc;
			continue;
		}
		case TAPE_OPC_NAMESPACE: {
			unsigned kind = (s->op == TAPE_OP_UNLINK || s->op == TAPE_OP_UNLINKAT) ?
					RP_UNLINK : (s->op == TAPE_OP_MKDIR || s->op == TAPE_OP_MKDIRAT) ?
					RP_MKDIR : RP_RENAME;
			if ((rc = file_index(L, s->path ? s->path : "", &file)))
				return rc;
			file2 = file;
			if (kind == RP_RENAME &&
			    (rc = file_index(L, s->path2 ? s->path2 : "", &file2)))
				return rc;
			if (!(op = new_op(L, s, t0, kind)))
				return -ENOMEM;
			op->file = file;
			op->file2 = file2;
			p->files[file].modified = p->files[file2].modified = 1;
			if (kind != RP_MKDIR && L->file_last[file] < 0)
				p->files[file].prepare = 1;	/* exists before the trace */
			add_dep(L, op, L->file_last[file]);
			add_dep(L, op, L->file_lastw[file]);
			add_dep(L, op, L->file_last[file2]);
			L->file_last[file] = L->file_last[file2] = (int64_t)(op - p->ops);
			break;
		}
		default:
			p->skipped++;
			continue;
		}
		if (op->end > last)
			last = op->end;
	}
	p->span = last;
	return 0;
}

/* Threads: lists in global order, overlap flags, max depth. */
static int plan_threads(struct loader *L)
{
	struct rp_plan *p = L->p;
	size_t cap = 0;

	for (size_t i = 0; i < p->nops; i++) {
		uint64_t v = umap_get(&L->tids, L->op_tid[i] + 1ull);
		struct rp_thread_plan *t;

		if (!v) {
			if (p->nthreads == cap) {
				cap = cap ? cap * 2 : 16;
				void *a = realloc(p->threads, cap * sizeof(*p->threads));
				if (!a)
					return -ENOMEM;
				p->threads = a;
			}
			memset(&p->threads[p->nthreads], 0, sizeof(p->threads[0]));
			p->threads[p->nthreads].tid = L->op_tid[i];
			p->threads[p->nthreads].pid = L->op_pid[i];
			if (umap_put(&L->tids, L->op_tid[i] + 1ull, ++p->nthreads))
				return -ENOMEM;
			v = p->nthreads;
		}
		t = &p->threads[v - 1];
		if ((t->nops & (t->nops + 1)) == 0 || t->nops == 0) {
			/* grow at powers of two */
			size_t nc = t->nops ? (t->nops + 1) * 2 : 16;
			void *a = realloc(t->ops, nc * 4);
			if (!a)
				return -ENOMEM;
			t->ops = a;
		}
		t->ops[t->nops++] = (uint32_t)i;
		if (p->ops[i].dep >= 0)
			p->ops[p->ops[i].dep].flags |= RP_F_NEEDED;
	}
	/* recorded concurrency: a min-heap of the ends of the thread's data
	 * ops still in flight at each op's start */
	uint64_t *heap = NULL;
	size_t hcap = 0;
	for (size_t k = 0; k < p->nthreads; k++) {
		struct rp_thread_plan *t = &p->threads[k];
		size_t hn = 0;

		t->depth = 1;
		for (size_t j = 0; j < t->nops; j++) {
			struct rp_op *op = &p->ops[t->ops[j]];
			int data = op->kind == RP_READ || op->kind == RP_WRITE;

			op->conc = 1;
			if (!data) {
				hn = 0;	/* the runner drains before other ops */
				continue;
			}
			if (op->len > t->maxlen)
				t->maxlen = op->len;
			while (hn && heap[0] <= op->ts) {	/* pop finished */
				size_t i = 0;
				heap[0] = heap[--hn];
				for (;;) {
					size_t l = 2 * i + 1, r = l + 1, m = i;
					if (l < hn && heap[l] < heap[m]) m = l;
					if (r < hn && heap[r] < heap[m]) m = r;
					if (m == i) break;
					uint64_t x = heap[i]; heap[i] = heap[m]; heap[m] = x;
					i = m;
				}
			}
			if (hn) {
				op->flags |= RP_F_OVERLAP;
				op->conc = hn + 1 > UINT32_MAX ? UINT32_MAX : (uint32_t)hn + 1;
			}
			if (op->conc > t->depth)
				t->depth = op->conc;
			if (hn == hcap) {
				hcap = hcap ? hcap * 2 : 64;
				uint64_t *a = realloc(heap, hcap * sizeof(*heap));
				if (!a) {
					free(heap);
					return -ENOMEM;
				}
				heap = a;
			}
			size_t i = hn++;	/* push the end */
			heap[i] = op->end;
			while (i && heap[(i - 1) / 2] > heap[i]) {
				uint64_t x = heap[i]; heap[i] = heap[(i - 1) / 2]; heap[(i - 1) / 2] = x;
				i = (i - 1) / 2;
			}
		}
	}
	free(heap);
	return 0;
}

struct fev {
	struct tape_cache c;
	const char *path;	/* points into the path table */
	uint64_t seq;
};

static int cmp_fev(const void *a, const void *b)
{
	const struct fev *x = a, *y = b;
	if (x->c.tid != y->c.tid)
		return x->c.tid < y->c.tid ? -1 : 1;
	if (x->c.ts_ns != y->c.ts_ns)
		return x->c.ts_ns < y->c.ts_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int add_rec(struct rec **recs, size_t *n, size_t *cap)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 4096;
		void *a = realloc(*recs, nc * sizeof(**recs));
		if (!a)
			return -ENOMEM;
		*recs = a;
		*cap = nc;
	}
	return 0;
}

/* Page faults on file mappings -> REC_OP_FAULT records (see the top). */
static int load_faults(struct loader *L, tape_reader *r, struct rec **recs,
		       size_t *n, size_t *cap)
{
	const char *ps = tape_reader_meta(r, "page_size");
	uint64_t page = ps ? strtoull(ps, NULL, 10) : 0;
	struct umap ids = { 0 };	/* file_id -> path index + 1 */
	char **paths = NULL;
	size_t npaths = 0, nf = 0, capf = 0;
	struct fev *fe = NULL;
	tape_cursor *c = NULL;
	const void *ev;
	int rc;

	struct umap code = { 0 };	/* file_id -> 1: mapped PROT_EXEC */

	if (!page || (page & (page - 1)) || page > (1u << 24))
		page = 4096;
	/* the syscall rows are loaded already: mmap's flags column has the
	 * prot in its low 32 bits */
	rc = 0;
	for (size_t i = 0; i < *n && !rc; i++) {
		const struct tape_syscall *m = &(*recs)[i].s;
		if (m->op == TAPE_OP_MMAP && m->file_id && (m->flags & PROT_EXEC))
			rc = umap_put(&code, m->file_id, 1);
	}
	if (rc < 0)
		goto out;
	rc = tape_cursor_open(r, TAPE_TABLE_FILE, 0, UINT64_MAX, &c);
	while (!rc && (rc = tape_cursor_next(c, &ev)) == 1) {
		const struct tape_file *f = ev;
		rc = 0;
		if (!f->file_id || !f->path || !f->path[0] ||
		    (f->mode && (f->mode & 0170000) != 0100000))
			continue;	/* faults are on regular files */
		if ((npaths & (npaths + 1)) == 0 || !npaths) {
			void *a = realloc(paths, (npaths + 1) * 2 * sizeof(*paths));
			if (!a) {
				rc = -ENOMEM;
				break;
			}
			paths = a;
		}
		if (!(paths[npaths] = strdup(f->path)) ||
		    umap_put(&ids, f->file_id, npaths + 1)) {
			free(paths[npaths]);
			rc = -ENOMEM;
			break;
		}
		npaths++;
	}
	tape_cursor_free(c);
	c = NULL;
	if (rc < 0)
		goto out;
	rc = tape_cursor_open(r, TAPE_TABLE_CACHE, 0, UINT64_MAX, &c);
	while (!rc && (rc = tape_cursor_next(c, &ev)) == 1) {
		const struct tape_cache *e = ev;
		uint64_t v;

		rc = 0;
		if (e->kind != TAPE_CACHE_FAULT && e->kind != TAPE_CACHE_MAP_PAGES)
			continue;
		if (!e->count)
			continue;
		if (umap_get(&code, e->file_id)) {
			L->p->faults_code++;
			continue;
		}
		v = umap_get(&ids, e->file_id);
		if (!v) {
			L->p->faults_unmatched++;
			continue;
		}
		if (strncmp(paths[v - 1], "/dev/", 5) == 0) {
			L->p->faults_shm++;
			continue;
		}
		if (nf == capf) {
			capf = capf ? capf * 2 : 1024;
			void *a = realloc(fe, capf * sizeof(*fe));
			if (!a) {
				rc = -ENOMEM;
				break;
			}
			fe = a;
		}
		fe[nf].c = *e;
		fe[nf].path = paths[v - 1];
		fe[nf].seq = nf;
		nf++;
	}
	if (rc < 0)
		goto out;
	rc = 0;
	if (nf > 1)
		qsort(fe, nf, sizeof(*fe), cmp_fev);
	for (size_t i = 0; i < nf; i++) {
		const struct tape_cache *e = &fe[i].c;
		struct rec *x;

		if (e->kind == TAPE_CACHE_MAP_PAGES && i + 1 < nf &&
		    fe[i + 1].c.tid == e->tid && fe[i + 1].c.kind == TAPE_CACHE_FAULT &&
		    fe[i + 1].c.file_id == e->file_id && fe[i + 1].c.index >= e->index &&
		    fe[i + 1].c.index < e->index + e->count)
			continue;	/* fault-around that did not map the page */
		if ((rc = add_rec(recs, n, cap)))
			goto out;
		x = &(*recs)[*n];
		memset(x, 0, sizeof(*x));
		x->s.ts_ns = e->ts_ns;
		x->s.pid = e->pid;
		x->s.tid = e->tid;
		x->s.op = REC_OP_FAULT;
		x->s.fd = -1;
		x->s.offset = e->index * page;
		x->s.size = e->count * page;
		x->s.ret = (int64_t)x->s.size;
		x->s.flags = e->count;
		x->s.path = strdup(fe[i].path);
		x->s.path2 = strdup("");
		x->seq = *n;
		if (!x->s.path || !x->s.path2) {
			free((char *)x->s.path);
			free((char *)x->s.path2);
			rc = -ENOMEM;
			goto out;
		}
		(*n)++;
	}
out:
	tape_cursor_free(c);
	for (size_t i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	free(fe);
	umap_free(&ids);
	umap_free(&code);
	return rc;
}

/* Call fn for every row of the file table; 0 or -errno. */
static int each_file_row(struct loader *L, tape_reader *r,
			 int (*fn)(struct loader *L, const struct tape_file *f))
{
	tape_cursor *c;
	const void *ev;
	int rc;

	rc = tape_cursor_open(r, TAPE_TABLE_FILE, 0, UINT64_MAX, &c);
	if (rc)
		return rc;
	while ((rc = tape_cursor_next(c, &ev)) == 1)
		if ((rc = fn(L, ev)) < 0)
			break;
	tape_cursor_free(c);
	return rc < 0 ? rc : 0;
}

/* The file ids of pipes, sockets and devices, by their mode at open. */
static int nonreg_row(struct loader *L, const struct tape_file *f)
{
	unsigned type = f->mode & 0170000;

	if (f->file_id && (type == 0010000 || type == 0140000 ||	/* fifo, socket */
			   type == 0020000 || type == 0060000))		/* chr, blk */
		return umap_put(&L->nonreg, f->file_id, 1);
	return 0;
}

/* Sizes at open and directories, for the files the plan names. */
static int table_row(struct loader *L, const struct tape_file *f)
{
	char *rel;
	uint64_t h, *s;

	if (!f->path || rp_path_map(f->path, &rel))
		return 0;	/* the syscall table decides about bad paths */
	for (h = hash_str(rel);; h++) {
		s = umap_slot(&L->paths, h);
		if (!s || !*s)
			break;
		if (strcmp(L->p->files[*s - 1].rel, rel) == 0) {
			struct rp_file *pf = &L->p->files[*s - 1];
			/* size at open; reads past it (a growing file)
			 * keep their extent */
			if (f->size > pf->size)
				pf->size = f->size;
			pf->from_table = 1;
			if ((f->mode & 0170000) == 0040000)
				pf->isdir = 1;
			break;
		}
	}
	free(rel);
	return 0;
}

/* A path that is the parent of another traced path is a directory, even
 * when nothing in the trace opened it O_DIRECTORY (a directory opened by
 * os.open, a mkdir'ed socket directory missing from the file table): if
 * prepare is to create it, it creates a directory, not a regular file. */
static void mark_parent_dirs(struct loader *L)
{
	struct rp_plan *p = L->p;
	for (size_t i = 0; i < p->nfiles; i++) {
		const char *rel = p->files[i].rel;
		for (const char *q = strchr(rel, '/'); q; q = strchr(q + 1, '/')) {
			char *pre = strndup(rel, (size_t)(q - rel));
			if (!pre)
				return;
			for (uint64_t h = hash_str(pre);; h++) {
				uint64_t *s = umap_slot(&L->paths, h);
				if (!s || !*s)
					break;
				if (strcmp(p->files[*s - 1].rel, pre) == 0) {
					/* only what prepare would otherwise make a
					 * regular file: a directory the trace
					 * creates itself stays the trace's */
					if (p->files[*s - 1].prepare)
						p->files[*s - 1].isdir = 1;
					break;
				}
			}
			free(pre);
		}
	}
}

int rp_plan_load(struct rp_plan *p, const char *trace, int direct,
		 char *err, size_t errlen)
{
	struct loader L = { .p = p, .err = err, .errlen = errlen };
	tape_reader *r = NULL;
	tape_cursor *c = NULL;
	struct rec *recs = NULL;
	size_t n = 0, cap = 0;
	const void *ev;
	int rc;

	memset(p, 0, sizeof(*p));
	err[0] = 0;
	rc = tape_reader_open(&r, trace);
	if (rc) {
		snprintf(err, errlen, "%s: %s", trace, tape_strerror(rc));
		return rc;
	}
	rc = tape_cursor_open(r, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, &c);
	while (!rc && (rc = tape_cursor_next(c, &ev)) == 1) {
		const struct tape_syscall *s = ev;
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			void *a = realloc(recs, cap * sizeof(*recs));
			if (!a) {
				rc = -ENOMEM;
				break;
			}
			recs = a;
		}
		recs[n].s = *s;
		/* strings point into the cursor: keep our own copies */
		recs[n].s.path = strdup(s->path ? s->path : "");
		recs[n].s.path2 = strdup(s->path2 ? s->path2 : "");
		recs[n].seq = n;
		if (!recs[n].s.path || !recs[n].s.path2) {
			free((char *)recs[n].s.path);
			free((char *)recs[n].s.path2);
			rc = -ENOMEM;
			break;
		}
		n++;
		rc = 0;
	}
	if (rc < 0) {
		const char *d = tape_error_detail();
		snprintf(err, errlen, "%s: %s%s%s", trace, tape_strerror(rc),
			 d && *d ? ": " : "", d && *d ? d : "");
		goto out;
	}
	rc = 0;
	if ((rc = load_faults(&L, r, &recs, &n, &cap))) {
		const char *d = tape_error_detail();
		snprintf(err, errlen, "%s: page faults: %s%s%s", trace, tape_strerror(rc),
			 d && *d ? ": " : "", d && *d ? d : "");
		goto out;
	}
	if (n > 1)
		qsort(recs, n, sizeof(*recs), cmp_rec);
	if ((rc = each_file_row(&L, r, nonreg_row)) < 0) {
		snprintf(err, errlen, "%s: file table: %s", trace, tape_strerror(rc));
		goto out;
	}
	if ((rc = plan_build(&L, recs, n, direct)))
		goto out;
	if ((rc = each_file_row(&L, r, table_row)) < 0) {
		snprintf(err, errlen, "%s: file table: %s", trace, tape_strerror(rc));
		goto out;
	}
	mark_parent_dirs(&L);
	for (size_t i = 0; i < p->nfiles; i++) {
		struct rp_file *f = &p->files[i];
		if (!f->isdir && direct && f->size % RP_ALIGN)
			f->size += RP_ALIGN - f->size % RP_ALIGN;
		f->dataset = f->prepare && !f->isdir && !f->modified;
		if (f->dataset)
			p->dataset_bytes += f->rbytes;
	}
	rc = plan_threads(&L);
out:
	if (rc && !err[0])
		snprintf(err, errlen, "%s: %s", trace, strerror(-rc));
	for (size_t i = 0; i < n; i++) {
		free((char *)recs[i].s.path);
		free((char *)recs[i].s.path2);
	}
	free(recs);
	tape_cursor_free(c);
	tape_reader_free(r);
	umap_free(&L.paths);
	umap_free(&L.fds);
	umap_free(&L.tids);
	umap_free(&L.fslots);
	umap_free(&L.nonreg);
	free(L.slot_refs);
	free(L.slot_last);
	free(L.file_last);
	free(L.file_lastw);
	free(L.op_tid);
	free(L.op_pid);
	if (rc)
		rp_plan_release(p);
	return rc;
}

void rp_plan_release(struct rp_plan *p)
{
	for (size_t i = 0; i < p->nfiles; i++)
		free(p->files[i].rel);
	for (size_t i = 0; i < p->nthreads; i++)
		free(p->threads[i].ops);
	free(p->files);
	free(p->ops);
	free(p->slots);
	free(p->threads);
	memset(p, 0, sizeof(*p));
}
