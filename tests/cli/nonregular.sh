#!/bin/sh
# nonregular.sh - a trace that is not a regular file (a FIFO, a directory,
# a device) is refused at once by every command that reads traces: exit 1,
# one line saying what it is.  A FIFO used to block the open, waiting for
# a writer, forever.  import still reads its CSV from a FIFO (as it reads a
# pipe on '-') and says why a directory cannot be read.
. "$(dirname "$0")/lib.sh"

mkfifo "$T/fifo" || skip "mkfifo failed"
mkdir "$T/dir"
printf 'ts_ns,op,path,size\n1000,openat,/data/a,0\n2000,read,/data/a,4096\n' >"$T/in.csv"
ok "$IOTAPE" import -o "$T/t.tape" "$T/in.csv"

# refused CMD ARG...: one line holding $msg, exit 1, within 5 s
refused() {
	_c=$1
	shift
	err_line 1 "iotape $_c: " "$msg" timeout 5 "$IOTAPE" "$_c" "$@"
}
for f in "$T/fifo" "$T/dir" /dev/zero; do
	case $f in
	*/fifo) kind="a FIFO" ;;
	*/dir) kind="a directory" ;;
	*) kind="a character device" ;;
	esac
	msg="$f: Invalid argument: not a regular file ($kind)"
	refused info "$f"
	refused info --json "$f"
	refused dump "$f"
	refused analyze "$f"
	refused compare "$f" "$T/t.tape"
	refused compare "$T/t.tape" "$f"
	refused convert -o "$T/c.tape" "$f"
	[ ! -e "$T/c.tape" ] || fail "convert of $f made a trace"
	msg=$f
	refused replay -d "$T/r" "$f"
	[ ! -e "$T/r" ] || fail "replay of $f made DIR"
done

# import: a FIFO is a fine CSV source; a directory is one line, at once
timeout 10 sh -c 'cat "$1" >"$2"' sh "$T/in.csv" "$T/fifo" &
ok timeout 10 "$IOTAPE" import -o "$T/fifo.tape" "$T/fifo"
wait
ok "$IOTAPE" dump -F csv -o "$T/a.csv" "$T/t.tape"
ok "$IOTAPE" dump -F csv -o "$T/b.csv" "$T/fifo.tape"
same "$T/a.csv" "$T/b.csv"
err_line 1 "iotape import: " "$T/dir: read error: Is a directory" \
	timeout 5 "$IOTAPE" import -o "$T/d.tape" "$T/dir"
[ ! -e "$T/d.tape" ] || fail "import of a directory left a trace"
exit 0
