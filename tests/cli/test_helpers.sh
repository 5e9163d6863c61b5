#!/bin/sh
# test_helpers.sh - the shared helpers fail when what they read fails.
#
# t_dump (record_lib.sh) piped tdump into sed and checked sed's status, so
# a missing trace gave an empty dump and every zero-row check after it
# ("no recovery" in record_signals.sh, record_cli.sh's) passed on nothing.
# Now t_dump of a missing trace or a file that is not one fails the test; a real trace
# still dumps.
. "$(dirname "$0")/record_lib.sh"
[ -x "$TB/tdump" ] || skip "no test helpers in $TB (run make tests)"

(t_dump "$T/missing.iotape") >"$T/sub" 2>&1 && fail "t_dump of a missing trace passed"
grep -qF "FAIL: cannot read $T/missing.iotape" "$T/sub" || fail "t_dump: $(cat "$T/sub")"
echo "not a trace" >"$T/bad.iotape"
(t_dump "$T/bad.iotape") >"$T/sub" 2>&1 && fail "t_dump of a file that is not a trace passed"

t_dump "$TOP/traces/checkpoint.iotape"
t_expect_ge 1 "rows of a real trace" "syscall "
t_expect 0 "no recovery in a finished trace" "# recovered"
t_done
