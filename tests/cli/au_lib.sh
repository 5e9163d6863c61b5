# tests/cli/au_lib.sh - helpers of the accelerator utilization tests
# (sourced after lib.sh and record_lib.sh; tests/run does not run *_lib.sh
# files).
#
# The job is traces/workloads/loader.py: a DLIO-shaped PyTorch job that
# measures its own AU as DLIO does and writes it (--report FILE, JSON).
# au_need skips without python3-torch.  au_job NAME CMD-PREFIX... ARGS runs
# it through a shell wrapper with its output sent to a log file, as
# training jobs run (CMD-PREFIX: "" or an iotape record command line).
# The figures are read with Debian's python (whatever python3 on PATH is).

PY=${PY:-/usr/bin/python3}
AU_JOB=$TOP/traces/workloads/loader.py

au_need() {
	"$PY" -c "import torch" 2>/dev/null || skip "python3-torch not installed"
}

# au_wrapper: $T/job.sh, a bash wrapper of the job (a pyenv shim's kind:
# the job's output to a log file it names); its first argument is the log
au_wrapper() {
	cat >"$T/job.sh" <<EOF || fail "cannot write the wrapper"
#!/bin/bash
log=\$1
shift
exec "$PY" "$AU_JOB" "\$@" >"\$log" 2>&1
EOF
	chmod +x "$T/job.sh" || fail "chmod of the wrapper"
}

# au_get FILE EXPR: EXPR (python, d is FILE's JSON) printed, or fail
au_get() {
	"$PY" -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1" \
		>"$T/get" 2>"$T/get.err" || fail "reading $2 of $1: $(cat "$T/get.err")"
	cat "$T/get"
}

# au_near NAME A B POINTS: |A - B| (fractions) within POINTS percentage
# points, else fail
au_near() {
	"$PY" -c "import sys; a, b, p = map(float, sys.argv[1:]); sys.exit(abs(a - b) * 100 > p)" \
		"$2" "$3" "$4" || fail "$1: $2 against $3, more than $4 points apart"
	echo "$1: $2 against $3 (within $4 points)"
}

# au_analyze TRACE -> $T/ana.json (analyze --json)
au_analyze() {
	"$IOTAPE" analyze --json "$1" >"$T/ana.json" 2>"$T/ana.err" ||
		fail "analyze $1: $(cat "$T/ana.err")"
}
