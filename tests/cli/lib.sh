# tests/cli/lib.sh - helpers sourced by the CLI tests (POSIX sh).
#
# tests/run sets IOTAPE (the binary) and TOP (the repository root).  Each
# test works in its own mktemp -d directory $T, removed on exit, and exits
# 0 pass, 1 fail, 77 skip.

: "${TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${IOTAPE:=$TOP/iotape}"
if [ ! -x "$IOTAPE" ]; then
	echo "no iotape binary at $IOTAPE (run make)" >&2
	exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/iotape-cli.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "$*" >&2
	exit 77
}

# run CMD ARGS...: output in $T/out and $T/err, status in $rc.
run() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
}

# ok CMD ARGS...: must exit 0 with nothing on stderr.
ok() {
	run "$@"
	[ "$rc" -eq 0 ] || fail "'$*' exited $rc: $(cat "$T/err")"
	[ -s "$T/err" ] && fail "'$*' wrote to stderr: $(cat "$T/err")"
	return 0
}

# err_line RC PREFIX PATTERN CMD ARGS...: exit status RC and exactly one
# line on stderr that starts with PREFIX and contains PATTERN (fixed string).
err_line() {
	want=$1 prefix=$2 pattern=$3
	shift 3
	run "$@"
	[ "$rc" -eq "$want" ] || fail "'$*' exited $rc, want $want ($(cat "$T/err"))"
	n=$(wc -l <"$T/err")
	[ "$n" -eq 1 ] || fail "'$*' printed $n lines on stderr, want 1: $(cat "$T/err")"
	case $(cat "$T/err") in
	"$prefix"*) ;;
	*) fail "'$*' stderr does not start with '$prefix': $(cat "$T/err")" ;;
	esac
	grep -qF -- "$pattern" "$T/err" || fail "'$*' stderr lacks '$pattern': $(cat "$T/err")"
	return 0
}

# import_bad FORMAT INPUT LINE PATTERN: iotape import -F FORMAT of INPUT
# refuses it: exit 1, one stderr line "iotape import: INPUT:LINE: ..." that
# holds PATTERN, and no trace left behind.
import_bad() {
	imp_fmt=$1 imp_in=$2
	rm -f "$T/bad.tape"
	err_line 1 "iotape import: $imp_in:$3: " "$4" \
		"$IOTAPE" import -F "$imp_fmt" -o "$T/bad.tape" "$imp_in"
	[ -e "$T/bad.tape" ] && fail "bad.tape left behind ($4)"
	return 0
}

# sorted OUT CMD...: CMD's output, sorted, in OUT (CMD's exit status is
# checked, which CMD | sort >OUT would lose).
sorted() {
	sorted_out=$1
	shift
	"$@" >"$sorted_out.unsorted" || fail "'$*' exited $?"
	sort "$sorted_out.unsorted" >"$sorted_out" || fail "sort $sorted_out.unsorted"
	rm -f "$sorted_out.unsorted"
}

# same EXPECTED ACTUAL: files byte-identical.
same() {
	cmp -s "$1" "$2" && return 0
	diff "$1" "$2" | head -n 20 >&2
	fail "$2 differs from $1"
}

# roundtrip CSV TABLE: import CSV, dump it again, compare byte for byte;
# then import that dump and dump once more.
roundtrip() {
	csv=$1 table=$2 base=$T/rt.$2
	rm -f "$base".tape "$base".2.tape
	ok "$IOTAPE" import --table "$table" -o "$base.tape" "$csv"
	ok "$IOTAPE" dump --format csv --table "$table" -o "$base.csv" "$base.tape"
	same "$csv" "$base.csv"
	# a pipe as import's stdin; the dump's status checked too, not only
	# the import's (sh has no pipefail)
	rm -f "$T/dump.rc"
	{ "$IOTAPE" dump --format csv --table "$table" "$base.tape" ||
		echo $? >"$T/dump.rc"; } |
		"$IOTAPE" import --table "$table" -o "$base.2.tape" - ||
		fail "dump | import: import failed for $table"
	[ -e "$T/dump.rc" ] && fail "dump | import: dump exited $(cat "$T/dump.rc") for $table"
	ok "$IOTAPE" dump --format csv --table "$table" -o "$base.2.csv" "$base.2.tape"
	same "$csv" "$base.2.csv"
}

# mpi_lsan: under the sanitizers (make check SANITIZE=1), leave out the
# leaks of Open MPI's own allocations, which live until exit (full stacks:
# fast unwinding stops in its libraries); ours are still found
mpi_lsan() {
	cat >"$T/lsan.supp" <<EOS || fail "writing $T/lsan.supp"
leak:libmpi.so
leak:libopen-pal.so
leak:libopen-rte.so
leak:libpmix.so
leak:libhwloc.so
leak:libevent
leak:mca_
EOS
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0
	LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$T/lsan.supp:print_suppressions=0
	OMPI_MCA_mca_base_component_disable_dlclose=1	# components named in stacks
	export ASAN_OPTIONS LSAN_OPTIONS OMPI_MCA_mca_base_component_disable_dlclose
}
