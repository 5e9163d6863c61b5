#!/bin/sh
# au_loader.sh - a loader-bound PyTorch job (traces/workloads/loader.py: a
# DataLoader worker spending 80 ms of CPU per sample, a trainer standing
# for an accelerator with 60 ms per step of 4 samples, so the loader cannot
# keep up: AU about 19%; one worker, so that the job's own CPUs do not
# contend on a 2-CPU machine), started through a bash wrapper that sends its output to a log
# file, with 2 s of start-up before its first read and an idle child that
# sleeps past its end.  Recorded, then:
#  - analyze finds the trainer (not a worker, not the idle child) and
#    reports AU as DLIO computes it (au.dlio) within 3 points of the job's
#    own measured AU, the start-up left out (au.run, with it, is not);
#  - the replay (hand-overs: the trainer waits for its workers' batches as
#    the job did) reports the same within 3 points, where a replay of the
#    waits as delays (--no-handover, the old answer) says the trainer never
#    waited;
#  - --loader-cpu-scale 2 replays the loader's work twice as fast: AU rises
#    as the job's does when its worker decodes in 40 ms (within 3 points);
#  - whatif runs that as its loaders-2x row (the loaders found), its
#    AU the job's with the 40 ms worker within 3 points, while its
#    stage-hot row (the hot files on a tmpfs) moves AU by less than 2
#    points; it names loaders-2x as what helps.
# Needs root and BTF (it records) and python3-torch.
. "$(dirname "$0")/record_lib.sh"
. "$(dirname "$0")/au_lib.sh"

rec_need_bpf
au_need
au_wrapper
D=$T/d
"$PY" "$AU_JOB" "$D" --files 32 --size 65536 --epochs 0 || fail "making the data set"

"$IOTAPE" record -q -o "$T/a.iotape" -- "$T/job.sh" "$T/a.log" "$D" --files 32 --workers 1 \
	--decode-ms 80 --compute-ms 60 --startup-s 2 --idle-helper 15 --report "$T/a.json" ||
	fail "the recorded job failed: $(cat "$T/a.log")"
job=$(au_get "$T/a.json" 'd["au_mean"]')
pid=$(au_get "$T/a.json" 'd["pid"]')

# analyze
au_analyze "$T/a.iotape"
[ "$(au_get "$T/ana.json" 'd["au"]["thread"]["tid"]')" = "$pid" ] ||
	fail "the training thread is not the trainer $pid: $(au_get "$T/ana.json" 'd["au"]["thread"]')"
[ "$(au_get "$T/ana.json" 'd["au"]["thread"]["rule"]')" = pipe ] || fail "not found by its pipe"
[ "$(au_get "$T/ana.json" '[e["steps"] for e in d["au"]["epochs"]]')" = "[8, 8]" ] ||
	fail "steps per epoch: $(au_get "$T/ana.json" '[e["steps"] for e in d["au"]["epochs"]]')"
ana=$(au_get "$T/ana.json" 'd["au"]["dlio"]')
au_near "analyze au.dlio vs the job" "$ana" "$job" 3
run=$(au_get "$T/ana.json" 'd["au"]["run"]')
au_get "$T/ana.json" '1 if abs(d["au"]["run"] - d["au"]["dlio"]) > 0.05 else 0' >"$T/apart"
[ "$(cat "$T/apart")" = 1 ] || fail "au.run $run is au.dlio $ana: the start-up is in both"

# replay: hand-overs
"$IOTAPE" replay -d "$T/r" --output-format json -o "$T/r.json" "$T/a.iotape" >"$T/r.out" 2>&1 ||
	fail "replay: $(tail -n 3 "$T/r.out")"
rep=$(au_get "$T/r.json" 'd["scale"]["per_accelerator"][0]["au_dlio"]')
au_near "replay au_dlio vs the job" "$rep" "$job" 3
[ "$(au_get "$T/r.json" 'd["scale"]["step_thread"]')" = "$pid" ] || fail "the replay's trainer"
"$IOTAPE" replay --no-prepare -d "$T/r" --no-handover --output-format json -o "$T/n.json" \
	"$T/a.iotape" >"$T/n.out" 2>&1 || fail "replay --no-handover: $(tail -n 3 "$T/n.out")"
au_get "$T/n.json" '1 if d["scale"]["per_accelerator"][0]["au_dlio"] > 0.9 else 0' >"$T/old"
[ "$(cat "$T/old")" = 1 ] || fail "--no-handover: $(au_get "$T/n.json" 'd["scale"]["per_accelerator"][0]["au_dlio"]')"

# faster loaders: the replay's what-if against the job with them
"$T/job.sh" "$T/b.log" "$D" --files 32 --workers 1 --decode-ms 40 --compute-ms 60 \
	--report "$T/b.json" ||
	fail "the job with faster workers failed: $(cat "$T/b.log")"
job2=$(au_get "$T/b.json" 'd["au_mean"]')
"$IOTAPE" replay --no-prepare -d "$T/r" --loader-cpu-scale 2 --output-format json \
	-o "$T/s.json" "$T/a.iotape" >"$T/s.out" 2>&1 ||
	fail "replay --loader-cpu-scale 2: $(tail -n 3 "$T/s.out")"
rep2=$(au_get "$T/s.json" 'd["scale"]["per_accelerator"][0]["au_dlio"]')
au_near "replay --loader-cpu-scale 2 vs the job with a 40 ms worker" "$rep2" "$job2" 3
au_get "$T/s.json" "1 if $rep2 > $rep + 0.10 else 0" >"$T/rise"
[ "$(cat "$T/rise")" = 1 ] || fail "AU did not rise with faster loaders: $rep -> $rep2"

# whatif: the loaders-2x row, and the storage's
F=$(mktemp -d /dev/shm/iotape-au-fast.XXXXXX) || fail "mktemp in /dev/shm"
trap 'rm -rf "$F" "$T"' EXIT
"$IOTAPE" whatif -d "$T/w" --fast "$F" --keep-caches --output-format json -o "$T/w.json" \
	"$T/a.iotape" >"$T/w.out" 2>&1 || fail "whatif: $(tail -n 3 "$T/w.out")"
[ "$(au_get "$T/w.json" 'int(d["loader_threads"] > 0)')" = 1 ] || fail "whatif: no loader threads"
au_get "$T/w.json" '[r["name"] for r in d["whatifs"] if r["ok"]]' >"$T/names"
grep -q "'baseline', 'stage-hot'.*'loaders-2x'" "$T/names" || fail "whatif runs: $(cat "$T/names")"
[ "$(au_get "$T/w.json" 'd["helps_most"]')" = loaders-2x ] ||
	fail "whatif: helps most $(au_get "$T/w.json" 'd["helps_most"]')"
base=$(au_get "$T/w.json" '[r["au"] for r in d["whatifs"] if r["name"] == "baseline"][0]')
stg=$(au_get "$T/w.json" '[r["au"] for r in d["whatifs"] if r["name"] == "stage-hot"][0]')
au_near "whatif stage-hot vs its baseline" "$stg" "$base" 2
wi=$(au_get "$T/w.json" '[r["au"] for r in d["whatifs"] if r["name"] == "loaders-2x"][0]')
au_near "whatif loaders-2x vs the job with a 40 ms worker" "$wi" "$job2" 3
exit 0
