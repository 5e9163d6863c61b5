#!/bin/sh
# replay_marker_link.sh - prepare never writes through a hard link planted
# in DIR (issue #27, item 12).
#
# `ln /tmp/victim d/.iotape-replay; iotape replay --prepare-only -d d t`
# overwrote the victim: prepare rewrote the marker in place (and the first
# replay truncated it).  The marker, like every file prepare makes, is now
# written under a temporary name and renamed over its path: the link is
# replaced, the victim keeps its bytes and its link count goes back to 1.
# In --dir, in a --place directory and in a --stage-hot directory; and a
# prepared file that is a planted link is refused, as before.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

printf '%s\n%s\n%s\n%s\n%s\n' "$HDR" \
	'1000,1,1,openat,/data/a.bin,-1,0,0,3,10,0,' \
	'2000,1,1,pread64,/data/a.bin,3,0,65536,65536,10,0,' \
	'3000,1,1,openat,/ck/c.pt,-1,0,0,4,10,0,' \
	'4000,1,1,pread64,/ck/c.pt,4,0,8192,8192,10,0,' >"$T/t.csv" || fail "csv"
ok "$IOTAPE" import -o "$T/t.tape" "$T/t.csv"
mkdir "$T/v" && echo precious >"$T/v/victim" || fail "victim"
snap() { snapshot "$T/v" >"$T/v.$1" || fail "snapshot"; }
snap before

# plant DIRNAME: DIRNAME with the victim's hard link as its marker
plant() {
	rm -rf "$1" && mkdir "$1" && ln "$T/v/victim" "$1/.iotape-replay" || fail "ln"
	[ "$(stat -c %h "$T/v/victim")" = 2 ] || fail "no link planted"
}
# intact WHAT DIRNAME...: the victim unchanged, each marker our own file
intact() {
	what=$1
	shift
	[ "$(cat "$T/v/victim")" = precious ] || fail "$what: the victim was written: $(head -c 200 "$T/v/victim")"
	[ "$(stat -c %h "$T/v/victim")" = 1 ] || fail "$what: the link is still there"
	for m in "$@"; do
		grep -q '^iotape replay directory' "$m/.iotape-replay" || fail "$what: $m has no marker of ours"
	done
	snap after
	same "$T/v.before" "$T/v.after"
}

plant "$T/d"
ok "$IOTAPE" replay --prepare-only -d "$T/d" "$T/t.tape"
grep -q '^prepared: ' "$T/d/.iotape-replay" || fail "--dir: the marker does not say prepared"
intact "--dir prepare" "$T/d"
# the replay that follows takes the prepared mark away the same way
plant "$T/d"
ok "$IOTAPE" replay --timing afap -o /dev/null -d "$T/d" "$T/t.tape"
intact "--dir replay" "$T/d"
[ -e "$T/d/.iotape-prep" ] && fail "temporary left in DIR"

plant "$T/p"
rm -rf "$T/d2"
ok "$IOTAPE" replay --timing afap -o /dev/null -d "$T/d2" --place "*.pt=$T/p" "$T/t.tape"
[ "$(stat -c %s "$T/p/ck/c.pt")" = 8192 ] || fail "--place: c.pt not prepared there"
intact "--place" "$T/d2" "$T/p"

plant "$T/f"
rm -rf "$T/d3"
ok "$IOTAPE" replay --timing afap -o /dev/null -d "$T/d3" --stage-hot "$T/f" --stage-size 8k "$T/t.tape"
[ "$(stat -c %s "$T/f/ck/c.pt")" = 8192 ] || fail "--stage-hot: c.pt not staged"
intact "--stage-hot" "$T/d3" "$T/f"

# a prepared path that is a planted hard link: refused, not written
rm -rf "$T/d4" && mkdir -p "$T/d4/data" && : >"$T/d4/.iotape-replay" || fail "d4"
ln "$T/v/victim" "$T/d4/data/a.bin" || fail "ln a.bin"
err_line 1 "iotape replay: " "preparing 'data/a.bin': has more than one link" \
	"$IOTAPE" replay --prepare-only -d "$T/d4" "$T/t.tape"
rm -f "$T/d4/data/a.bin"
intact "a prepared file"
exit 0
