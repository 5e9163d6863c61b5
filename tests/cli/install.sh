#!/bin/sh
# install: `make install DESTDIR=... PREFIX=/usr` puts libtape.so (with its
# soname links), tape.h, iotape.pc and the python package where they
# belong; pkg-config finds iotape.pc there; the C API example of the
# README compiles with `pkg-config --cflags --libs iotape`, links to
# libtape.so.0 (not a static copy) and reads a bundled trace; the
# library exports exactly the functions tape.h declares (format/libtape.map);
# the installed python package finds the installed library by itself.
. "$(dirname "$0")/lib.sh"

command -v pkg-config >/dev/null || skip "no pkg-config (apt-get install pkg-config)"
command -v cc >/dev/null || skip "no C compiler"
root=$T/root
[ "${SANITIZE:-}" = 1 ] && san="SANITIZE=1" || san=
make -C "$TOP" --no-print-directory -s install $san DESTDIR="$root" PREFIX=/usr >"$T/make.log" 2>&1 ||
	fail "make install: $(tail -n 5 "$T/make.log")"
for f in usr/bin/iotape usr/lib/libtape.so.0.1.0 usr/include/tape.h usr/lib/pkgconfig/iotape.pc \
	usr/lib/python3/dist-packages/iotape/__init__.py usr/lib/python3/dist-packages/iotape/_lib.py \
	usr/lib/python3/dist-packages/iotape/xform.py \
	usr/share/man/man5/iotape-format.5; do
	[ -f "$root/$f" ] || fail "make install: no $f"
done
[ "$(readlink "$root/usr/lib/libtape.so.0")" = libtape.so.0.1.0 ] || fail "libtape.so.0 link"
# A sanitized build's library (SANITIZE=1) needs the sanitizer runtimes
# loaded first by the programs below.
if ldd "$root/usr/lib/libtape.so.0.1.0" | grep -q libasan; then
	export LD_PRELOAD="$(ldd "$root/usr/lib/libtape.so.0.1.0" | awk '/libasan|libubsan/ { printf "%s ", $3 }')"
	export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
fi
[ "$(readlink "$root/usr/lib/libtape.so")" = libtape.so.0 ] || fail "libtape.so link"
readelf -d "$root/usr/lib/libtape.so.0.1.0" >"$T/dyn" || fail "readelf of libtape.so.0.1.0 failed"
grep -q 'SONAME.*\[libtape\.so\.0\]' "$T/dyn" || fail "soname is not libtape.so.0"

# pkg-config: the .pc says /usr; the sysroot points it into DESTDIR
pc=$root/usr/lib/pkgconfig
pkg-config --with-path "$pc" --exists iotape || fail "pkg-config does not find iotape"
grep -q '^prefix=/usr$' "$pc/iotape.pc" || fail "iotape.pc: $(cat "$pc/iotape.pc")"
[ "$(pkg-config --with-path "$pc" --modversion iotape)" = 0.1.0 ] || fail "iotape.pc version"
flags=$(PKG_CONFIG_SYSROOT_DIR=$root pkg-config --with-path "$pc" --cflags --libs iotape) ||
	fail "pkg-config --cflags --libs iotape"
case $flags in *"-I$root/usr/include"*"-L$root/usr/lib"*"-ltape"*) ;; *) fail "flags: $flags" ;; esac

# the README's C API example, compiled as a user would
awk '/^## C API/ { a = 1 } a && /^```c$/ { c = 1; next } c && /^```$/ { exit } c' "$TOP/README.md" >"$T/reads.c"
grep -q tape_cursor_next "$T/reads.c" || fail "no C example in the README's C API section"
# shellcheck disable=SC2086 # the flags are words
cc -Wall -Werror -o "$T/reads" "$T/reads.c" $flags 2>"$T/err" || fail "cc: $(cat "$T/err")"
readelf -d "$T/reads" >"$T/dyn" || fail "readelf of reads failed"
grep -q 'NEEDED.*\[libtape\.so\.0\]' "$T/dyn" || fail "reads is not linked to libtape.so.0"
LD_LIBRARY_PATH=$root/usr/lib "$T/reads" "$TOP/traces/image_folder.iotape" >"$T/out" 2>"$T/err" ||
	fail "reads exited $?: $(cat "$T/err")"
LD_LIBRARY_PATH=$root/usr/lib ldd "$T/reads" | grep -q "libtape.so.0 => $root/usr/lib/libtape.so.0" ||
	fail "reads does not load the installed library: $(ldd "$T/reads")"
# every successful read: as many as the trace's reads with ret > 0
"$IOTAPE" dump --format csv -o "$T/dump.csv" "$TOP/traces/image_folder.iotape" 2>"$T/err" ||
	fail "dump: $(cat "$T/err")"
want=$(awk -F, 'NR > 1 && $4 ~ /^(read|pread64|readv|preadv|preadv2)$/ && $9 > 0' "$T/dump.csv" | wc -l)
[ "$want" -gt 0 ] && [ "$(grep -c ' bytes at ' "$T/out")" -eq "$want" ] ||
	fail "reads printed $(wc -l <"$T/out") lines, want $want"

# the exported symbols are tape.h's functions, no more, no less
nm -D --defined-only "$root/usr/lib/libtape.so.0" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' |
	sort >"$T/exported"
tr -s ' \t' '\n\n' <"$TOP/format/tape.h" | sed -n 's/^\**\(tape_[a-z0-9_]*\)(.*/\1/p' | sort -u >"$T/declared"
[ -s "$T/declared" ] || fail "no functions found in tape.h"
cmp -s "$T/exported" "$T/declared" ||
	fail "libtape.so exports differ from tape.h (< exported, > declared): $(diff "$T/exported" "$T/declared" | grep '^[<>]' | tr '\n' ' ')"

# the installed python package, without IOTAPE_LIBTAPE, finds PREFIX/lib's
PY=/usr/bin/python3
if [ -x "$PY" ] && "$PY" -c 'import numpy' 2>/dev/null; then
	env -u IOTAPE_LIBTAPE PYTHONPATH="$root/usr/lib/python3/dist-packages" "$PY" -c '
import sys, iotape, iotape._lib as L
a = iotape.read_arrays(sys.argv[1], columns=["ts_ns"])
print(len(a["ts_ns"]), L.lib()._name)' "$TOP/traces/image_folder.iotape" >"$T/out" 2>"$T/err" ||
		fail "installed python package: $(cat "$T/err")"
	grep -q "$root/usr/lib/libtape.so.0" "$T/out" || fail "python loaded another library: $(cat "$T/out")"
fi
echo "reads: $want lines; $(wc -l <"$T/exported") functions exported"; exit 0
