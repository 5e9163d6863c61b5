#!/bin/sh
# replay_eagain.sh - an open through a symlink whose target climbs with
# ".." is replayed whatever renames run beside it.
#
# The replay opens beneath DIR (openat2 RESOLVE_BENEATH); there a ".."
# fails with EAGAIN when any rename or mount ran anywhere on the machine
# during the lookup, and openat2(2) says to try again.  Debian's
# /usr/share/locale/locale.alias is such a link (../../../etc/locale.alias):
# a replay beside another job's renames failed its open ("open
# etc/locale.alias: Resource temporarily unavailable").  Here a job opens a
# file 20,000 times through a link that climbs 24 ".." while another process
# renames a file back and forth; the replay's opens must all succeed (each
# is tried again up to 64 times, with growing pauses; without that 26 to
# 89 of them failed in three runs here).
. "$(dirname "$0")/record_lib.sh"
. "$(dirname "$0")/replay_lib.sh"
rec_need_bpf
need_uring

cd "$T" || fail "cd"
# a link 24 directories deep to a file at the top: the lookup climbs 24
# ".." (each one a check of the rename sequence)
deep=$(seq -s / 1 24) up=$(seq -s / 1 24 | sed "s/[0-9][0-9]*/../g")
mkdir -p etc "usr/$deep" || fail "mkdir"
head -c 512 /dev/urandom >etc/alias || fail "etc/alias"
ln -s "$up/../etc/alias" "usr/$deep/alias" || fail "ln"
cat >job.py <<'PY' || fail "job.py"
import os, sys
p = os.path.join(sys.argv[1], "usr", sys.argv[2], "alias")
for _ in range(20000):
    fd = os.open(p, os.O_RDONLY)
    os.read(fd, 16)
    os.close(fd)
PY
"$IOTAPE" record -q -o "$T/a.tape" -- /usr/bin/python3 job.py "$T" "$deep" 2>"$T/rec.err" ||
	fail "record: $(cat "$T/rec.err")"
ok "$IOTAPE" replay --prepare-only -d "$T/r" "$T/a.tape"
# the renames beside it, without a pause: each bumps the kernel's rename
# sequence
mkdir "$T/mv" && : >"$T/mv/a" || fail "mv dir"
/usr/bin/python3 -c '
import os, sys
d = sys.argv[1]
a, b, stop = (os.path.join(d, n) for n in ("a", "b", "stop"))
while not os.path.exists(stop):
    os.rename(a, b)
    os.rename(b, a)
' "$T/mv" &
mover=$!
"$IOTAPE" replay --no-prepare --timing afap --output-format json -o "$T/r.json" -d "$T/r" \
	"$T/a.tape" >"$T/rp.out" 2>&1
rc=$?
: >"$T/mv/stop"
wait $mover || fail "the renaming process failed"
[ $rc = 0 ] || fail "replay beside renames: $(tail -n 3 "$T/rp.out")"
echo "20,000 opens through ../ links replayed beside renames, none failed"
exit 0
