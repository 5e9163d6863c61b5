# tests/cli/record_lib.sh - helpers for the recorder's tests (sourced after
# lib.sh; tests/run does not run *_lib.sh files as tests).
#
# rec_need_bpf skips (77, reason on the last line) without root, BTF or
# the test helper programs.  Traces are read with $TESTBIN/tdump, which
# prints every row as "table col=val ..."; t_dump leaves them in $T/dump
# with a space at the end of each line, so " key=value " matches a whole
# field.  The t_expect/t_eq/t_check checks count failures and go on;
# t_done exits 1 if any failed.
. "$(dirname "$0")/lib.sh"

: "${TESTBIN:=$TOP/.output/tests}"
TB=$TESTBIN
T_FAILS=0

rec_need_bpf() {
	[ "$(id -u)" = 0 ] || skip "needs root (loads BPF programs)"
	[ -r /sys/kernel/btf/vmlinux ] || skip "no kernel BTF (/sys/kernel/btf/vmlinux)"
	[ -x "$TB/tdump" ] || skip "no test helpers in $TB (run make tests)"
}

# rec_signal SIG DATA OPTION...: record (-q OPTION...) preadbench reading
# DATA in a loop, send SIG to the recorder after 2.5 s, wait for it (its
# status in $rec_rc), then kill preadbench (started with &, it ignores
# SIGINT and outlives the recorder).
rec_signal() {
	_sig=$1 _dat=$2
	shift 2
	"$IOTAPE" record -q "$@" -- "$TB/preadbench" "$_dat" 1000000000 4096 2>/dev/null &
	_rec=$!
	sleep 2.5
	_child=$(pgrep -P $_rec)
	kill -"$_sig" $_rec
	wait $_rec 2>/dev/null
	rec_rc=$?
	[ -n "$_child" ] && kill -KILL $_child 2>/dev/null
	return 0
}

# t_samples DIR N: the data set of tests/torch_job.py, N random 4 KiB files
t_samples() {
	mkdir "$1" || exit 1
	_i=0
	while [ $_i -lt "$2" ]; do
		head -c 4096 /dev/urandom >"$1/$(printf 'sample_%04d.bin' $_i)"
		_i=$((_i + 1))
	done
}

# t_dump TRACE [table] -> $T/dump; a trace tdump cannot read (missing,
# damaged) fails the test: its status is checked, not the filter's.
t_dump() {
	"$TB/tdump" "$@" >"$T/dump.raw" || fail "cannot read $1"
	sed 's/$/ /' "$T/dump.raw" >"$T/dump" || fail "sed failed on the dump of $1"
	rm -f "$T/dump.raw"
}

# t_grep PATTERN...: rows of $T/dump matching all fixed-string patterns
t_grep() {
	if [ $# -eq 0 ]; then
		cat "$T/dump"
		return
	fi
	p=$1
	shift
	grep -F -e "$p" "$T/dump" | {
		if [ $# -eq 0 ]; then cat; else t_filter "$@"; fi
	}
}
t_filter() {	# stdin filtered by every fixed-string pattern
	if [ $# -eq 0 ]; then
		cat
		return
	fi
	p=$1
	shift
	grep -F -e "$p" | t_filter "$@"
}
t_count() { t_grep "$@" | wc -l; }

# t_expect N DESCRIPTION PATTERN...: exactly N rows match
t_expect() {
	n=$1 d=$2
	shift 2
	got=$(t_count "$@")
	if [ "$got" -ne "$n" ]; then
		echo "FAIL: $d: expected $n rows matching [$*], got $got"
		T_FAILS=$((T_FAILS + 1))
	fi
}
t_expect_ge() {
	n=$1 d=$2
	shift 2
	got=$(t_count "$@")
	if [ "$got" -lt "$n" ]; then
		echo "FAIL: $d: expected >= $n rows matching [$*], got $got"
		T_FAILS=$((T_FAILS + 1))
	fi
}
# t_check DESCRIPTION COMMAND...
t_check() {
	d=$1
	shift
	if ! "$@"; then
		echo "FAIL: $d"
		T_FAILS=$((T_FAILS + 1))
	fi
}
# t_eq DESCRIPTION EXPECTED GOT
t_eq() {
	if [ "$2" != "$3" ]; then
		echo "FAIL: $1: expected $2, got $3"
		T_FAILS=$((T_FAILS + 1))
	fi
}
# t_sum FIELD PATTERN...: sum of FIELD over the matching rows
t_sum() {
	fld=$1
	shift
	t_grep "$@" | awk -v k="$fld" '{ for (i = 1; i <= NF; i++) { j = index($i, "=");
		if (j && substr($i, 1, j - 1) == k) s += substr($i, j + 1) } } END { printf "%.0f\n", s + 0 }'
}
# t_field FIELD PATTERN...: FIELD of the first matching row
t_field() {
	fld=$1
	shift
	t_grep "$@" | head -n 1 | awk -v k="$fld" '{ for (i = 1; i <= NF; i++) { j = index($i, "=");
		if (j && substr($i, 1, j - 1) == k) print substr($i, j + 1) } }'
}
t_done() {
	[ "$T_FAILS" -eq 0 ] && exit 0
	echo "$T_FAILS checks failed"
	exit 1
}
# t_lost: sum of the lost.<table> meta values in $T/dump
t_lost() {
	awk '$1 == "meta" && $2 ~ /^lost\./ { split($2, a, "="); s += a[2] } END { print s + 0 }' "$T/dump"
}
# t_devno PATH: the device of PATH's file system as the trace stores it,
# the kernel's dev_t major << 20 | minor; t_disk PATH: the same for the
# whole disk under it (block requests name the disk, not the partition).
t_devno() {
	set -- $(stat -c '%Hd %Ld' "$1")
	echo $(($1 * 1048576 + $2))
}
t_disk() {
	set -- $(stat -c '%Hd %Ld' "$1")
	d=/sys/dev/block/$1:$2
	[ -e "$d/partition" ] && d=$d/..
	[ -r "$d/dev" ] || { echo 0; return; }
	IFS=: read -r ma mi <"$d/dev"
	echo $((ma * 1048576 + mi))
}
