#!/bin/sh
# The layers (README "Design", the Makefile's layer comment), checked on
# what the build made rather than on what the sources say:
#
#   format <- common <- {analyze, replay, import, record (+ bpf)} <- cli
#                          {analyze, replay} <- session <- cli
#                          {analyze, replay} <- export <- cli
#
# - symbols: nm of each module's objects ($OUT/MODULE/*.o): no undefined
#   symbol may be one a module it may not use defines (an extern
#   declaration needs no header), and no symbol is defined by two modules;
#   no test or bench program links a symbol of cli/, which is no library;
# - headers: what the compiler read (the -MMD dependency files, $OUT/**/*.d:
#   "..." and <...>, macro includes, any -I) and what the sources name
#   (#include "..." and <...>, code a configuration leaves out included):
#   a module includes its own headers and the public headers of the
#   modules it may use, never a private one (*_internal.h, rec.h, ...);
# - the Makefile gives each folder no -I beyond what it may include.
#
# The test-only path: tests/ and bench/ may use every library and include
# every public header, and of the private ones only those in TEST_PRIVATE
# below (white-box tests of the format's internals, the report's plots and
# its JSON rows, the BPF helpers of bench/bpffloor).
#
# Then the check proves itself: on a scratch copy of the tree and its
# objects it must pass, and fail on each violation planted there.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || fail "no $TOP"
OUT=$(dirname "${TESTBIN:-$TOP/.output/tests}")
[ -d "$OUT" ] || skip "no build in $OUT (run make all tests)"
command -v nm >/dev/null || skip "no nm (binutils)"

MODS="format common analyze replay import export record session cli"
# each module's interface (every header of common/ is)
PUBLIC="format/tape.h format/tape_vec.h common/*.h analyze/analyze.h replay/replay.h replay/rp_source.h replay/rp_hook.h
	replay/rp_engine.h replay/rp_report.h replay/rp_mpi.h session/session.h
	record/recorder.h import/import.h export/export.h bpf/record.h"
PUBLIC="$PUBLIC analyze/ana_compare.h"
TEST_PRIVATE="format/tape_internal.h analyze/ana_svg.h analyze/ana_rows.h bpf/record.bpf.h"

# may MODULE: the modules it may use (below it)
may() {
	case $1 in
	format | bpf) echo "" ;;
	common) echo "format" ;;
	analyze | replay | import) echo "common format" ;;
	export) echo "common format analyze replay" ;;
	record) echo "common format bpf" ;;
	session) echo "common format analyze replay" ;;
	cli) echo "common format analyze replay session record import export bpf" ;;
	esac
}
# check_symbols OUT: the symbol rules on OUT's objects and programs
check_symbols() {
	o=$1
	: >"$T/defs"
	: >"$T/undefs"
	for m in $MODS; do
		set -- "$o/$m"/*.o
		[ -f "$1" ] || { echo "$o/$m: no objects (run make)"; continue; }
		nm -A -g --defined-only "$@" >"$T/nm" 2>"$T/nm.err" || { echo "nm $o/$m: $(cat "$T/nm.err")"; continue; }
		awk -v m="$m" 'NF == 3 { print $3, m }' "$T/nm" >>"$T/defs"
		nm -A -u "$@" >"$T/nm" 2>"$T/nm.err" || { echo "nm -u $o/$m: $(cat "$T/nm.err")"; continue; }
		awk -v m="$m" -v o="$o/" '{ f = $1; sub(/:$/, "", f)
			if (index(f, o) == 1) f = substr(f, length(o) + 1)
			sub(/\.o$/, ".c", f); print $NF, m, f }' "$T/nm" >>"$T/undefs"
	done
	rules=""
	for m in $MODS; do rules="$rules$m:$(may "$m");"; done
	awk -v rules="$rules" '
	BEGIN { n = split(rules, r, ";")
		for (i = 1; i <= n; i++) { split(r[i], kv, ":"); ok[kv[1]] = " " kv[2] " "; lst[kv[1]] = kv[2] } }
	FNR == NR { if (($1 in def) && def[$1] != $2) dup[$1] = def[$1] "/ and " $2 "/"; def[$1] = $2; next }
	($1 in def) && def[$1] != $2 && index(ok[$2], " " def[$1] " ") == 0 {
		printf "%s: uses %s, defined in %s/ (%s/ may use: %s)\n", $3, $1, def[$1], $2, lst[$2] }
	END { for (s in dup) printf "%s is defined in both %s\n", s, dup[s] }' "$T/defs" "$T/undefs"
	# programs of the tests and benchmarks: the libraries, not cli/
	awk '$2 == "cli" && $1 != "main" { print $1 }' "$T/defs" | sort -u >"$T/clidefs"
	for b in "$o"/tests/* "$o"/bench/*; do
		[ -f "$b" ] && [ -x "$b" ] || continue
		nm -g --defined-only "$b" 2>/dev/null | awk '{ print $NF }' | sort -u >"$T/bdefs"
		comm -12 "$T/bdefs" "$T/clidefs" | sed "s|^|${b#"$o"/}: links |; s|\$|, of cli/ (no library)|"
	done
}

# check_headers OUT: the header rules on the sources of the tree (the
# current directory) and the dependency files of OUT, in one awk program:
# each #include "..." or <...> of a source is resolved as the compiler
# would against every module's folder (so a wrong -I is no way around it),
# each header of a dependency file (its first rule: the object's) is taken
# as it is, and both go through the same rule.
check_headers() {
	o=$1
	find $MODS bpf tests/unit tests/lib tests/helpers tests/fuzz bench -maxdepth 1 \
		\( -name '*.c' -o -name '*.h' \) >"$T/srcs"
	find "$o" -name '*.d' ! -path "$o/pic/*" ! -path "$o/fuzz/*" >"$T/deps"
	[ -s "$T/deps" ] || echo "$o: no dependency files (run make)"
	rules=""
	for m in $MODS bpf; do rules="$rules$m:$(may "$m");"; done
	# shellcheck disable=SC2046 # the tree's paths have no blanks
	awk -v o="$o/" -v rules="$rules" -v tp="$TEST_PRIVATE" -v pub="$PUBLIC" -v pwd="$PWD/" '
	function norm(p,   n, i, k, w, out, st) {
		n = split(p, w, "/"); k = 0
		for (i = 1; i <= n; i++) {
			if (w[i] == "" || w[i] == ".") continue
			if (w[i] == ".." && k > 0 && st[k] != "..") { k--; continue }
			st[++k] = w[i]
		}
		out = ""
		for (i = 1; i <= k; i++) out = out (i > 1 ? "/" : "") st[i]
		return out
	}
	function bad(msg) { if (!(msg in said)) { said[msg] = 1; print msg } }
	function public(h,   d) {
		d = h; sub(/\/[^\/]*$/, "/*.h", d)
		return h in pubh || (d in pubh && h ~ /\.h$/)
	}
	function rule(from, file, h,   owner) {
		owner = h; sub(/\/.*/, "", owner)
		if (owner == from) return
		if (from == "tests" || from == "bench") {
			if (owner == "gen") return
			if (owner == "tests" || owner == "bench" || owner == "cli") {
				bad(file ": includes " h " (of " owner "/)"); return }
			if (public(h) || h in testpriv) return
			bad(file ": includes " h ", a private header of " owner "/ (the tests\x27 path has: " tp ")")
			return
		}
		if (owner == "gen") {
			if (from == "record" || from == "cli" || from == "bpf") return
			bad(file ": includes the generated " substr(h, 5)); return
		}
		if (!(owner in ok)) { bad(file ": reads " h ", of no module"); return }
		if (index(ok[from], " " owner " ") == 0) {
			bad(file ": includes " h " (" from "/ may include from: " lst[from] ")"); return }
		if (!public(h)) bad(file ": includes " h ", a private header of " owner "/")
	}
	# the header #include spec of file names: its tree path, gen/NAME,
	# "" (the system'\''s) or "?" (nobody'\''s)
	function resolve(file, spec,   q, n, dir, c, i) {
		q = substr(spec, 1, 1); n = substr(spec, 2, length(spec) - 2)
		dir = file; sub(/\/[^\/]*$/, "", dir)
		if (q == "\"" && norm(dir "/" n) in has) return norm(dir "/" n)
		for (i = 1; i <= nd; i++)
			if (norm(dirs[i] "/" n) in has) return norm(dirs[i] "/" n)
		if (n ~ /\.skel\.h$/ || n ~ /(^|\/)vmlinux\.h$/) { sub(/.*\//, "", n); return "gen/" n }
		return q == "\"" ? "?" : ""
	}
	BEGIN {
		n = split(rules, r, ";")
		for (i = 1; i <= n; i++) if (r[i] != "") {
			split(r[i], kv, ":"); ok[kv[1]] = " " kv[2] " "; lst[kv[1]] = kv[2] }
		nd = split("format common analyze replay import export record session cli bpf", dirs, " ")
		n = split(pub, w, /[ \t\n]+/)
		for (i = 1; i <= n; i++) pubh[w[i]] = 1
		n = split(tp, w, " ")
		for (i = 1; i <= n; i++) testpriv[w[i]] = 1
	}
	FILENAME == ARGV[1] { has[$0] = 1; next }
	FNR == 1 {
		file = FILENAME; dep = file ~ /\.d$/; done = 0
		if (dep) { if (index(file, o) == 1) file = substr(file, length(o) + 1); sub(/\.d$/, ".c", file) }
		from = file; sub(/\/.*/, "", from)
	}
	dep {
		if (done) next
		line = $0; sub(/\\$/, "", line); n = split(line, w, /[ \t]+/)
		for (i = 1; i <= n; i++) {
			h = w[i]
			if (h !~ /\.h$/) continue
			if (h ~ /\.skel\.h$/ || h ~ /(^|\/)vmlinux\.h$/) { sub(/.*\//, "", h); rule(from, file, "gen/" h); continue }
			if (index(h, pwd) == 1) h = substr(h, length(pwd) + 1)
			else if (h ~ /^\//) continue	# outside the tree: a library -I
			rule(from, file, norm(h))
		}
		if ($0 !~ /\\$/) done = 1
		next
	}
	/^[ \t]*#[ \t]*include[ \t]*["<]/ {
		s = $0; sub(/^[ \t]*#[ \t]*include[ \t]*/, "", s)
		if (!match(s, /^("[^"]*"|<[^>]*>)/)) next
		spec = substr(s, 1, RLENGTH)
		if (from != "tests" && from != "bench" && spec ~ /^".*(\/|\.\.)/) {
			bad(file ": includes " spec " (a path: name the header, the Makefile\x27s -I finds it)")
			next
		}
		h = resolve(file, spec)
		if (h == "?") bad(file ": includes " spec ", which no module has")
		else if (h != "") rule(from, file, h)
	}' "$T/srcs" $(cat "$T/srcs") $(cat "$T/deps")
}

# check_flags TREE: the Makefile's -I of each folder
check_flags() {
	for m in $MODS; do
		inc=$(sed -n "s/^INC_$m[[:space:]]*:=//p" "$1/Makefile")
		[ -n "$inc" ] || [ "$m" = format ] || { echo "Makefile: no INC_$m"; continue; }
		for i in $inc; do
			d=${i#-I}
			case $d in
			'$(OUT)') case $m in record | cli) continue ;; esac ;;
			"$m") continue ;;
			esac
			echo " $(may "$m") " | grep -q " $d " ||
				echo "Makefile: INC_$m has $i ($m may include from: $(may "$m"))"
		done
	done
}

# check TREE OUT: every rule; the lines broken in $T/bad
check() {
	{
		check_symbols "$2"
		(cd "$1" && check_headers "$2")
		check_flags "$1"
	} >"$T/bad" 2>&1
	[ ! -s "$T/bad" ]
}

check "$TOP" "$OUT" || fail "layering: $(cat "$T/bad")"

# ---------------------------------------------------------- the self-check
# A scratch copy: the sources (.c, .h, the Makefile) and links to the
# objects, dependency files and programs of the build.
S=$T/tree
SO=$T/out
mkdir -p "$S" "$SO" || fail "mkdir"
find $MODS bpf tests/unit tests/lib tests/helpers tests/fuzz bench -maxdepth 1 \
	\( -name '*.c' -o -name '*.h' \) >"$T/files" || fail "find"
tar -cf - -T "$T/files" Makefile | tar -xf - -C "$S" || fail "copying the tree"
(cd "$OUT" && find . -path ./pic -prune -o -path ./fuzz -prune -o \
	\( -name '*.o' -o -name '*.d' -o -path './tests/*' -type f -perm -u+x -o \
	-path './bench/*' -type f -perm -u+x \) -print) >"$T/built" || fail "find $OUT"
while read -r f; do
	mkdir -p "$SO/$(dirname "$f")" && ln -s "$OUT/$f" "$SO/$f" || fail "linking $f"
done <"$T/built"
check "$S" "$SO" || fail "the self-check's clean copy fails: $(cat "$T/bad")"

CC=${CC:-cc}
command -v "$CC" >/dev/null || skip "no C compiler for the self-check"
inc() { sed -n "s/^INC_$1[[:space:]]*:=//p" Makefile; }
# one global function of MODULE's objects
sym_of() { nm -g --defined-only "$OUT/$1"/*.o | awk '$2 == "T" { print $3; exit }'; }
ana=$(sym_of analyze)
rp=$(sym_of replay)
clisym=$(nm -g --defined-only "$OUT"/cli/*.o | awk '$2 == "T" && $3 != "main" { print $3; exit }')
[ -n "$ana" ] && [ -n "$rp" ] && [ -n "$clisym" ] || fail "no symbols of analyze/, replay/, cli/"

# plant NAME FOLDER WANT SOURCE: SOURCE as FOLDER/planted.c of the copy,
# compiled with that folder's flags into its objects (with its dependency
# file); the check must fail with WANT among its lines; then it is taken
# out again.
plant() {
	name=$1 dir=$2 want=$3
	printf '%s\n' "$4" >"$S/$dir/planted.c"
	mkdir -p "$SO/$dir"
	m=${dir%%/*}
	(cd "$S" && $CC -c -std=gnu11 $(inc "$m") -MMD -MF "$SO/$dir/planted.d" \
		-o "$SO/$dir/planted.o" "$dir/planted.c") 2>"$T/cc.err" ||
		fail "self-check $name: the planted file does not build: $(cat "$T/cc.err")"
	check "$S" "$SO" && fail "self-check $name: the check passes a tree with $dir/planted.c"
	grep -qF -- "$want" "$T/bad" ||
		fail "self-check $name: no '$want' in what the check says: $(cat "$T/bad")"
	[ "${V-}" = 1 ] && sed "s/^/$name: /" "$T/bad" >&2
	rm -f "$S/$dir/planted.c" "$SO/$dir/planted.o" "$SO/$dir/planted.d"
}

plant sideways-call replay "replay/planted.c: uses $ana, defined in analyze/" \
	"extern int $ana(void); int rp_planted(void) { return $ana(); }"
plant upward-call common "common/planted.c: uses $rp, defined in replay/" \
	"extern int $rp(void); int cm_planted(void) { return $rp(); }"
plant angle-include replay "replay/planted.c: includes format/tape_internal.h, a private header of format/" \
	"#include <tape_internal.h>
int rp_planted;"
plant macro-include replay "replay/planted.c: includes format/tape_internal.h, a private header of format/" \
	"#define H <tape_internal.h>
#include H
int rp_planted;"
plant path-include replay 'replay/planted.c: includes "../analyze/analyze.h" (a path' \
	'#include "../analyze/analyze.h"
int rp_planted;'
plant sibling-private analyze "analyze/planted.c: includes replay/rp_mpi.h (analyze/ may include from: common format)" \
	"#ifdef NEVER
#include \"rp_mpi.h\"
#endif
int ana_planted;"
plant test-private tests/unit "tests/unit/planted.c: includes import/imp_text.h, a private header of import/" \
	'#include "imp_text.h"
int t_planted;'
plant duplicate import "$rp is defined in both" "int $rp(void) { return 0; }"

# a test program that links cli/
printf 'int %s(void) { return 0; }\nint main(void) { return %s(); }\n' "$clisym" "$clisym" >"$T/p.c"
mkdir -p "$SO/tests"
$CC -o "$SO/tests/planted" "$T/p.c" 2>"$T/cc.err" || fail "self-check: $(cat "$T/cc.err")"
check "$S" "$SO" && fail "self-check test-links-cli: the check passes a test program with $clisym"
grep -qF "tests/planted: links $clisym, of cli/" "$T/bad" || fail "self-check test-links-cli: $(cat "$T/bad")"
rm -f "$SO/tests/planted"

# a folder given a -I it may not have
sed 's/^INC_replay[[:space:]]*:=.*/& -Ianalyze/' Makefile >"$S/Makefile" || fail "sed"
check "$S" "$SO" && fail "self-check makefile: the check passes INC_replay with -Ianalyze"
grep -qF "Makefile: INC_replay has -Ianalyze" "$T/bad" || fail "self-check makefile: $(cat "$T/bad")"
cp Makefile "$S/Makefile" || fail "cp"
check "$S" "$SO" || fail "self-check: the copy fails once cleaned up: $(cat "$T/bad")"
exit 0
