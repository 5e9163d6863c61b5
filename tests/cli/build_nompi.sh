#!/bin/sh
# build_nompi.sh: `make MPI=0` builds iotape without MPI (replay/rp_mpi.c's
# stubs), into a directory of its own (OUT=), and links no MPI library;
# the stubs say -ENOTSUP and the accelerator split still works
# (tests/helpers/mpi_gather without mpirun).
. "$(dirname "$0")/lib.sh"
command -v make >/dev/null 2>&1 || skip "no make"
command -v "${CC:-cc}" >/dev/null 2>&1 || skip "no C compiler"
out=$T/build
# a make of our own, not a part of the one that may be running the tests
unset MAKEFLAGS MFLAGS MAKELEVEL
make -C "$TOP" -j"$(nproc 2>/dev/null || echo 2)" OUT="$out" MPI=0 SANITIZE= \
	"$out/iotape" "$out/tests/mpi_gather" >"$T/log" 2>&1 ||
	fail "make MPI=0 failed: $(tail -n 20 "$T/log")"
[ -x "$out/iotape" ] || fail "make MPI=0 made no $out/iotape"
grep -q 'MPI=0' "$out/.flags" || fail "$out/.flags does not say MPI=0: $(cat "$out/.flags")"
ok "$out/iotape" --version
built=$("$out/tests/mpi_gather" built) || fail "mpi_gather built exited $?"
[ "$built" = 0 ] || fail "make MPI=0 built rp_mpi.c with MPI (rp_mpi_built $built)"
ok "$out/tests/mpi_gather"
grep -qx 'rank 0: ok (without MPI)' "$T/out" || fail "mpi_gather: $(cat "$T/out")"
if command -v nm >/dev/null 2>&1; then
	nm "$out/iotape" "$out/tests/mpi_gather" >"$T/nm" 2>&1 || fail "nm: $(tail -n 3 "$T/nm")"
	grep -q ' U MPI_\| U ompi_' "$T/nm" && fail "make MPI=0 links MPI: $(grep ' U MPI_' "$T/nm" | head -n 3)"
fi
if command -v ldd >/dev/null 2>&1; then
	ldd "$out/iotape" "$out/tests/mpi_gather" >"$T/ldd" 2>&1 || fail "ldd: $(tail -n 3 "$T/ldd")"
	grep -q 'libmpi' "$T/ldd" && fail "make MPI=0 links libmpi: $(grep libmpi "$T/ldd")"
fi
exit 0
