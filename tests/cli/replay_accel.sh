#!/bin/sh
# replay_accel.sh - --accelerators N: N copies of the job at once.
#
# On an imported trace with known bytes: each accelerator reads its own
# copy of the data set exactly once a loop (copy 0 at the trace's paths,
# copy A under .iotape-copy-A/), totals are N times the recorded, what the
# job writes lands under each accelerator's .iotape-acc-A/ (or only under
# accelerator 0's with --checkpoint-writers one), every job names its
# accelerator.  Then --runtime ends a run early, AU follows the compute
# of a compute-bound job and of one with none, --find-max stops at its
# limit or at the first N that fails, and the 5x data-set warning appears
# below 5x and not above.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replay_lib.sh"
need_uring

# ok_n CMD...: exit 0, and on stderr nothing but what a run with -n or
# --find-max may say on this machine: the data set is far below 5x its
# memory (checked at the end), and find-max's plan
ok_n() {
	run "$@"
	[ "$rc" = 0 ] || fail "'$*' exited $rc: $(cat "$T/err")"
	grep -v -e '^iotape replay: warning: the data set (.*) is .*x the memory .* MLPerf Storage asks for 5x' \
		-e '^iotape replay: --find-max: each accelerator prepares ' \
		-e '^iotape replay: warning: in some trials the data set was below 5x' "$T/err" &&
		fail "'$*' wrote to stderr"
	return 0
}

# two readers over their own files (400 KiB each), a writer: a log, a
# temporary file written, read back, unlinked
job_csv "$T/s.csv"
ok "$IOTAPE" import -o "$T/s.tape" "$T/s.csv"
ds=409600			# each data set file, read whole once a loop
rd=$((2 * ds + 4096))		# bytes one accelerator reads a loop
wr=$((100 + 4096))		# and writes

for n in 1 2 4; do
	rm -rf "$T/d"
	ok_n "$IOTAPE" replay --timing afap -n $n --output-format json -o "$T/r$n.json" -d "$T/d" "$T/s.tape"
	j() { jq_py "$T/r$n.json" "$1"; }
	[ "$(j "d['scale']['accelerators']")" = $n ] || fail "n=$n: scale.accelerators $(j "d['scale']['accelerators']")"
	[ "$(j "d['replay']['ops_failed']")" = 0 ] || fail "n=$n: ops failed"
	[ "$(j "d['scale']['read_bytes']")" = $((n * rd)) ] || fail "n=$n: read $(j "d['scale']['read_bytes']"), want $((n * rd))"
	[ "$(j "d['scale']['write_bytes']")" = $((n * wr)) ] || fail "n=$n: written $(j "d['scale']['write_bytes']")"
	[ "$(j "[a['read_bytes'] for a in d['scale']['per_accelerator']]")" = \
	  "$(python3 -c "print([$rd] * $n)")" ] || fail "n=$n: per accelerator $(j "d['scale']['per_accelerator']")"
	[ "$(j "sorted((x['accelerator'], x['jobname']) for x in d['jobs'])")" = \
	  "$(python3 -c "print(sorted((a, 'accel-%d/tid-%d' % (a, t)) for a in range($n) for t in (10, 11, 12)))")" ] ||
		fail "n=$n: jobs $(j "[x['jobname'] for x in d['jobs']]")"
	[ "$(j "d['replay']['ops_expected']['open']")" = $((4 * n)) ] || fail "n=$n: opens expected"
	# each copy of each data set file read exactly once, at its own path
	a=0
	while [ $a -lt $n ]; do
		if [ $a = 0 ]; then cp=""; acc=""; else cp=".iotape-copy-$a/"; acc=".iotape-acc-$a/"; fi
		for f in s0 s1; do
			got=$(j "[x['replayed_bytes'] for x in d['replay']['files'] if x['path'] == '${cp}data/$f.bin']")
			[ "$got" = "[$ds]" ] || fail "n=$n: ${cp}data/$f.bin read $got, want [$ds]"
			[ "$(stat -c %s "$T/d/${cp}data/$f.bin")" = $ds ] || fail "n=$n: ${cp}data/$f.bin not prepared"
		done
		[ "$(stat -c %s "$T/d/${acc}out/log.txt")" = 100 ] || fail "n=$n: ${acc}out/log.txt"
		[ ! -e "$T/d/${acc}data/tmp.bin" ] || fail "n=$n: ${acc}data/tmp.bin not unlinked"
		[ ! -e "$T/d/${cp}out" ] || [ -z "$cp" ] || fail "n=$n: the copy ${cp} has what the job writes"
		a=$((a + 1))
	done
	[ ! -e "$T/d/.iotape-copy-$n" ] && [ ! -e "$T/d/.iotape-acc-$n" ] || fail "n=$n: one accelerator too many"
done

# text: one line per accelerator, the totals, the verdict
rm -rf "$T/d"
ok_n "$IOTAPE" replay --timing afap -n 2 -d "$T/d" "$T/s.tape"
grep -q '^Scale: 2 accelerators (checkpoint writers: all, steps not synchronized)$' "$T/out" ||
	fail "text: $(grep -A3 Scale "$T/out")"
[ "$(grep -c '^  accel-[01]: AU=0.0%, read 804.0 KiB, written 4.1 KiB, 103 ios, ' "$T/out")" = 2 ] ||
	fail "text accelerators: $(grep accel- "$T/out")"
grep -q '^  AU min 0.0%, mean 0.0%, max 0.0%: FAIL (AU >= 90%)$' "$T/out" || fail "text verdict"

# --checkpoint-writers one: accelerators 1.. skip the files the job writes
rm -rf "$T/d"
ok_n "$IOTAPE" replay --timing afap -n 3 --checkpoint-writers one --output-format json \
	-o "$T/w.json" -d "$T/d" "$T/s.tape"
j() { jq_py "$T/w.json" "$1"; }
[ "$(j "d['scale']['checkpoint_writers']")" = one ] || fail "writers one: not reported"
[ "$(j "d['scale']['write_bytes']")" = $wr ] || fail "writers one: written $(j "d['scale']['write_bytes']")"
[ "$(j "d['scale']['read_bytes']")" = $((3 * 2 * ds + 4096)) ] || fail "writers one: read"
# per skipping accelerator: 2 opens, 2 writes, 1 read, 2 closes, 1 unlink
[ "$(j "sum(d['replay']['ops_not_issued'].values())")" = 16 ] || fail "writers one: not issued $(j "d['replay']['ops_not_issued']")"
[ "$(j "d['replay']['ops_expected']['open']")" = 8 ] || fail "writers one: opens expected $(j "d['replay']['ops_expected']")"
[ "$(j "d['replay']['ops_done'] == d['replay']['ops_expected']")" = True ] || fail "writers one: done != expected"
[ -f "$T/d/out/log.txt" ] || fail "writers one: accelerator 0 wrote no log"
[ ! -e "$T/d/.iotape-acc-1/out/log.txt" ] && [ ! -e "$T/d/.iotape-acc-2/out/log.txt" ] ||
	fail "writers one: accelerators 1, 2 wrote the log"

# a compute-bound job: a reader (20 x 1 MiB back to back) and a trainer
# computing 1.1 s between 11 small reads
compute_csv "$T/m.csv" 20 11
ok "$IOTAPE" import -o "$T/m.tape" "$T/m.csv"
rm -rf "$T/d"
ok_n "$IOTAPE" replay -n 2 --output-format json -o "$T/m.json" -d "$T/d" "$T/m.tape"
j() { jq_py "$T/m.json" "$1"; }
[ "$(j "d['scale']['pass']")" = True ] || fail "compute-bound: AU $(j "d['scale']['au_min']") fails"
[ "$(j "all(0.9 <= a['au'] <= 1 for a in d['scale']['per_accelerator'])")" = True ] ||
	fail "compute-bound: AU $(j "[a['au'] for a in d['scale']['per_accelerator']]")"
[ "$(j "all(1.05e9 <= a['compute_ns'] <= 1.15e9 for a in d['scale']['per_accelerator'])")" = True ] ||
	fail "compute-bound: compute $(j "[a['compute_ns'] for a in d['scale']['per_accelerator']]"), want 1.1 s"

# --runtime: the trainer's 1.1 s cut at 0.3 s; not a failure
ok_n "$IOTAPE" replay -n 2 --runtime 300ms --output-format json -o "$T/rt.json" -d "$T/d" "$T/m.tape"
j() { jq_py "$T/rt.json" "$1"; }
[ "$(j "0.3e9 <= d['scale']['runtime_ns'] < 0.6e9")" = True ] || fail "--runtime: ran $(j "d['scale']['runtime_ns']") ns"
[ "$(j "d['replay']['ops_done']['read'] < d['replay']['ops_expected']['read']")" = True ] ||
	fail "--runtime: every read done"
[ "$(j "d['scale']['runtime_limit_ns']")" = 300000000 ] || fail "--runtime: limit not reported"
ok_n "$IOTAPE" replay -n 1 --runtime 0.3 -d "$T/d" "$T/m.tape"
grep -q '^  runtime bound: 300.0ms (reached: the ops after it were not taken)$' "$T/out" ||
	fail "--runtime text: $(grep runtime "$T/out")"

# --find-max: compute-bound up to its limit (-n 4: trials 1, 2, 4) ...
ok_n "$IOTAPE" replay --find-max -n 4 --output-format json -o "$T/fm.json" -d "$T/d" "$T/m.tape"
j() { jq_py "$T/fm.json" "$1"; }
[ "$(j "[(t['accelerators'], t['pass']) for t in d['find_max']['trials']]")" = \
  "[(1, True), (2, True), (4, True)]" ] || fail "find-max: trials $(j "d['find_max']['trials']")"
[ "$(j "(d['find_max']['max_accelerators'], d['find_max']['limit_reached'])")" = "(4, True)" ] ||
	fail "find-max: $(j "d['find_max']")"
# ... and a job with no compute, whose AU is 0: the first trial fails
ok_n "$IOTAPE" replay --find-max --timing afap -d "$T/d" "$T/s.tape"
[ "$(tail -n 1 "$T/out")" = 'max accelerators at AU >= 0.90: 0' ] || fail "find-max afap: $(cat "$T/out")"
[ "$(grep -c '^ *1 .* no$' "$T/out")" = 1 ] && [ "$(wc -l <"$T/out")" = 4 ] || fail "find-max afap table: $(cat "$T/out")"

# usage errors: one line, exit 2
err_line 2 "iotape replay: " "accelerators" "$IOTAPE" replay -n 0 -d "$T/d" "$T/s.tape"
err_line 2 "iotape replay: " "exclude each other" "$IOTAPE" replay -n 2 --scale-dataset 2 -d "$T/d" "$T/s.tape"
err_line 2 "iotape replay: " "--au" "$IOTAPE" replay --au 1.5 -d "$T/d" "$T/s.tape"
err_line 2 "iotape replay: " "--runtime" "$IOTAPE" replay --runtime 0 -d "$T/d" "$T/s.tape"
err_line 2 "iotape replay: " "--checkpoint-writers" "$IOTAPE" replay --checkpoint-writers some -d "$T/d" "$T/s.tape"
err_line 2 "iotape replay: " "exclude each other" "$IOTAPE" replay --find-max --prepare-only -d "$T/d" "$T/s.tape"

# the 5x rule: 48 MiB of data set, 8 MiB of memory (6x): no warning;
# 16 MiB (3x): one, naming the ratio and the limit that reaches 5x
[ "$(id -u)" = 0 ] || skip "needs root (--mem-limit) for the 5x warning"
awk -v hdr="$HDR" 'BEGIN { print hdr
	print "1000,1,10,openat,/data/ds.bin,-1,0,0,3,10,0,"
	for (i = 0; i < 48; i++) printf "%d,1,10,pread64,/data/ds.bin,3,%d,1048576,1048576,1000,0,\n", 2000 + i * 2000, i * 1048576
	print "200000,1,10,close,/data/ds.bin,3,0,0,0,10,0,"
}' >"$T/b.csv" || fail "awk"
ok "$IOTAPE" import -o "$T/b.tape" "$T/b.csv"
rm -rf "$T/d"
ok "$IOTAPE" replay --sparse --timing afap -n 1 --mem-limit 8m --output-format json -o "$T/b8.json" -d "$T/d" "$T/b.tape"
[ "$(jq_py "$T/b8.json" "d['scale']['dataset_memory_ratio']")" = 6.0 ] || fail "5x: ratio at 8 MiB"
err_line 0 "iotape replay: warning: " "the data set (48.0 MiB) is 3.00x the memory the replay may use (16.0 MiB, --mem-limit)" \
	"$IOTAPE" replay --sparse --timing afap -n 1 --mem-limit 16m -d "$T/d" "$T/b.tape"
grep -q -- ': --mem-limit 9.0 MiB or --scale-dataset 2$' "$T/err" || fail "5x: remedy $(cat "$T/err")"
exit 0
