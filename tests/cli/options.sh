#!/bin/sh
# options.sh - the typed option tables (cli/opt.h, common/parse.h): every
# number of every command refuses NaN, infinities, negatives,
# values out of its range and garbage with exit 2 and one line naming the
# option, the value and the range; takes good values, its bounds included;
# -h shows the defaults, and replay stores them.
. "$(dirname "$0")/lib.sh"

printf '%s\n' 'ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns' \
	'1000,10,10,openat,/data/a,-100,0,0,3,1000' \
	'2000,10,10,read,/data/a,3,0,4096,4096,1000' \
	'3000,10,10,close,/data/a,3,0,0,0,500' >"$T/a.csv"
ok "$IOTAPE" import -o "$T/a.tape" "$T/a.csv"

# bad CMD OPTION WHY VALUE...: each VALUE of --OPTION is refused with exit 2
# and the one line "iotape CMD: --OPTION: 'VALUE' is WHY (see ...)"
bad() {
	c=$1 o=$2 why=$3
	shift 3
	for v in "$@"; do
		msg="--$o: '$v' is $why (see 'iotape $c -h')"
		case $c in
		analyze) err_line 2 "iotape $c: " "$msg" "$IOTAPE" $c "--$o" "$v" "$T/a.tape" ;;
		compare) err_line 2 "iotape $c: " "$msg" "$IOTAPE" $c "--$o" "$v" "$T/a.tape" "$T/a.tape" ;;
		anonymize) err_line 2 "iotape $c: " "$msg" "$IOTAPE" $c "--$o" "$v" -o "$T/c.tape" "$T/a.tape" ;;
		convert) err_line 2 "iotape $c: " "$msg" "$IOTAPE" $c "--$o" "$v" -o "$T/c.tape" "$T/a.tape" ;;
		split) err_line 2 "iotape $c: " "$msg" "$IOTAPE" $c --by time "--$o" "$v" -o "$T/s" "$T/a.tape" ;;
		replay) err_line 2 "iotape $c: " "$msg" "$IOTAPE" $c "--$o" "$v" -d "$T/d" "$T/a.tape" ;;
		record) err_line 2 "iotape $c: " "$msg" "$IOTAPE" $c -o "$T/r.tape" "--$o" "$v" -- true ;;
		*) fail "bad: no command line for $c" ;;
		esac
	done
}
NONNUM="nan NaN -nan inf -inf infinity 1e400 x 1x 0x"	# never numbers of a range

bad replay speed "not a number from 0.001 to 1000000" $NONNUM '' -1 0 1e-300 0.0009 1000001 1e7
bad replay compute-scale "not a number from 0 to 1000" $NONNUM '' -1 -0.001 1000.5 1e6
bad replay iodepth "not a number from 1 to 65536" $NONNUM '' -1 0 65537 4294967296 1.5 '1 '
bad replay loops "not a number from 1 to 65536" $NONNUM -1 0 65537 99999999999999999999 2.0
bad replay scale-dataset "not a number from 1 to 1024" $NONNUM -1 0 1025
bad replay mem-limit "not a size of at least 8m (a number with k, m, g or t)" \
	$NONNUM '' -1 -1k 0 1k 8191k 1.5g 12q 16MB. 99999999999t
bad analyze top "not a number from 0 to 4294967295" $NONNUM -1 4294967296 1.5
bad analyze pid "not a number from 0 to 4294967295" $NONNUM -1 4294967296 1e3
bad analyze from "not a time (e.g. 12, 1.5s, 250ms)" nan inf -1 -1s 5x 1e400 '' 1sec '1 s'
bad analyze to "not a time (e.g. 12, 1.5s, 250ms)" nan inf -inf -0.5ms 1y 1e30h
bad anonymize keep-dirs "not a number from 0 to 4096" $NONNUM -1 4097
bad compare top "not a number from 0 to 4294967295" $NONNUM -1 4294967296 1.5
bad convert level "not a number from 1 to 19" $NONNUM -1 0 20 1.5
bad split parts "not a number from 1 to 10000" $NONNUM -1 0 10001
bad record duration "not a number from 0.001 to 1000000000" $NONNUM '' -1 0 0.0009 2e9
bad record buffer "not a number from 0.004 to 4096" $NONNUM '' -1 0 0.001 4097
[ ! -e "$T/r.tape" ] || fail "a usage error of record created the trace"
# the short form and --name=value say the same
err_line 2 "iotape convert: " "--level: '0' is not a number from 1 to 19" \
	"$IOTAPE" convert -l0 -o "$T/c.tape" "$T/a.tape"
err_line 2 "iotape replay: " "--speed: 'nan' is not a number" \
	"$IOTAPE" replay --speed=nan -d "$T/d" "$T/a.tape"
[ ! -e "$T/d" ] || fail "a usage error created DIR"
[ ! -e "$T/c.tape" ] || fail "a usage error created the output"

# an empty file, directory or name: refused (exit 2, one line naming the
# option), nothing made: "-o ''" is never a file, "--cgroup ''" not a cgroup
empty() {	# CMD OPTION ARGNAME ARGS...
	c=$1 o=$2 what=$3
	shift 3
	err_line 2 "iotape $c: " "$o: an empty $what (see 'iotape $c -h')" "$IOTAPE" $c "$@"
}
empty record --output TRACE -f -o '' -- true
empty record --cgroup PATH --cgroup '' --duration 1
empty replay --dir DIR -d '' "$T/a.tape"
empty replay --output FILE -d "$T/e" -o '' "$T/a.tape"
empty replay --burst-buffer FAST_DIR -d "$T/e" --burst-buffer '' "$T/a.tape"
empty replay --stage-hot FAST_DIR -d "$T/e" --stage-hot '' --stage-size 1m "$T/a.tape"
empty whatif --output FILE -d "$T/e" -o '' "$T/a.tape"
empty whatif --fast FAST_DIR -d "$T/e" --fast '' "$T/a.tape"
empty anonymize --output TRACE -o '' "$T/a.tape"
empty anonymize --key FILE --key '' -o "$T/c.tape" "$T/a.tape"
empty convert --output TRACE -o '' "$T/a.tape"
empty split --output PREFIX --by time -o '' "$T/a.tape"
empty dump --output FILE -o '' "$T/a.tape"
[ ! -e "$T/e" ] || fail "an empty option value made DIR"
[ ! -e "$T/c.tape" ] || fail "an empty option value made the output"

# good values, the bounds included
ok "$IOTAPE" analyze --top 5 --from 0.5us --to 1h --pid 10 "$T/a.tape"
ok "$IOTAPE" analyze --top 0 --from 0 --to 2m --pid 4294967295 --json "$T/a.tape"
ok "$IOTAPE" analyze --top 4294967295 --from +1ns --to 1e3s "$T/a.tape"
ok "$IOTAPE" compare --top 0 "$T/a.tape" "$T/a.tape"
ok "$IOTAPE" compare --top 4294967295 "$T/a.tape" "$T/a.tape"
ok "$IOTAPE" convert -q -l 19 -o "$T/c19.tape" "$T/a.tape"
ok "$IOTAPE" convert -q --level=1 -o "$T/c1.tape" "$T/a.tape"
ok "$IOTAPE" replay --prepare-only --speed 1000000 --compute-scale 1000 --iodepth 1 \
	--loops 65536 --scale-dataset 2 -d "$T/p1" "$T/a.tape"
ok "$IOTAPE" replay --prepare-only --speed 0.001 --compute-scale 0 --iodepth 65536 \
	--loops 1 --scale-dataset 1024 --sparse -d "$T/p2" "$T/a.tape"
if [ "$(id -u)" = 0 ]; then
	ok "$IOTAPE" replay --prepare-only --mem-limit 8m -d "$T/p3" "$T/a.tape"
	ok "$IOTAPE" replay --prepare-only --mem-limit 1TiB -d "$T/p3" "$T/a.tape"
else
	err_line 1 "iotape replay: " "--mem-limit needs root" \
		"$IOTAPE" replay --prepare-only --mem-limit 8m -d "$T/p3" "$T/a.tape"
fi

# -h: the defaults, one per typed option that has one
# has CMD OPTION DEFAULT: `iotape CMD -h` shows "--OPTION... [default: DEFAULT]"
has() {
	"$IOTAPE" "$1" -h >"$T/h" || fail "$1 -h exited $?"
	grep -q -- "--$2[= ].*\[default: $3\]\$" "$T/h" || fail "$1 -h: no default '$3' for --$2"
}
has replay timing think
has replay speed 1
has replay compute-scale 1
has replay iodepth 32
has replay loops '1; K with --scale-dataset'
has replay scale-dataset 1
has replay output-format normal
has analyze top '20; all in JSON'
has analyze from 0
has analyze threads 2
has compare top '20; all in JSON'
has convert format-version 1.1
has convert level 1
has anonymize keep-dirs 0
has dump format text
has dump table 'all; syscall for csv'
has import format csv
has import table syscall

# replay stores them (its report says what it ran with)
"$IOTAPE" replay --output-format json -o "$T/r.json" -d "$T/r" "$T/a.tape" 2>"$T/err"
rc=$?
if [ $rc -ne 0 ] && grep -q io_uring "$T/err"; then
	skip "io_uring unavailable: $(cat "$T/err")"
fi
[ $rc -eq 0 ] || fail "replay with the defaults exited $rc: $(cat "$T/err")"
for kv in '"timing": "think"' '"speed": 1.0' '"compute_scale": 1.0' '"iodepth": 32' \
	'"loops": 1' '"scale_dataset": 1'; do
	grep -q "^ *$kv,\$" "$T/r.json" || fail "replay defaults: no $kv in the report"
done
exit 0
