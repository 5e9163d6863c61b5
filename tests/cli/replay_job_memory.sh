#!/bin/sh
# replay_job_memory.sh - a job file's replay holds no per-op plan: 10^6
# files read in 10 transfers each (10^7 reads, 1.2 x 10^7 ops, one epoch,
# no compute, afap) peaks at 256 MiB of RSS or less.
#
# The files are not prepared (creating 10^6 files and reading them takes
# ~80 s here: bench/run.sh, section memory, runs that whole): every op goes
# through the generator and the engine, the opens fail (ENOENT) and the
# reads and closes are dropped (EBADF), so the test takes a few seconds.
# Its JSON must show every op expected, and all of them failed so.  With
# the sanitizers (SANITIZE=1: shadow memory) only the op counts are checked.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

cat >"$T/job.ini" <<'INI'
[job]
format = 1
[dataset]
data_folder = data
num_files = 1000000
num_subfolders = 100
record_length = 40k
[reader]
read_threads = 4
batch_size = 256
transfer_size = 4k
read_eof = off
[train]
epochs = 1
computation_time = 0
INI
mkdir "$T/d" || fail "mkdir"
RSS_KB=$(python3 -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if rc:
    sys.exit(rc)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' \
	"$IOTAPE" replay --no-prepare -f --ignore-errors --timing afap --output-format json \
	-o "$T/r.json" -d "$T/d" "$T/job.ini") || fail "the replay exited $?"
[ "$(jq_py "$T/r.json" "d['replay']['ops_expected']['read'], d['replay']['ops_expected']['open']")" = \
  "10000000 1000000" ] || fail "ops expected: $(jq_py "$T/r.json" "d['replay']['ops_expected']")"
[ "$(jq_py "$T/r.json" "d['replay']['ops_failed']")" = 12000000 ] ||
	fail "ops failed: $(jq_py "$T/r.json" "d['replay']['ops_failed']"), want all 12000000"
[ "${SANITIZE:-}" = 1 ] && exit 0
[ "$RSS_KB" -le $((256 * 1024)) ] || fail "peak RSS $RSS_KB KiB, want <= 256 MiB"
echo "peak RSS $((RSS_KB / 1024)) MiB"
exit 0
