/* SPDX-License-Identifier: MIT */
/*
 * cmd_record.c - `iotape record`: start or attach to processes, trace them
 * and their descendants with eBPF, write a trace.
 *
 * One thread does everything after setup: it drains the ring buffer,
 * converts and appends events (record/convert.c), samples /proc every
 * 100 ms, flushes the writer every second (so a SIGKILL leaves complete
 * blocks, and the metadata written at the start), prints the status line,
 * and reaps the command.
 *
 * Metadata follows iotape-format(5): the keys of the recording are set
 * before the first flush; lost.<table> is set again whenever a counter
 * changed (a later value replaces an earlier one) and once at the end.
 * Every message is one line "iotape record: ..." (cli_error); the live
 * status line (a terminal only) is cleared before any of them.
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
#include "cli.h"
#include "fmt.h"
#include "opt.h"
#include "rec.h"
#include "loader.h"

#define DEFAULT_OUTPUT "iotape.iotape"
#define DEFAULT_BUFFER_MB 64
#define SAMPLE_NS 100000000ull
#define FLUSH_NS 1000000000ull
#define CGROUP2_SUPER_MAGIC 0x63677270

enum {
	OPT_CGROUP = OPT_LONG(0),
	OPT_DURATION = OPT_LONG(1),
	OPT_BUFFER = OPT_LONG(2),
};

static const struct opt record_opts[] = {
	{ 'o', "output", "TRACE", "trace file", NULL, DEFAULT_OUTPUT },
	{ 'f', "force", NULL, "overwrite TRACE if it exists" },
	{ 'e', "events", "EVENTS", "comma-separated layers: syscall,mmap,cache,block,sample",
	  NULL, "all" },
	{ 'p', "pid", "PID", "attach to a running process and the processes it starts",
	  NULL, NULL, OPT_MULTI },
	{ OPT_CGROUP, "cgroup", "PATH", "trace the processes of a cgroup v2 (and of the cgroups below it)" },
	{ OPT_DURATION, "duration", "SEC", "stop after SEC seconds" },
	{ OPT_BUFFER, "buffer", "MB", "BPF ring buffer size in MiB", NULL, "64" },
	{ 'q', "quiet", NULL, "no status line and no summary" },
	{ 0 }
};

static const struct opt_cmd record_cmd = {
	"record", "[-- COMMAND [ARGS...]]",
	"Record the I/O of a command and its children with eBPF.",
	"Runs COMMAND (or attaches to -p PIDs or a --cgroup) and writes the file\n"
	"I/O of it and of every process it starts into TRACE.  With a command,\n"
	"exits with its status.  Needs root, or CAP_BPF and CAP_PERFMON.",
	record_opts, OPT_CMD_STOP,
};

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
static const int lost_tables[] = {
	TAPE_TABLE_SYSCALL, TAPE_TABLE_CACHE, TAPE_TABLE_BLOCK, TAPE_TABLE_PROCESS,
};
#define NLOST (sizeof(lost_tables) / sizeof(lost_tables[0]))

static volatile sig_atomic_t stop_sig;
static int status_shown;	/* a status line is on the terminal */

static void on_signal(int sig)
{
	stop_sig = sig;
}

/* Only to interrupt the ring buffer's epoll_wait when the command exits. */
static void on_sigchld(int sig)
{
	(void)sig;
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

static void note(void *arg, const char *msg)
{
	(void)arg;
	cli_error("%s", msg);
}

/* Clear the live status line so that the next message starts a line. */
static void status_clear(void)
{
	if (status_shown) {
		fprintf(stderr, "\r%-79s\r", "");
		status_shown = 0;
	}
}

static int parse_layers(const char *s, uint32_t *out)
{
	char *dup = strdup(s), *save = NULL, *tok;
	uint32_t l = 0;
	int err = 0;

	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok && !err;
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
			l |= ~0u;
		} else if (!found) {
			opt_error(&record_cmd, "-e: unknown layer '%s' "
				  "(syscall,mmap,cache,block,sample)", tok);
			err = -EINVAL;
		}
	}
	free(dup);
	if (!err && !l) {
		opt_error(&record_cmd, "-e: no layer given");
		err = -EINVAL;
	}
	*out = l;
	return err;
}

/* A positive decimal number (fractions allowed) in [lo, hi]. */
static int parse_num(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi))
		return -EINVAL;
	*out = v;
	return 0;
}

/* cgroup v2: the id BPF sees is the directory's inode number; the level
 * (root 0) is how many directories above it are still cgroup2. */
static int parse_cgroup(const char *arg, uint64_t *id, unsigned *level)
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

/* CAP_BPF and CAP_PERFMON (or root) are needed to load tracing programs. */
static int check_privileges(void)
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
	cli_error("needs root, or capabilities CAP_BPF and CAP_PERFMON (missing:%s%s)",
		  bpf ? "" : " CAP_BPF", perfmon ? "" : " CAP_PERFMON");
	return -EPERM;
}

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
static void write_lost(tape_writer *w, const struct rec_bpf *b,
		       uint64_t last[NLOST], int force)
{
	char k[64];

	for (size_t i = 0; i < NLOST; i++) {
		uint64_t n = table_lost(b, lost_tables[i]);

		if (!force && n == last[i])
			continue;
		snprintf(k, sizeof(k), "lost.%s", tape_table_name(lost_tables[i]));
		set_meta_u64(w, k, n);
		last[i] = n;
	}
}

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The metadata known at the start (iotape-format(5), "Metadata keys"). */
static void write_start_meta(tape_writer *w, const struct rec_bpf *b,
			     uint32_t layers, char **cmd, int ncmd,
			     const char *cgroup, uint64_t mono, uint64_t wall)
{
	struct utsname u;
	char buf[4096] = "";
	size_t n = 0;

	for (int i = 0; i < ncmd && n < sizeof(buf); i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? " " : "", cmd[i]);
	if (ncmd)
		tape_writer_set_meta(w, "cmdline", buf);
	if (uname(&u) == 0) {
		tape_writer_set_meta(w, "hostname", u.nodename);
		tape_writer_set_meta(w, "kernel", u.release);
	}
	set_meta_u64(w, "start_wall_ns", wall);
	set_meta_u64(w, "start_mono_ns", mono);
	tape_writer_set_meta(w, "clock", "monotonic");
	set_meta_u64(w, "page_size", (uint64_t)sysconf(_SC_PAGESIZE));
	tape_writer_set_meta(w, "iotape_version", IOTAPE_VERSION);
	tape_writer_set_meta(w, "source", "record");
	if (cgroup)
		tape_writer_set_meta(w, "cgroup", cgroup);
	set_meta_u64(w, "buffer_bytes", b->ring_bytes);
	buf[0] = 0;
	n = 0;
	for (int l = 0; l < REC_L_PROC; l++)
		if (layers & REC_LAYER_BIT(l))
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "," : "",
				      layers_def[l].name);
	if (layers & REC_LAYER_SAMPLE)
		snprintf(buf + n, sizeof(buf) - n, "%ssample", n ? "," : "");
	tape_writer_set_meta(w, "layers", buf);
}

static void print_summary(const char *output, const struct rec_state *st,
			  const struct rec_bpf *b, uint64_t t0, uint64_t t1)
{
	uint64_t total = 0, lost = total_lost(b);
	struct rusage ru;
	struct stat sb;
	char sz[32];
	double cpu, wall = (t1 - t0) / 1e9;

	for (int t = 1; t < TAPE_TABLE_MAX; t++)
		total += st->events[t];
	fprintf(stderr, "iotape record: %s:", output);
	for (int t = 1; t < TAPE_TABLE_MAX; t++)
		fprintf(stderr, " %s %llu%s", tape_table_name(t),
			(unsigned long long)st->events[t], t + 1 < TAPE_TABLE_MAX ? "," : "\n");
	cm_fmt_bytes(sz, sizeof(sz), stat(output, &sb) == 0 ? (uint64_t)sb.st_size : 0);
	fprintf(stderr, "iotape record: %llu events, %llu lost", (unsigned long long)total,
		(unsigned long long)lost);
	if (lost) {
		int first = 1;

		fputs(" (", stderr);
		for (size_t i = 0; i < NLOST; i++) {
			uint64_t n = table_lost(b, lost_tables[i]);

			if (!n)
				continue;
			fprintf(stderr, "%s%s %llu", first ? "" : ", ",
				tape_table_name(lost_tables[i]), (unsigned long long)n);
			first = 0;
		}
		fputs(")", stderr);
	}
	fprintf(stderr, ", %s, %.2f bytes/event\n", sz,
		total ? (double)sb.st_size / total : 0.0);
	getrusage(RUSAGE_SELF, &ru);
	cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	fprintf(stderr, "iotape record: recorder CPU %.2f s over %.2f s (%.1f%% of a core), "
		"%.0f events/s\n", cpu, wall, wall > 0 ? 100 * cpu / wall : 0.0,
		wall > 0 ? total / wall : 0.0);
}

int cmd_record(int argc, char **argv)
{
	struct opt_parser p;
	const char *output = DEFAULT_OUTPUT, *cgroup_path = NULL;
	uint32_t layers = ~0u, *pids = NULL;
	uint64_t cgroup_id = 0, lost_last[NLOST] = { 0 };
	unsigned cgroup_level = 0;
	size_t npids = 0;
	double duration = 0, buffer_mb = DEFAULT_BUFFER_MB;
	int force = 0, quiet = 0, c, err, rc = EXIT_FAIL, status = 0, child_done = 0;
	int ncmd;
	char **cmd;
	pid_t child = -1;
	int go[2] = { -1, -1 }, ex[2] = { -1, -1 };
	struct rec_bpf bpf = { 0 };
	struct ring_buffer *ring = NULL;
	struct rec_state st = { 0 };
	tape_writer *w = NULL;
	struct tape_writer_opts wo = { 0 };
	struct sigaction sa = { 0 };
	uint64_t t0, now = 0, next_sample, next_flush, last_ev = 0, last_t;

	opt_init(&p, &record_cmd, argc, argv);
	while ((c = opt_next(&p)) != OPT_END) {
		switch (c) {
		case OPT_HELP:
			return EXIT_OK;
		case OPT_ERR:
			rc = EXIT_USAGE;
			goto out;
		case 'o':
			output = p.arg;
			break;
		case 'f':
			force = 1;
			break;
		case 'e':
			if (parse_layers(p.arg, &layers)) {
				rc = EXIT_USAGE;
				goto out;
			}
			break;
		case 'p': {
			char *end;
			long v;
			void *n;

			errno = 0;
			v = strtol(p.arg, &end, 10);
			if (errno || end == p.arg || *end || v <= 0 || v > INT32_MAX) {
				opt_error(&record_cmd, "-p: bad pid '%s'", p.arg);
				rc = EXIT_USAGE;
				goto out;
			}
			n = realloc(pids, (npids + 1) * sizeof(*pids));
			if (!n) {
				cli_error("out of memory");
				goto out;
			}
			pids = n;
			pids[npids++] = (uint32_t)v;
			break;
		}
		case OPT_CGROUP:
			if (parse_cgroup(p.arg, &cgroup_id, &cgroup_level)) {
				opt_error(&record_cmd, "--cgroup %s: not a cgroup v2 directory",
					  p.arg);
				rc = EXIT_USAGE;
				goto out;
			}
			cgroup_path = p.arg;
			break;
		case OPT_DURATION:
			if (parse_num(p.arg, 1e-3, 1e9, &duration)) {
				opt_error(&record_cmd, "--duration: bad number of seconds '%s'",
					  p.arg);
				rc = EXIT_USAGE;
				goto out;
			}
			break;
		case OPT_BUFFER:
			/* fractions for tests: 0.0625 = 64 KiB */
			if (parse_num(p.arg, 0.004, 4096, &buffer_mb)) {
				opt_error(&record_cmd, "--buffer: '%s' is not 0.004..4096 (MiB)",
					  p.arg);
				rc = EXIT_USAGE;
				goto out;
			}
			break;
		case 'q':
			quiet = 1;
			break;
		}
	}
	cmd = opt_args(&p, &ncmd);
	if (!ncmd && !npids && !cgroup_id) {
		opt_error(&record_cmd, "give a COMMAND, -p PID or --cgroup PATH");
		rc = EXIT_USAGE;
		goto out;
	}
	if (check_privileges())
		goto out;

	/* The command waits on a pipe (go) until BPF is attached, then execs;
	 * a failed execvp sends its errno back on the other (ex), which the
	 * exec closes. */
	if (ncmd) {
		if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC)) {
			cli_error("pipe: %s", strerror(errno));
			goto out;
		}
		child = fork();
		if (child < 0) {
			cli_error("fork: %s", strerror(errno));
			goto out;
		}
		if (child == 0) {
			char b;
			int e;
			ssize_t n;

			close(go[1]);
			close(ex[0]);
			if (read(go[0], &b, 1) != 1)
				_exit(127);
			execvp(cmd[0], cmd);
			e = errno;
			n = write(ex[1], &e, sizeof(e));
			(void)n;	/* a parent that cannot read it is gone */
			_exit(127);
		}
		close(go[0]);
		go[0] = -1;
		close(ex[1]);
		ex[1] = -1;
	}

	/* Output after the fork so the command does not inherit its fd; before
	 * BPF so a refused overwrite costs nothing. */
	wo.flags = force ? TAPE_WRITE_FORCE : 0;
	err = tape_writer_open(&w, output, &wo);
	if (err) {
		if (err == -EEXIST)
			cli_error("%s exists; use -f to overwrite", output);
		else
			cli_tape_error(output, err);
		goto out;
	}
	rec_state_init(&st, w);
	st.layers = layers;
	if (layers & REC_LAYER_SAMPLE)
		st.gpu = rec_gpu_open();

	err = rec_bpf_open(&bpf, layers, (size_t)(buffer_mb * 1048576), cgroup_id, cgroup_level,
			   note, NULL);
	if (err) {
		const char *what = bpf.what[0] ? bpf.what : "setting up BPF";

		if (err == -EPERM)
			cli_error("%s: %s: needs root, or CAP_BPF and CAP_PERFMON",
				  what, strerror(-err));
		else
			cli_error("%s: %s (IOTAPE_BPF_DEBUG=1 shows libbpf's log)",
				  what, strerror(-err));
		goto out;
	}
	ring = ring_buffer__new(rec_bpf_ring_fd(&bpf), rec_handle_event, &st, NULL);
	if (!ring) {
		cli_error("ring buffer: %s", strerror(errno));
		goto out;
	}

	t0 = rec_now_ns();
	for (size_t i = 0; i < npids; i++) {
		char pp[32];

		snprintf(pp, sizeof(pp), "/proc/%u", pids[i]);
		if (access(pp, F_OK)) {
			cli_error("-p %u: no such process", pids[i]);
			goto out;
		}
		if ((err = rec_bpf_trace_pid(&bpf, pids[i]))) {
			cli_error("-p %u: %s", pids[i], strerror(-err));
			goto out;
		}
		rec_add_process(&st, pids[i], 0, t0, 1);
	}
	if (child > 0) {
		if ((err = rec_bpf_trace_pid(&bpf, child))) {
			cli_error("cannot trace the command: %s", strerror(-err));
			goto out;
		}
		rec_add_process(&st, child, getpid(), t0, 0);
	}

	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_sigchld;	/* no SA_RESTART: epoll_wait returns EINTR */
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	write_start_meta(w, &bpf, layers, cmd, ncmd, cgroup_path, t0, wall_ns());
	write_lost(w, &bpf, lost_last, 1);
	err = tape_writer_flush(w);	/* the metadata survives a SIGKILL */
	if (err) {
		cli_tape_error(output, err);
		goto out;
	}

	if (child > 0) {
		if (write(go[1], "g", 1) != 1) {
			cli_error("cannot start the command: %s", strerror(errno));
			goto out;
		}
		close(go[1]);
		go[1] = -1;
		/* a command that cannot be executed is a failed start */
		if ((err = exec_error(ex[0]))) {
			waitpid(child, NULL, 0);
			child = -1;
			cli_error("%s: %s", cmd[0], strerror(err));
			rc = 127;
			goto out;
		}
	}

	next_sample = t0;
	next_flush = t0 + FLUSH_NS;
	last_t = t0;
	for (;;) {
		int timeout_ms;

		now = rec_now_ns();
		if ((layers & REC_LAYER_SAMPLE) && now >= next_sample) {
			rec_sample(&st, now);
			next_sample += SAMPLE_NS;
			if (next_sample < now)
				next_sample = now + SAMPLE_NS;
		}
		if (now >= next_flush) {
			write_lost(w, &bpf, lost_last, 0);
			err = tape_writer_flush(w);
			if (err && !st.write_err)
				st.write_err = err;
			next_flush = now + FLUSH_NS;
			if (!quiet && isatty(2)) {
				char mb[32];

				cm_fmt_bytes(mb, sizeof(mb), tape_writer_bytes(w));
				fprintf(stderr, "\riotape record: %.0f events/s, %llu lost, "
					"%s written, %d processes   ",
					(st.bpf_events - last_ev) * 1e9 / (now - last_t),
					(unsigned long long)total_lost(&bpf), mb, st.live_groups);
				status_shown = 1;
				last_ev = st.bpf_events;
				last_t = now;
			}
		}
		if (st.write_err)
			break;
		if (child > 0 && !child_done && waitpid(child, &status, WNOHANG) == child)
			child_done = 1;
		if (child_done || stop_sig)
			break;
		if (duration > 0 && now - t0 >= duration * 1e9)
			break;
		if (child < 0 && !cgroup_id && st.live_groups <= 0)
			break;
		timeout_ms = 100;
		if (layers & REC_LAYER_SAMPLE) {
			int t = (int)((next_sample - now) / 1000000) + 1;

			if (t < timeout_ms)
				timeout_ms = t;
		}
		err = ring_buffer__poll(ring, timeout_ms);
		if (err >= 0)
			err = ring_buffer__consume(ring);
		if (err < 0 && err != -EINTR) {
			status_clear();
			cli_error("ring buffer: %s", strerror(-err));
			break;
		}
	}
	/* Detach first so the ring stops filling, then drain it. */
	rec_bpf_detach(&bpf);
	while (ring_buffer__consume(ring) > 0)
		;
	now = rec_now_ns();
	if (layers & REC_LAYER_SAMPLE)
		rec_sample(&st, now);
	rec_finish_processes(&st);
	write_lost(w, &bpf, lost_last, 1);
	set_meta_u64(w, "end_mono_ns", now);
	if (st.bad_events)
		set_meta_u64(w, "bad_events", st.bad_events);

	if (stop_sig && child > 0 && !child_done)
		kill(child, stop_sig);	/* a SIGTERM sent to us alone is passed on */

	err = tape_writer_close(w);
	w = NULL;
	status_clear();
	if (err || st.write_err) {
		cli_tape_error(output, err ? err : st.write_err);
		rc = EXIT_FAIL;
		goto out;
	}
	if (!quiet)
		print_summary(output, &st, &bpf, t0, now);
	else if (total_lost(&bpf))
		cli_error("%llu events lost (see --buffer)",
			  (unsigned long long)total_lost(&bpf));

	if (child > 0) {
		/* The trace is closed.  After SIGINT/SIGTERM wait a little for
		 * the command (it may ignore the signal, e.g. started with &);
		 * a second signal stops waiting at once. */
		if (!child_done && stop_sig) {
			int sig = stop_sig;

			stop_sig = 0;
			for (int i = 0; i < 300 && !stop_sig && !child_done; i++) {
				if (waitpid(child, &status, WNOHANG) == child)
					child_done = 1;
				else
					usleep(10000);
			}
			if (!child_done) {
				cli_error("%s (pid %d) is still running; not waiting for it",
					  cmd[0], (int)child);
				rc = 128 + sig;
				child = -1;
				goto out;
			}
		}
		if (!child_done)
			waitpid(child, &status, 0);
		child_done = 1;
		rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	} else {
		rc = EXIT_OK;
	}
out:
	if (child > 0 && go[1] >= 0) {
		/* setup failed before the command started: it never runs */
		close(go[1]);
		waitpid(child, NULL, 0);
	}
	if (go[0] >= 0)
		close(go[0]);
	if (ex[0] >= 0)
		close(ex[0]);
	ring_buffer__free(ring);
	rec_bpf_free(&bpf);
	if (w) {
		tape_writer_free(w);
		unlink(output);
	}
	rec_gpu_free(st.gpu);
	rec_state_release(&st);
	free(pids);
	return rc;
}
