#!/bin/sh
# compare_paths.sh - the "files" check of compare --check names the first
# differing file whatever its path holds: in JSON, a path that is not
# UTF-8 (its bytes become U+FFFD) and one whose 60-byte cut would split a
# character (cut before it) no longer make jansson drop the check (8 of 9
# checks were listed); in text, the path is escaped like every other
# (a newline and ESC cannot split or colour the CHECK line).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"	# jq_py

# pair NAME PATH: A reads 4096 bytes of PATH, B 4095: $T/NAME.a/.b.tape
pair() {
	printf 'ts_ns,tid,op,path,offset,size,dur_ns\n0,1,openat,"%s",0,0,1000\n2000,1,read,"%s",0,4096,1000\n' \
		"$2" "$2" >"$T/$1.a.csv"
	sed 's/,0,4096,1000$/,0,4095,1000/' "$T/$1.a.csv" >"$T/$1.b.csv"
	ok "$IOTAPE" import -o "$T/$1.a.tape" "$T/$1.a.csv"
	ok "$IOTAPE" import -o "$T/$1.b.tape" "$T/$1.b.csv"
}
# files_check NAME: compare --check, text and JSON; the JSON's files check
# detail in $T/detail
files_check() {
	run "$IOTAPE" compare --check "$T/$1.a.tape" "$T/$1.b.tape"
	[ "$rc" -eq 1 ] || fail "$1: --check exited $rc: $(cat "$T/err")"
	grep -aq '^  FAILED: 3 of 9 checks failed$' "$T/out" || fail "$1: text: $(cat "$T/out")"
	grep -a '^  FAIL files ' "$T/out" >"$T/text"
	run "$IOTAPE" compare --json --check "$T/$1.a.tape" "$T/$1.b.tape"
	[ "$rc" -eq 1 ] || fail "$1: --json --check exited $rc: $(cat "$T/err")"
	[ "$(jq_py "$T/out" "len(d['fidelity']['checks'])")" = 9 ] ||
		fail "$1: JSON checks: $(jq_py "$T/out" "[c['name'] for c in d['fidelity']['checks']]")"
	jq_py "$T/out" "[c for c in d['fidelity']['checks'] if c['name'] == 'files' and not c['ok']][0]['detail'].encode('unicode_escape').decode()" \
		>"$T/detail" || fail "$1: no failed files check in JSON"
}

# not UTF-8, with a newline and ESC
ESC=$(printf '\033')
pair bad "$(printf '/data/x\377\ny%s[31m.bin' "$ESC")"
files_check bad
grep -qF 'first: data/x\ufffd\ny\x1b[31m.bin)' "$T/detail" || fail "bad: JSON detail: $(cat "$T/detail")"
grep -aqF "$(printf 'first: data/x\377\\ny\\x1b[31m.bin)')" "$T/text" || fail "bad: text: $(cat "$T/text")"
[ "$(wc -l <"$T/text")" -eq 1 ] || fail "bad: text CHECK line split"

# the key is 59 bytes of ASCII, then e-acute (2 bytes): the cut at 60
# bytes keeps 59
a54=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
pair cut "$(printf '/data/%s\303\251tail.bin' "$a54")"
files_check cut
grep -qF "first: data/$a54...)" "$T/detail" || fail "cut: JSON detail: $(cat "$T/detail")"
grep -aqF "first: data/$a54...)" "$T/text" || fail "cut: text: $(cat "$T/text")"
exit 0
