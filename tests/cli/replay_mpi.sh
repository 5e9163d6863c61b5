#!/bin/sh
# replay_mpi.sh: the MPI building blocks of replay --mpi (replay/rp_mpi.h)
# across real ranks: tests/helpers/mpi_gather under mpirun with 2 and 3
# ranks gathers every rank's jobs to rank 0 (rank, host, counters, exact
# latency values and histogram buckets, percentiles of the merge), splits
# accelerators over ranks, agrees on values (allreduce, broadcast) and
# runs the loop hook from a thread that is not main.
. "$(dirname "$0")/lib.sh"
command -v mpirun >/dev/null 2>&1 || skip "no mpirun (make deps installs openmpi-bin)"
bin=${TESTBIN:-$TOP/.output/tests}/mpi_gather
[ -x "$bin" ] || fail "no $bin (make tests)"
built=$("$bin" built) || fail "$bin built exited $?"
[ "$built" = 1 ] || skip "built with MPI=0"

mpi_lsan

for np in 2 3; do
	timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS \
		-x LSAN_OPTIONS -np "$np" "$bin" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "mpirun -np $np mpi_gather exited $rc: $(tail -n 20 "$T/err") $(cat "$T/out")"
	r=0
	while [ "$r" -lt "$np" ]; do
		grep -qx "rank $r: ok ($np ranks, $((np * (np + 1) / 2)) jobs)" "$T/out" ||
			fail "-np $np: no ok line from rank $r: $(cat "$T/out") $(tail -n 20 "$T/err")"
		r=$((r + 1))
	done
	n=$(wc -l <"$T/out")
	[ "$n" -eq "$np" ] || fail "-np $np: $n lines, want $np: $(cat "$T/out")"
done
exit 0
