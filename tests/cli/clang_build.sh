#!/bin/sh
# clang_build.sh: the trace library compiles with clang as well as gcc.
# `make fuzz` builds the libFuzzer target with clang, which `make check`
# does not run; a GCC-only construct in format/ (once:
# __builtin_cpu_supports("lzcnt")) broke it unnoticed.  This compiles every
# format/*.c with clang, as the fuzz build does, without linking.
. "$(dirname "$0")/lib.sh"
command -v clang >/dev/null 2>&1 || skip "no clang (make deps installs it)"
for f in "$TOP"/format/*.c; do
	clang -fsyntax-only -Wall -Werror -D_GNU_SOURCE -I"$TOP/format" "$f" 2>"$T/err" ||
		fail "clang cannot compile ${f#$TOP/}: $(head -n 3 "$T/err")"
done
exit 0
