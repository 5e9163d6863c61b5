# tests/cli/throttle_lib.sh - a storage with a known bandwidth ceiling, for
# tests (sourced after lib.sh; tests/run does not run *_lib.sh files).
#
# thr_setup SIZE_MIB makes a file-backed ext4 file system of SIZE_MIB MiB
# on a loop device, mounted at $THR_MNT, and an empty cgroup $THR_CG whose
# block I/O limits apply to that loop device ($THR_DEV, "MAJ:MIN") only.
# thr_limit READ_BPS [WRITE_BPS] sets the ceiling (0: none); thr_exec
# CMD... runs CMD inside the cgroup (a shell that moves itself in, then
# execs CMD), so the bios CMD issues to the loop device are throttled.
#
# The limit applies to bios the cgroup's tasks issue: O_DIRECT reads and
# writes (iotape replay --direct, fio direct=1) and reads that miss the
# page cache (the reader's own readahead) are throttled; page-cache hits
# issue none, and buffered writes are written back by kernel threads that
# cgroup v1 does not charge to the cgroup.  Measured here with dd, limit
# 10 MiB/s, 32 MiB: direct read or write 3.2 s, cold buffered read 3.2 s,
# warm 0.02 s, buffered write and sync 0.15 s.
#
# Controllers: cgroup v1 blkio (blkio.throttle.read_bps_device), else the
# cgroup2 io controller (io.max).  Without root, losetup, mkfs.ext4, a free
# loop device or either controller: skip (77) with the reason.
#
# Whatever happens, an EXIT trap unmounts, detaches the loop device,
# removes the cgroup (after killing what is left in it) and then $T; the
# mount point lives outside $T so that rm -rf never walks a live mount.

THR_LOOP= THR_MNT= THR_CG= THR_DEV= THR_KIND= THR_ROOT= THR_IMG=

thr_cleanup() {
	if [ -n "$THR_CG" ] && [ -d "$THR_CG" ]; then
		# a command that outlived its test (killed by the runner's timeout)
		for _p in $(cat "$THR_CG/cgroup.procs" 2>/dev/null); do
			kill -KILL "$_p" 2>/dev/null
		done
		_i=0
		while ! rmdir "$THR_CG" 2>/dev/null && [ $_i -lt 50 ]; do
			sleep 0.1
			_i=$((_i + 1))
		done
		[ -d "$THR_CG" ] && echo "throttle_lib: cgroup $THR_CG left behind" >&2
	fi
	if [ -n "$THR_MNT" ]; then
		if mountpoint -q "$THR_MNT"; then
			_i=0
			while ! umount "$THR_MNT" 2>/dev/null && [ $_i -lt 50 ]; do
				sleep 0.1
				_i=$((_i + 1))
			done
			mountpoint -q "$THR_MNT" && umount -l "$THR_MNT"
		fi
		rmdir "$THR_MNT" 2>/dev/null
	fi
	[ -n "$THR_LOOP" ] && losetup -d "$THR_LOOP" 2>/dev/null
	rm -rf "$T"
}
trap thr_cleanup EXIT

# thr_cgroup_root: where to make the cgroup: sets THR_ROOT, and THR_KIND
# to v1 or v2; 1 when there is neither
thr_cgroup_root() {
	_v1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)blkio(,|$)/ { print $2; exit }' /proc/mounts)
	if [ -n "$_v1" ] && [ -f "$_v1/blkio.throttle.read_bps_device" ]; then
		THR_KIND=v1 THR_ROOT=$_v1
		return 0
	fi
	_v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	[ -n "$_v2" ] || return 1
	if ! grep -qw io "$_v2/cgroup.controllers" 2>/dev/null; then
		return 1	# io is bound to a v1 hierarchy without throttling
	fi
	if ! grep -qw io "$_v2/cgroup.subtree_control"; then
		echo +io >"$_v2/cgroup.subtree_control" 2>/dev/null || return 1
	fi
	THR_KIND=v2 THR_ROOT=$_v2
}

thr_setup() {
	[ "$(id -u)" = 0 ] || skip "needs root (loop device, mount, cgroups)"
	for _c in losetup mkfs.ext4 mount umount mountpoint; do
		command -v $_c >/dev/null 2>&1 || skip "$_c not installed"
	done
	thr_cgroup_root ||
		skip "no block I/O throttling: neither cgroup v1 blkio with blkio.throttle.* nor the cgroup2 io controller"

	THR_IMG=$T/fs.img
	truncate -s "${1}M" "$THR_IMG" || fail "cannot make $THR_IMG"
	THR_LOOP=$(losetup -f --show "$THR_IMG" 2>"$T/losetup.err") ||
		skip "no loop device: $(cat "$T/losetup.err")"
	mkfs.ext4 -q -F "$THR_IMG" >"$T/mkfs.err" 2>&1 || fail "mkfs.ext4: $(cat "$T/mkfs.err")"
	THR_MNT=$(mktemp -d "${TMPDIR:-/tmp}/iotape-thr-mnt.XXXXXX") || fail "mktemp"
	mount -t ext4 "$THR_LOOP" "$THR_MNT" 2>"$T/mount.err" ||
		skip "cannot mount ext4 on $THR_LOOP: $(cat "$T/mount.err")"
	THR_DEV=$(lsblk -dno MAJ:MIN "$THR_LOOP" 2>/dev/null | tr -d ' ')
	[ -n "$THR_DEV" ] ||
		THR_DEV=$(printf '%d:%d' "0x$(stat -c %t "$THR_LOOP")" "0x$(stat -c %T "$THR_LOOP")")

	THR_CG=$THR_ROOT/iotape-throttle.$$
	mkdir "$THR_CG" || fail "cannot make cgroup $THR_CG"
	if [ "$THR_KIND" = v2 ] && [ ! -f "$THR_CG/io.max" ]; then
		skip "cgroup2 io controller without io.max (CONFIG_BLK_DEV_THROTTLING)"
	fi
	return 0
}

# thr_limit READ_BPS [WRITE_BPS]: bytes per second on $THR_DEV, 0 for none
thr_limit() {
	_r=$1 _w=${2:-0}
	if [ "$THR_KIND" = v1 ]; then
		echo "$THR_DEV $_r" >"$THR_CG/blkio.throttle.read_bps_device" ||
			fail "cannot set blkio.throttle.read_bps_device"
		echo "$THR_DEV $_w" >"$THR_CG/blkio.throttle.write_bps_device" ||
			fail "cannot set blkio.throttle.write_bps_device"
	else
		[ "$_r" = 0 ] && _r=max
		[ "$_w" = 0 ] && _w=max
		echo "$THR_DEV rbps=$_r wbps=$_w" >"$THR_CG/io.max" || fail "cannot set io.max"
	fi
}

# thr_exec CMD...: CMD in the throttled cgroup; its exit status
thr_exec() {
	sh -c 'echo $$ >"$0/cgroup.procs" || exit 126; exec "$@"' "$THR_CG" "$@"
}

# thr_read_bytes: bytes the cgroup has read from $THR_DEV so far
thr_read_bytes() {
	if [ "$THR_KIND" = v1 ]; then
		awk -v d="$THR_DEV" '$1 == d && $2 == "Read" { print $3; f = 1 } END { if (!f) print 0 }' \
			"$THR_CG/blkio.throttle.io_service_bytes"
	else
		awk -v d="$THR_DEV" '$1 == d { for (i = 2; i <= NF; i++) if ($i ~ /^rbytes=/) { sub(/rbytes=/, "", $i); print $i; f = 1 } }
			END { if (!f) print 0 }' "$THR_CG/io.stat"
	fi
}
