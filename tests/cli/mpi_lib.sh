# tests/cli/mpi_lib.sh - helpers for the tests of replay --mpi under mpirun
# (sourced after lib.sh and replay_lib.sh).
#
# Sourcing it skips the test without mpirun, io_uring or an MPI build, and
# sets up the sanitizer suppressions (mpi_lsan).  mpi NP ARGS...: iotape
# ARGS under mpirun -np NP (replay threads free to use every CPU), stdout in
# $T/out, stderr in $T/err, exit status in $rc.

command -v mpirun >/dev/null 2>&1 || skip "no mpirun (make deps installs openmpi-bin)"
need_uring
"$IOTAPE" replay --mpi -d "$T/x" "$T/none" 2>"$T/probe.err"
grep -q 'built without MPI' "$T/probe.err" && skip "built with MPI=0"
mpi_lsan

mpi() {
	np=$1; shift
	timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe --bind-to none \
		-x ASAN_OPTIONS -x LSAN_OPTIONS -np "$np" "$IOTAPE" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
