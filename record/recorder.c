/* SPDX-License-Identifier: MIT */
/*
 * recorder.c - a recording session (recorder.h): start or attach to
 * processes, trace them and their descendants with eBPF, write a trace.
 *
 * One thread does everything after setup: it drains the ring buffer,
 * converts and appends events (convert.c), samples /proc every 100 ms,
 * flushes the writer every second (so a SIGKILL leaves complete blocks,
 * and the metadata written at the start), reports progress, and reaps the
 * command.
 *
 * Metadata follows iotape-format(5): the keys of the recording are set
 * before the first flush; lost.<table> is set again whenever a counter
 * changed (a later value replaces an earlier one) and once at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <bpf/libbpf.h>
#include "recorder.h"
#include "rec.h"
#include "loader.h"
#include "trace.h"

#define SAMPLE_NS 100000000ull
#define FLUSH_NS 1000000000ull
#define CGROUP2_SUPER_MAGIC 0x63677270

/* The recorder's layers (enum rec_layer) and the table their losses count
 * against: mmap faults are cache-table rows, process events process rows. */
static const struct {
	const char *name;
	int table;
} layers_def[REC_L_MAX] = {
	[REC_L_SYSCALL] = { "syscall", TAPE_TABLE_SYSCALL },
	[REC_L_MMAP] = { "mmap", TAPE_TABLE_CACHE },
	[REC_L_CACHE] = { "cache", TAPE_TABLE_CACHE },
	[REC_L_BLOCK] = { "block", TAPE_TABLE_BLOCK },
	[REC_L_PROC] = { "proc", TAPE_TABLE_PROCESS },
};
static const int lost_tables[REC_NLOST] = {
	TAPE_TABLE_SYSCALL, TAPE_TABLE_CACHE, TAPE_TABLE_BLOCK, TAPE_TABLE_PROCESS,
};

struct rec_session {
	struct rec_opts o;
	pid_t child;		/* the command; -1 none, or forgotten */
	int child_done, status;	/* reaped, and its wait(2) status */
	int go[2];		/* the command waits on go[0] until released */
	int ex;			/* its failed execvp's errno; end of file once it ran */
	tape_writer *w;		/* NULL once closed */
	char *tmp;		/* -f: the file written, renamed over the output
				 * at the end; NULL: the output itself */
	struct rec_bpf bpf;
	struct ring_buffer *ring;
	struct rec_state st;
	uint64_t lost_last[REC_NLOST];
	uint64_t t0;		/* start (rec_now_ns) */
	uint64_t next_sample, next_flush;
	uint64_t last_ev, last_t;	/* events and time at the last progress */
	int sig;		/* the signal that stopped it */
	int caught;		/* the handlers below are set; old[] to restore */
	struct sigaction old[4];
};

static const int caught_signals[4] = { SIGINT, SIGTERM, SIGCHLD, SIGPIPE };
static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

/* Only to interrupt the ring buffer's epoll_wait when the command exits. */
static void on_sigchld(int sig)
{
	(void)sig;
}

/* ------------------------------------------------------------ options */

int rec_layers_parse(const char *s, uint32_t *out, char *err, size_t errlen)
{
	char *dup = strdup(s), *save = NULL, *tok;
	uint32_t l = 0;
	int ret = 0;

	if (!dup) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (tok = strtok_r(dup, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		int found = 0;

		for (int i = 0; i < REC_L_PROC; i++)
			if (strcmp(tok, layers_def[i].name) == 0) {
				l |= REC_LAYER_BIT(i);
				found = 1;
			}
		if (strcmp(tok, "sample") == 0) {
			l |= REC_LAYER_SAMPLE;
		} else if (strcmp(tok, "all") == 0) {
			l |= REC_LAYERS_ALL;
		} else if (!found) {
			snprintf(err, errlen, "-e: unknown layer '%s' "
				 "(syscall,mmap,cache,block,sample)", tok);
			ret = -EINVAL;
		}
	}
	free(dup);
	if (!ret && !l) {
		snprintf(err, errlen, "-e: no layer given");
		ret = -EINVAL;
	}
	*out = l;
	return ret;
}

/* cgroup v2: the id BPF sees is the directory's inode number; the level
 * (root 0) is how many directories above it are still cgroup2. */
int rec_cgroup_lookup(const char *arg, uint64_t *id, unsigned *level)
{
	static const char *roots[] = { "", "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	struct statfs sfs;
	struct stat cg;
	char p[4096];

	for (int i = 0; i < 3; i++) {
		if (!roots[i][0] && arg[0] != '/')
			continue;
		if (roots[i][0] && arg[0] == '/' && i)
			continue;
		snprintf(p, sizeof(p), "%s%s%s", roots[i],
			 roots[i][0] ? "/" : "", arg);
		if (stat(p, &cg) == 0 && S_ISDIR(cg.st_mode) &&
		    statfs(p, &sfs) == 0 && sfs.f_type == CGROUP2_SUPER_MAGIC) {
			char real[4096], *slash;
			*id = cg.st_ino;
			*level = 0;
			if (!realpath(p, real))
				return -errno;
			while ((slash = strrchr(real, '/')) && slash != real) {
				*slash = 0;
				if (statfs(real, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC)
					break;
				(*level)++;
			}
			return 0;
		}
	}
	return -ENOENT;
}

/* ------------------------------------------------------------ metadata */

/* Lost events of a table: the sum over the layers counted against it. */
static uint64_t table_lost(const struct rec_bpf *b, int table)
{
	uint64_t n = 0;

	for (int l = 0; l < REC_L_MAX; l++)
		if (layers_def[l].table == table)
			n += rec_bpf_lost(b, l);
	return n;
}

static uint64_t total_lost(const struct rec_bpf *b)
{
	uint64_t t = 0;

	for (int l = 0; l < REC_L_MAX; l++)
		t += rec_bpf_lost(b, l);
	return t;
}

static void set_meta_u64(tape_writer *w, const char *k, uint64_t v)
{
	char b[32];

	snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	tape_writer_set_meta(w, k, b);
}

/* lost.<table> for every table the recorder can lose rows of, when any
 * changed since the last call (always with force). */
static void write_lost(rec_session *s, int force)
{
	char k[64];

	for (size_t i = 0; i < REC_NLOST; i++) {
		uint64_t n = table_lost(&s->bpf, lost_tables[i]);

		if (!force && n == s->lost_last[i])
			continue;
		snprintf(k, sizeof(k), "lost.%s", tape_table_name(lost_tables[i]));
		set_meta_u64(s->w, k, n);
		s->lost_last[i] = n;
	}
}

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The metadata known at the start (iotape-format(5), "Metadata keys"). */
static void write_start_meta(rec_session *s, uint64_t wall)
{
	const struct rec_opts *o = &s->o;
	tape_writer *w = s->w;
	struct utsname u;
	char buf[4096] = "";
	size_t n = 0;

	for (int i = 0; i < o->ncmd && n < sizeof(buf); i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? " " : "", o->cmd[i]);
	if (o->ncmd)
		tape_writer_set_meta(w, "cmdline", buf);
	if (uname(&u) == 0) {
		tape_writer_set_meta(w, "hostname", u.nodename);
		tape_writer_set_meta(w, "kernel", u.release);
	}
	set_meta_u64(w, "start_wall_ns", wall);
	set_meta_u64(w, "start_mono_ns", s->t0);
	tape_writer_set_meta(w, "clock", "monotonic");
	set_meta_u64(w, "page_size", (uint64_t)sysconf(_SC_PAGESIZE));
	tape_writer_set_meta(w, "iotape_version", IOTAPE_VERSION);
	tape_writer_set_meta(w, "source", "record");
	/* the file table names files by their real path (convert.c) */
	tape_writer_set_meta(w, "file_paths", "real");
	if (o->cgroup)
		tape_writer_set_meta(w, "cgroup", o->cgroup);
	set_meta_u64(w, "buffer_bytes", s->bpf.ring_bytes);
	buf[0] = 0;
	n = 0;
	for (int l = 0; l < REC_L_PROC; l++)
		if (o->layers & REC_LAYER_BIT(l))
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "," : "",
				      layers_def[l].name);
	if (o->layers & REC_LAYER_SAMPLE)
		snprintf(buf + n, sizeof(buf) - n, "%ssample", n ? "," : "");
	tape_writer_set_meta(w, "layers", buf);
}

/* ------------------------------------------------------------ open */

/* CAP_BPF and CAP_PERFMON (or root) are needed to load tracing programs. */
static int check_privileges(char *err, size_t errlen)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { 0 };
	int bpf, perfmon, admin;

	if (syscall(SYS_capget, &h, d))
		return 0; /* cannot tell: let the load say */
#define HAS(c) (!!(d[(c) / 32].effective & (1u << ((c) % 32))))
	admin = HAS(CAP_SYS_ADMIN);
	bpf = HAS(CAP_BPF) || admin;
	perfmon = HAS(CAP_PERFMON) || admin;
#undef HAS
	if (bpf && perfmon)
		return 0;
	snprintf(err, errlen, "needs root, or capabilities CAP_BPF and CAP_PERFMON (missing:%s%s)",
		 bpf ? "" : " CAP_BPF", perfmon ? "" : " CAP_PERFMON");
	return -EPERM;
}

/* The command waits on a pipe (go) until BPF is attached, then execs; a
 * failed execvp sends its errno back on another (ex), which the exec
 * closes.  Before the trace is created, so that it does not inherit it. */
static int spawn_held(rec_session *s, char *err, size_t errlen)
{
	int ex[2] = { -1, -1 }, ret;

	if (pipe2(s->go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC)) {
		ret = -errno;
		snprintf(err, errlen, "pipe: %s", strerror(-ret));
		goto fail;
	}
	s->child = fork();
	if (s->child < 0) {
		ret = -errno;
		snprintf(err, errlen, "fork: %s", strerror(-ret));
		goto fail;
	}
	if (s->child == 0) {
		char b;
		int e;
		ssize_t n;

		close(s->go[1]);
		close(ex[0]);
		if (read(s->go[0], &b, 1) != 1)
			_exit(127);
		execvp(s->o.cmd[0], s->o.cmd);
		e = errno;
		n = write(ex[1], &e, sizeof(e));
		(void)n;	/* a parent that cannot read it is gone */
		_exit(127);
	}
	close(s->go[0]);
	s->go[0] = -1;
	close(ex[1]);
	s->ex = ex[0];
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (s->go[i] >= 0)
			close(s->go[i]);
		if (ex[i] >= 0)
			close(ex[i]);
		s->go[i] = -1;
	}
	return ret;
}

/* After the command's fork; before BPF, so a refused overwrite costs
 * nothing.  With force the old trace stays until the new one is complete:
 * the recording goes to a temporary file next to it. */
static int create_trace(rec_session *s, char *err, size_t errlen)
{
	int ret = cm_trace_create(s->o.output, s->o.force, NULL, &s->tmp, &s->w);

	if (ret) {
		if (ret == -EEXIST)
			snprintf(err, errlen, "%s exists; use -f to overwrite", s->o.output);
		else
			cm_trace_error(err, errlen, s->o.output, ret);
		return ret;
	}
	rec_state_init(&s->st, s->w);
	s->st.layers = s->o.layers;
	s->st.row = s->o.row;
	s->st.row_arg = s->o.arg;
	if (s->o.layers & REC_LAYER_SAMPLE)
		s->st.gpu = rec_gpu_open();
	return 0;
}

static int load_bpf(rec_session *s, char *err, size_t errlen)
{
	const struct rec_opts *o = &s->o;
	int ret = rec_bpf_open(&s->bpf, o->layers, o->buffer_bytes, o->cgroup_id,
			       o->cgroup_level, o->note, o->arg);

	if (ret) {
		const char *what = s->bpf.what[0] ? s->bpf.what : "setting up BPF";

		if (ret == -EPERM)
			snprintf(err, errlen, "%s: %s: needs root, or CAP_BPF and CAP_PERFMON",
				 what, strerror(-ret));
		else
			snprintf(err, errlen, "%s: %s (IOTAPE_BPF_DEBUG=1 shows libbpf's log)",
				 what, strerror(-ret));
		return ret;
	}
	s->ring = ring_buffer__new(rec_bpf_ring_fd(&s->bpf), rec_handle_event, &s->st, NULL);
	if (!s->ring) {
		ret = -errno;
		snprintf(err, errlen, "ring buffer: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

/* The -p processes and the command into the traced set; the clock starts. */
static int trace_processes(rec_session *s, char *err, size_t errlen)
{
	int ret;

	s->t0 = rec_now_ns();
	for (size_t i = 0; i < s->o.npids; i++) {
		uint32_t pid = s->o.pids[i];
		char pp[32];

		snprintf(pp, sizeof(pp), "/proc/%u", pid);
		if (access(pp, F_OK)) {
			snprintf(err, errlen, "-p %u: no such process", pid);
			return -ESRCH;
		}
		if ((ret = rec_bpf_trace_pid(&s->bpf, pid))) {
			snprintf(err, errlen, "-p %u: %s", pid, strerror(-ret));
			return ret;
		}
		rec_add_process(&s->st, pid, 0, s->t0, 1);
	}
	if (s->child > 0) {
		if ((ret = rec_bpf_trace_pid(&s->bpf, s->child))) {
			snprintf(err, errlen, "cannot trace the command: %s", strerror(-ret));
			return ret;
		}
		rec_add_process(&s->st, s->child, getpid(), s->t0, 0);
	}
	return 0;
}

int rec_session_open(rec_session **out, const struct rec_opts *o, char *err, size_t errlen)
{
	rec_session *s;
	int ret;

	*out = NULL;
	if (!o->ncmd && !o->npids && !o->cgroup_id) {
		snprintf(err, errlen, "nothing to record: no command, process or cgroup");
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->o = *o;
	s->child = -1;
	s->go[0] = s->go[1] = s->ex = -1;
	if ((ret = check_privileges(err, errlen)) ||
	    (o->ncmd && (ret = spawn_held(s, err, errlen))) ||
	    (ret = create_trace(s, err, errlen)) ||
	    (ret = load_bpf(s, err, errlen)) ||
	    (ret = trace_processes(s, err, errlen))) {
		rec_session_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

/* ------------------------------------------------------------ start */

static void catch_signals(rec_session *s)
{
	struct sigaction sa = { 0 };

	for (int i = 0; i < 4; i++) {
		switch (caught_signals[i]) {
		case SIGCHLD:	/* no SA_RESTART: epoll_wait returns EINTR */
			sa.sa_handler = on_sigchld;
			break;
		case SIGPIPE:
			sa.sa_handler = SIG_IGN;
			break;
		default:
			sa.sa_handler = on_signal;
		}
		sigaction(caught_signals[i], &sa, &s->old[i]);
	}
	s->caught = 1;
}

/* The errno of the command's failed execvp, or 0 once it ran (end of file:
 * the exec closed the pipe). */
static int exec_error(int fd)
{
	ssize_t n;
	int e;

	do
		n = read(fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	return n == sizeof(e) ? e : 0;
}

static int release_command(rec_session *s, char *err, size_t errlen)
{
	int e;

	if (write(s->go[1], "g", 1) != 1) {
		e = errno;
		snprintf(err, errlen, "cannot start the command: %s", strerror(e));
		return -e;
	}
	close(s->go[1]);
	s->go[1] = -1;
	/* a command that cannot be executed is a failed start */
	if ((e = exec_error(s->ex))) {
		while (waitpid(s->child, &s->status, 0) < 0 && errno == EINTR)
			;
		s->child_done = 1;
		snprintf(err, errlen, "%s: %s", s->o.cmd[0], strerror(e));
		return -e;
	}
	return 0;
}

int rec_session_start(rec_session *s, char *err, size_t errlen)
{
	int ret;

	catch_signals(s);
	write_start_meta(s, wall_ns());
	write_lost(s, 1);
	ret = tape_writer_flush(s->w);	/* the metadata survives a SIGKILL */
	if (ret) {
		cm_trace_error(err, errlen, s->o.output, ret);
		return ret;
	}
	if (s->child > 0 && (ret = release_command(s, err, errlen)))
		return ret;
	s->next_sample = s->t0;
	s->next_flush = s->t0 + FLUSH_NS;
	s->last_t = s->t0;
	return 0;
}

/* ------------------------------------------------------------ run */

/* Every second: the lost counters, a flush, the progress report. */
static void flush_tick(rec_session *s, uint64_t now)
{
	int ret;

	write_lost(s, 0);
	ret = tape_writer_flush(s->w);
	if (ret && !s->st.write_err)
		s->st.write_err = ret;
	s->next_flush = now + FLUSH_NS;
	if (s->o.progress) {
		struct rec_progress p = {
			.events_per_s = (s->st.bpf_events - s->last_ev) * 1e9 / (now - s->last_t),
			.lost = total_lost(&s->bpf),
			.bytes = tape_writer_bytes(s->w),
			.processes = s->st.live_groups,
		};
		for (size_t i = 0; i < REC_NLOST; i++) {
			p.lost_table[i].table = lost_tables[i];
			p.lost_table[i].n = table_lost(&s->bpf, lost_tables[i]);
		}

		s->o.progress(s->o.arg, &p);
		s->last_ev = s->st.bpf_events;
		s->last_t = now;
	}
}

/* Whether the recording is over (the command reaped when it is). */
static int done(rec_session *s, uint64_t now)
{
	if (s->st.write_err)
		return 1;
	if (s->child > 0 && !s->child_done &&
	    waitpid(s->child, &s->status, WNOHANG) == s->child)
		s->child_done = 1;
	if (s->child_done || stop_sig)
		return 1;
	if (s->o.duration > 0 && now - s->t0 >= s->o.duration * 1e9)
		return 1;
	return s->child < 0 && !s->o.cgroup_id && s->st.live_groups <= 0;
}

int rec_session_run(rec_session *s, char *err, size_t errlen)
{
	int sample = !!(s->o.layers & REC_LAYER_SAMPLE);

	for (;;) {
		uint64_t now = rec_now_ns();
		int timeout_ms = 100, ret;

		if (sample && now >= s->next_sample) {
			rec_sample(&s->st, now);
			s->next_sample += SAMPLE_NS;
			if (s->next_sample < now)
				s->next_sample = now + SAMPLE_NS;
		}
		if (now >= s->next_flush)
			flush_tick(s, now);
		if (done(s, now))
			return 0;
		if (sample) {
			int t = (int)((s->next_sample - now) / 1000000) + 1;

			if (t < timeout_ms)
				timeout_ms = t;
		}
		ret = ring_buffer__poll(s->ring, timeout_ms);
		if (ret >= 0)
			ret = ring_buffer__consume(s->ring);
		if (ret < 0 && ret != -EINTR) {
			snprintf(err, errlen, "ring buffer: %s", strerror(-ret));
			return ret;
		}
	}
}

/* ------------------------------------------------------------ finish */

static void fill_result(rec_session *s, uint64_t end, struct rec_result *res)
{
	struct rusage ru;
	struct stat sb;

	memset(res, 0, sizeof(*res));
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		res->events[t] = s->st.events[t];
		res->events_total += s->st.events[t];
	}
	for (size_t i = 0; i < REC_NLOST; i++) {
		res->lost[i].table = lost_tables[i];
		res->lost[i].n = table_lost(&s->bpf, lost_tables[i]);
	}
	res->lost_total = total_lost(&s->bpf);
	res->bytes = stat(s->o.output, &sb) == 0 ? (uint64_t)sb.st_size : 0;
	res->wall_s = (end - s->t0) / 1e9;
	getrusage(RUSAGE_SELF, &ru);
	res->cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		     ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	res->cmd_pid = s->child > 0 ? s->child : 0;
}

int rec_session_finish(rec_session *s, struct rec_result *res, char *err, size_t errlen)
{
	uint64_t now;
	int ret;

	/* Detach first so the ring stops filling, then drain it. */
	rec_bpf_detach(&s->bpf);
	while (ring_buffer__consume(s->ring) > 0)
		;
	now = rec_now_ns();
	if (s->o.layers & REC_LAYER_SAMPLE)
		rec_sample(&s->st, now);
	rec_finish_processes(&s->st);
	write_lost(s, 1);
	set_meta_u64(s->w, "end_mono_ns", now);
	if (s->st.bad_events)
		set_meta_u64(s->w, "bad_events", s->st.bad_events);

	s->sig = stop_sig;
	if (s->sig && s->child > 0 && !s->child_done)
		kill(s->child, s->sig);	/* a SIGTERM sent to us alone is passed on */

	ret = tape_writer_close(s->w);
	s->w = NULL;
	if (!ret)
		ret = s->st.write_err;
	if (ret)	/* kept, readable up to its last flush: say where */
		cm_trace_error(err, errlen, s->tmp ? s->tmp : s->o.output, ret);
	else if (s->tmp && rename(s->tmp, s->o.output) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s (the new trace is %s)", s->o.output,
			 strerror(-ret), s->tmp);
	}
	fill_result(s, now, res);
	return ret;
}

/* ------------------------------------------------------------ the end */

int rec_session_signal(const rec_session *s)
{
	return s->sig;
}

int rec_session_wait(rec_session *s, int patience_ms, int *status)
{
	int waited = 0;

	if (s->child <= 0 || s->go[1] >= 0)
		return -ECHILD;	/* none, or never released */
	stop_sig = 0;	/* from now on a signal means: stop waiting */
	while (!s->child_done) {
		pid_t r = waitpid(s->child, &s->status, patience_ms < 0 ? 0 : WNOHANG);

		if (r == s->child) {
			s->child_done = 1;
			break;
		}
		if (r < 0 && errno != EINTR)
			return -errno;
		if (stop_sig || (patience_ms >= 0 && waited >= patience_ms)) {
			if (!s->sig)
				s->sig = stop_sig;
			s->child = -1;
			return -ETIMEDOUT;
		}
		if (patience_ms >= 0) {
			usleep(10000);
			waited += 10;
		}
	}
	*status = s->status;
	return 0;
}

void rec_session_free(rec_session *s)
{
	if (!s)
		return;
	if (s->child > 0 && s->go[1] >= 0) {
		/* setup failed before the command started: it never runs */
		close(s->go[1]);
		waitpid(s->child, NULL, 0);
	}
	if (s->ex >= 0)
		close(s->ex);
	ring_buffer__free(s->ring);
	rec_bpf_free(&s->bpf);
	if (s->w) {
		tape_writer_free(s->w);
		unlink(s->tmp ? s->tmp : s->o.output);
	}
	free(s->tmp);
	rec_gpu_free(s->st.gpu);
	rec_state_release(&s->st);
	if (s->caught)
		for (int i = 0; i < 4; i++)
			sigaction(caught_signals[i], &s->old[i], NULL);
	free(s);
}
