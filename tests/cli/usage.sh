#!/bin/sh
# Top-level usage, help, version, and the one-line errors of bad command
# lines; each man page SYNOPSIS agrees with the command's -h usage line, and
# its NAME line with the command's summary in -h and in `iotape -h`.
. "$(dirname "$0")/lib.sh"

ok "$IOTAPE" -h
grep -q '^usage: iotape ' "$T/out" || fail "-h: no usage line"
for c in record info dump import convert anonymize analyze compare report replay model export whatif help; do
	grep -q "^   $c " "$T/out" || fail "-h does not list $c"
done
cp "$T/out" "$T/help1"
ok "$IOTAPE" --help
same "$T/help1" "$T/out"
ok "$IOTAPE"
same "$T/help1" "$T/out"
ok "$IOTAPE" --version
grep -q '^iotape version [0-9]' "$T/out" || fail "--version: $(cat "$T/out")"

for c in record info dump import convert anonymize analyze compare report replay model export whatif; do
	ok "$IOTAPE" "$c" -h
	cp "$T/out" "$T/h.$c"
	ok "$IOTAPE" help -u "$c"
	head -n "$(wc -l <"$T/h.$c")" "$T/out" >"$T/hh.$c"
	same "$T/h.$c" "$T/hh.$c"
	[ "$(tail -n 1 "$T/out")" = "See iotape-$c(1)." ] || fail "help -u $c: no man page pointer"
	# without -u: the manual page itself (rendered by man, no pager off a tty)
	C=$(echo "$c" | tr a-z A-Z)
	ok "$IOTAPE" help "$c"
	case $(head -n 1 "$T/out") in "IOTAPE-$C(1) "*) ;; *) fail "help $c: not the man page: $(head -n 1 "$T/out")" ;; esac
	grep -q "^SYNOPSIS" "$T/out" || fail "help $c: no SYNOPSIS"

	# SYNOPSIS of the man page = the usage line
	man=$TOP/man/iotape-$c.1
	[ -f "$man" ] || fail "no $man"
	usage=$(head -n 1 "$T/h.$c" | sed 's/^usage: //')
	syn=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH/p' "$man" | sed '1d;$d; s/^\.[BI] //' |
		sed 's/\\-/-/g; s/\\f[BIRP]//g' | tr -s ' \n' ' ' | sed 's/ $//')
	[ "$syn" = "$usage" ] || fail "$c: man SYNOPSIS '$syn' != usage '$usage'"

	# NAME of the man page = the summary of iotape -h = the sentence of -h
	name=$(sed -n '/^\.SH NAME/{n;p;}' "$man" | sed 's/^.*\\- //')
	sum=$(sed -n "s/^   $c  *//p" "$T/help1")
	[ "$sum" = "$name" ] || fail "$c: man NAME '$name' != iotape -h '$sum'"
	sum=$(awk 'NR == 3 { s = tolower(substr($0, 1, 1)) substr($0, 2); sub(/\.$/, "", s); print s }' "$T/h.$c")
	[ "$sum" = "$name" ] || fail "$c: man NAME '$name' != '$c -h' '$sum'"
done

run "$IOTAPE" foo
[ "$rc" -eq 1 ] || fail "unknown command exited $rc"
[ "$(cat "$T/err")" = "iotape: 'foo' is not an iotape command. See 'iotape -h'." ] ||
	fail "unknown command: $(cat "$T/err")"
err_line 1 "iotape: " "'bar' is not an iotape command" "$IOTAPE" help bar

err_line 2 "iotape dump: " "--bogus" "$IOTAPE" dump --bogus x.tape
err_line 2 "iotape info: " "-z" "$IOTAPE" info -z x.tape
err_line 2 "iotape info: " "'--json' takes no argument" "$IOTAPE" info --json=1 x.tape
ok "$IOTAPE" help
same "$T/help1" "$T/out"
ok "$IOTAPE" help format
case $(head -n 1 "$T/out") in "IOTAPE-FORMAT(5) "*) ;; *) fail "help format: $(head -n 1 "$T/out")" ;; esac
err_line 2 "iotape help: " "'-x'" "$IOTAPE" help -x replay
err_line 2 "iotape dump: " "xml" "$IOTAPE" dump --format xml x.tape
err_line 2 "iotape dump: " "nosuch" "$IOTAPE" dump --table nosuch x.tape
err_line 2 "iotape import: " "nosuch" "$IOTAPE" import --table nosuch -o x.tape x.csv
err_line 2 "iotape dump: " "needs an argument" "$IOTAPE" dump x.tape -o
err_line 2 "iotape info: " "missing TRACE" "$IOTAPE" info
err_line 2 "iotape info: " "2 arguments" "$IOTAPE" info a b
err_line 2 "iotape import: " "-o" "$IOTAPE" import x.csv
err_line 1 "iotape info: " "$T/none.tape" "$IOTAPE" info "$T/none.tape"
err_line 1 "iotape dump: " "$T/none.tape" "$IOTAPE" dump "$T/none.tape"
err_line 1 "iotape import: " "$T/none.csv" "$IOTAPE" import -o "$T/x.tape" "$T/none.csv"
[ -e "$T/x.tape" ] && fail "import of a missing file left $T/x.tape"
printf 'not a trace\n' >"$T/text"
err_line 1 "iotape info: " "not an iotape trace" "$IOTAPE" info "$T/text"

# stdout is checked at exit
if [ -w /dev/full ]; then
	printf 'ts_ns,op,path\n1,openat,/a\n' >"$T/a.csv"
	ok "$IOTAPE" import -o "$T/a.tape" "$T/a.csv"
	"$IOTAPE" dump "$T/a.tape" >/dev/full 2>"$T/err" && fail "write to /dev/full succeeded"
	grep -q "^iotape dump: write error" "$T/err" || fail "/dev/full: $(cat "$T/err")"
	"$IOTAPE" -h >/dev/full 2>/dev/null && fail "-h to /dev/full succeeded"
fi
exit 0
