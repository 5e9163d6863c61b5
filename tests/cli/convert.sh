#!/bin/sh
# convert: a real trace rewritten in format 1.1, --fast and 1.0 holds the
# same events (every table) and metadata; the sizes are ordered as the
# modes promise; bad input gets one error line and leaves nothing behind.
. "$(dirname "$0")/lib.sh"

src=$TOP/traces/image_folder.iotape
[ -f "$src" ] || fail "no $src"
tables="syscall block cache process file sample"
for t in $tables; do
	"$IOTAPE" dump --table "$t" --format jsonl "$src" >"$T/src.$t" || fail "dump $t"
done

for mode in 1.1 fast 1.0; do
	case $mode in
	1.1) set -- ;;
	fast) set -- --fast ;;
	1.0) set -- --format-version 1.0 ;;
	esac
	run "$IOTAPE" convert "$@" -o "$T/$mode.iotape" "$src"
	[ "$rc" -eq 0 ] || fail "convert $mode exited $rc: $(cat "$T/err")"
	grep -q "events, .* bytes/event), format" "$T/err" || fail "convert $mode: no summary"
	for t in $tables; do
		"$IOTAPE" dump --table "$t" --format jsonl "$T/$mode.iotape" >"$T/got.$t" ||
			fail "$mode: dump $t"
		same "$T/src.$t" "$T/got.$t"
	done
	ok "$IOTAPE" info --json "$T/$mode.iotape"
	v=$(sed -n 's/^  "format_version": "\(.*\)",$/\1/p' "$T/out")
	want=1.1
	[ "$mode" = 1.0 ] && want=1.0
	[ "$v" = "$want" ] || fail "$mode: format_version $v, want $want"
	# the metadata is copied key by key
	ok "$IOTAPE" info "$src"
	sed -n '/^meta/,$p' "$T/out" >"$T/meta.src"
	ok "$IOTAPE" info "$T/$mode.iotape"
	sed -n '/^meta/,$p' "$T/out" >"$T/meta.got"
	[ -s "$T/meta.src" ] || fail "$mode: no metadata in info's output"
	same "$T/meta.src" "$T/meta.got"
done
s11=$(wc -c <"$T/1.1.iotape")
sfast=$(wc -c <"$T/fast.iotape")
s10=$(wc -c <"$T/1.0.iotape")
[ "$s11" -lt "$sfast" ] || fail "1.1 ($s11 bytes) not smaller than --fast ($sfast)"
[ "$sfast" -le "$s10" ] || fail "--fast ($sfast bytes) larger than 1.0 ($s10)"

# a 1.0 file converts back to the same 1.1 file
ok "$IOTAPE" convert -q -o "$T/back.iotape" "$T/1.0.iotape"
same "$T/1.1.iotape" "$T/back.iotape"

# errors: one line, non-zero, nothing overwritten or left behind
cp "$T/1.1.iotape" "$T/keep.iotape"
err_line 1 "iotape convert: " "exists" "$IOTAPE" convert -o "$T/keep.iotape" "$src"
same "$T/1.1.iotape" "$T/keep.iotape"
err_line 1 "iotape convert: " "is the input" "$IOTAPE" convert -f -o "$T/keep.iotape" "$T/keep.iotape"
same "$T/1.1.iotape" "$T/keep.iotape"
err_line 1 "iotape convert: " "$T/none.iotape" "$IOTAPE" convert -o "$T/x.iotape" "$T/none.iotape"
err_line 2 "iotape convert: " "--level" "$IOTAPE" convert -l 0 -o "$T/x.iotape" "$src"
err_line 2 "iotape convert: " "1.1|1.0" "$IOTAPE" convert -V 2.0 -o "$T/x.iotape" "$src"
err_line 2 "iotape convert: " "-o" "$IOTAPE" convert "$src"
[ -e "$T/x.iotape" ] && fail "an output was left behind"
# a damaged block: the conversion stops, -f keeps the old output
size=$(wc -c <"$src")
cp "$src" "$T/bad.iotape"
printf '\377\377\377\377' | dd of="$T/bad.iotape" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
err_line 1 "iotape convert: " "bad.iotape" "$IOTAPE" convert -f -o "$T/keep.iotape" "$T/bad.iotape"
same "$T/1.1.iotape" "$T/keep.iotape"
ls "$T" | grep -q 'tmp' && fail "a temporary file was left behind: $(ls "$T")"

# -f writes through a temporary file: the result gets the mode a new trace
# gets (0644 less the umask), not the temporary's 0600
for m in 022 027; do
	rm -f "$T/new.iotape"
	(umask $m && "$IOTAPE" convert -q -o "$T/new.iotape" "$src") || fail "convert (umask $m)"
	(umask $m && "$IOTAPE" convert -q -f -o "$T/keep.iotape" "$src") || fail "convert -f (umask $m)"
	a=$(stat -c %a "$T/new.iotape") b=$(stat -c %a "$T/keep.iotape")
	[ "$a" = "$b" ] || fail "umask $m: -f gave mode $b, a new file $a"
done
[ "$b" = 640 ] || fail "umask 027: mode $b, want 640"
exit 0
