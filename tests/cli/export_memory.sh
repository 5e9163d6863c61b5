#!/bin/sh
# iotape export --format perfetto streams: memory grows with threads and
# files, never with events.  1 M and 3 M reads by 8 threads over 100
# files: the peak RSS differs by less than 8 MiB, and every event is
# written (a line each).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"

# peak RSS in KiB of a command writing to stdout, counted lines in $T/n
peak() {
	RSS_KB=$(python3 -c '
import resource, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE)
n = sum(1 for _ in p.stdout)
if p.wait():
    sys.exit(p.returncode)
open("'"$T"'/n", "w").write("%d\n" % n)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@") ||
		fail "'$*' exited $?"
}

reads() {	# N: N 4 KiB preads by 8 threads over 100 files
	awk -v n="$1" 'BEGIN { print "ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns"
		for (f = 0; f < 100; f++)
			printf "%d,1,%d,openat,/d/%d.bin,-1,0,0,%d,10\n", 1000 + f, 1 + f % 8, f, 3 + f
		for (i = 0; i < n; i++)
			printf "%d,1,%d,pread64,/d/%d.bin,%d,%d,4096,4096,10\n", 10000 + i * 20,
				1 + (i % 100) % 8, i % 100, 3 + i % 100, (int(i / 100) % 64) * 4096
	}' | "$IOTAPE" import -o "$T/r$1.tape" - || fail "import of $1 reads failed"
}
reads 1000000
reads 3000000
peak "$IOTAPE" export -F perfetto "$T/r1000000.tape"
r1=$RSS_KB
n1=$(cat "$T/n")
peak "$IOTAPE" export -F perfetto "$T/r3000000.tape"
r3=$RSS_KB
n3=$(cat "$T/n")
echo "peak RSS: 1 M events $r1 KiB, 3 M events $r3 KiB"
[ $((n3 - n1)) -ge 2000000 ] || fail "3 M reads: $n3 lines, 1 M: $n1"
[ "$r3" -lt $((r1 + 8192)) ] || fail "2 M more events took $(((r3 - r1) / 1024)) MiB more"
exit 0
