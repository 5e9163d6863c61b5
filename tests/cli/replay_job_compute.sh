#!/bin/sh
# replay_job_compute.sh - a job file's step compute with a stdev
# (iotape-job(5), train.computation_time_distribution): 2000 steps of
# computation_time 1 ms, stdev 1 ms.
#  - normal (the default, DLIO's utility.sleep: a normal draw, its
#    absolute value taken): the trainer's compute is 2000 times the folded
#    normal's mean, E|X| = sigma sqrt(2/pi) exp(-mu^2 / 2 sigma^2) +
#    mu (1 - 2 Phi(-mu / sigma)), 1.1666 ms here, within 3% (the draws'
#    own spread: 1.1%), not 2000 times the mean;
#  - lognormal (what iotape model writes for measured steps): exactly
#    2000 ms, the draws scaled to their mean;
#  - the same seed draws the same steps; another seed others.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
cd "$T" || fail "cd $T"
cat >n.ini <<'INI' || fail "cannot write n.ini"
[job]
format = 1
[dataset]
data_folder = data
num_files = 0
record_length = 4096
[train]
epochs = 1
steps_per_epoch = 2000
computation_time = 0.001
computation_time_stdev = 0.001
[checkpoint]
size = 0
INI
sed 's/^computation_time_stdev.*/&\ncomputation_time_distribution = lognormal/' n.ini >l.ini ||
	fail "sed"

# run NAME JOB [OPTION...]: the trainer's compute (seconds) into $T/NAME
run() {
	_n=$1 _j=$2
	shift 2
	"$IOTAPE" replay -d "$T/d.$_n" --output-format json -o "$T/$_n.json" "$@" "$_j" \
		>"$T/$_n.out" 2>&1 || fail "replay $_j: $(tail -n 3 "$T/$_n.out")"
	"$PY" -c "import json, sys; d = json.load(open(sys.argv[1]))
print(d['scale']['per_accelerator'][0]['compute_ns'] / 1e9)" "$T/$_n.json" >"$T/$_n" ||
		fail "no compute_ns in $_n.json"
}

run n n.ini
run l l.ini
run n2 n.ini
run s n.ini --seed 7
"$PY" - "$(cat n)" "$(cat l)" "$(cat n2)" "$(cat s)" <<'PY' || fail "the draws' compute"
import math, sys
n, l, n2, s = map(float, sys.argv[1:])
mu = sigma = 0.001
fold = sigma * math.sqrt(2 / math.pi) * math.exp(-mu * mu / (2 * sigma * sigma)) + \
    mu * (1 - 2 * 0.5 * math.erfc(mu / sigma / math.sqrt(2)))
want = 2000 * fold
assert abs(n - want) <= 0.03 * want, ("normal: compute", n, "E|X| x 2000", want)
assert abs(n - 2.0) > 0.1, ("normal: the mean's 2 s, not the folded normal's", n)
assert abs(l - 2.0) <= 1e-5, ("lognormal: compute", l)
assert n2 == n, ("the same seed drew other steps", n, n2)
assert s != n, ("another seed drew the same steps", n, s)
print("normal %.4f s (E|X| x 2000 = %.4f s), lognormal %.6f s" % (n, want, l))
PY
exit 0
