#!/bin/sh
# Memory grows with files and threads, never with operations (issue #14;
# the full-size figures, 10^6 files and 10^7 ops, are in make bench):
#  - the same 1,000 files read 2 M and 4 M times: the replay's peak RSS
#    differs by less than 16 MiB (a whole plan in memory took ~275 MB per
#    million ops), and every read is replayed;
#  - 10^5 files, one open, eight reads and a close each (10^6 ops): peak
#    RSS under 160 MiB;
#  - compare --map of the 2 M-read trace with itself: under 64 MiB (it
#    used to build a whole replay plan to count page-fault reads).
# Built with the sanitizers (SANITIZE=1: shadow memory, a quarantine of
# freed blocks) only the first, relative, check is made.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

# peak RSS in KiB of a command (its status must be 0): RSS_KB
peak() {
	RSS_KB=$(python3 -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
if rc:
    sys.exit(rc)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@") ||
		fail "'$*' exited $?"
}

reads() {	# N: a trace of N 4 KiB preads over 1,000 files
	awk -v hdr="$HDR" -v n="$1" 'BEGIN { print hdr
		for (f = 0; f < 1000; f++)
			printf "%d,1,1,openat,/d/%d.bin,-1,0,0,%d,10,0,\n", 1000 + f, f, 3 + f
		for (i = 0; i < n; i++)
			printf "%d,1,1,pread64,/d/%d.bin,%d,%d,4096,4096,10,0,\n", 10000 + i * 20,
				i % 1000, 3 + i % 1000, (int(i / 1000) % 4) * 4096
	}' | "$IOTAPE" import -o "$T/r$1.tape" - || fail "import of $1 reads failed"
}
reads 2000000
reads 4000000
ok "$IOTAPE" replay --prepare-only -d "$T/d" "$T/r2000000.tape"
peak "$IOTAPE" replay --no-prepare --timing afap --output-format json -o "$T/r2.json" \
	-d "$T/d" "$T/r2000000.tape"
r2=$RSS_KB
peak "$IOTAPE" replay --no-prepare --timing afap --output-format json -o "$T/r4.json" \
	-d "$T/d" "$T/r4000000.tape"
r4=$RSS_KB
[ "$(jq_py "$T/r4.json" "d['replay']['ops_done']['read']")" = 4000000 ] ||
	fail "4 M reads: $(jq_py "$T/r4.json" "d['replay']['ops_done']")"
[ "$(jq_py "$T/r4.json" "d['replay']['ops_failed']")" = 0 ] || fail "4 M reads: ops failed"
echo "peak RSS: 2 M reads $r2 KiB, 4 M reads $r4 KiB"
[ "$r4" -lt $((r2 + 16384)) ] || fail "2 M more reads took $(((r4 - r2) / 1024)) MiB more"

awk -v hdr="$HDR" 'BEGIN { print hdr; t = 1000
	for (f = 0; f < 100000; f++) {
		p = sprintf("/data/%03d/%06d.bin", f % 100, f)
		printf "%d,1,1,openat,%s,-1,0,0,3,10,0,\n", t++, p
		for (k = 0; k < 8; k++)
			printf "%d,1,1,pread64,%s,3,%d,64,64,10,0,\n", t++, p, k * 64
		printf "%d,1,1,close,%s,3,0,0,0,10,0,\n", t++, p
	}}' | "$IOTAPE" import -o "$T/f.tape" - || fail "import of 10^5 files failed"
peak "$IOTAPE" replay --sparse --timing afap --output-format json -o "$T/f.json" \
	-d "$T/df" "$T/f.tape"
echo "peak RSS: 10^5 files, 10^6 ops: $RSS_KB KiB"
[ "$(jq_py "$T/f.json" "d['replay']['ops_done']['read']")" = 800000 ] || fail "10^5 files: reads"
if [ "${SANITIZE:-}" = 1 ]; then
	echo "sanitizers: the absolute bounds are not checked" >&2
	exit 0
fi
[ "$RSS_KB" -lt $((160 * 1024)) ] || fail "10^5 files: peak RSS $((RSS_KB / 1024)) MiB"

peak "$IOTAPE" compare --map "$T/d" "$T/r2000000.tape" "$T/r2000000.tape"
echo "peak RSS: compare --map of 2 M reads: $RSS_KB KiB"
[ "$RSS_KB" -lt $((64 * 1024)) ] || fail "compare: peak RSS $((RSS_KB / 1024)) MiB"
exit 0
