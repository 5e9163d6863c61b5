#!/bin/sh
# Every --format that `iotape import -h` offers is an importer, has its
# section in iotape-import(1) (.SS NAME) and its fuzz corpus
# (tests/fuzz/corpus/import_NAME, replayed by tests/run through
# fuzz_import_NAME); an unknown format is a usage error (exit 2) that
# leaves nothing behind.
. "$(dirname "$0")/lib.sh"

"$IOTAPE" import -h >"$T/help" 2>&1 || fail "import -h failed"
sed -n 's/.*--format=FORMAT .*(\([^)]*\)).*/\1/p' "$T/help" >"$T/choices" || fail "sed"
formats=$(tr '|' ' ' <"$T/choices")
[ -n "$formats" ] || fail "no format list in import -h: $(cat "$T/help")"
printf 'ts_ns,op\n' >"$T/in.csv"
for f in $formats; do
	grep -q "^\.SS $f\$" "$TOP/man/iotape-import.1" ||
		fail "format $f: no '.SS $f' section in man/iotape-import.1"
	ls "$TOP/tests/fuzz/corpus/import_$f" >"$T/corpus" 2>&1 && [ -s "$T/corpus" ] ||
		fail "format $f: no fuzz corpus tests/fuzz/corpus/import_$f"
	[ -f "$TOP/tests/fuzz/fuzz_import_$f.c" ] ||
		fail "format $f: no fuzz target tests/fuzz/fuzz_import_$f.c"
done

err_line 2 "iotape import: " "nosuch" \
	"$IOTAPE" import -F nosuch -o "$T/x.tape" "$T/in.csv"
[ -e "$T/x.tape" ] && fail "x.tape left behind by an unknown format"
exit 0
