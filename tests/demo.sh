#!/bin/sh
# tests/demo.sh - what `make demo` runs: the whole loop on a real job.
#
#   1. record a small PyTorch training job (traces/workloads/image_folder.py:
#      an ImageFolder of JPEGs, shuffled, 2 DataLoader workers, 2 epochs,
#      a checkpoint per epoch) with `iotape record`, caches dropped first;
#   2. `iotape info` and `iotape analyze` of the recording;
#   3. `iotape replay` of it into a temporary directory, caches dropped,
#      the recorded compute kept as delays (think timing): no GPU, no torch;
#      as root, the replay is itself recorded with `iotape record`;
#   4. `iotape compare --map REPLAY --check` of the job and the recorded
#      replay: does the replay do the job's I/O (iotape-compare(1))?
#
# Without root (recording needs CAP_BPF) or without PyTorch, the demo falls
# back to a bundled recording (traces/image_folder.iotape) for steps 2-3,
# and says so; without root, step 4 is left out.  Everything happens in a
# temporary directory, removed at the end.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
iotape="$top/iotape"
py=/usr/bin/python3
tmp=$(mktemp -d /tmp/iotape-demo.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
trace="$tmp/job.iotape"

step() { printf '\n== %s\n' "$*"; }
# summary CMD...: run CMD (a replay), show its report from "All jobs:" on;
# if it fails, everything it said, and stop (a pipe into sed would hide
# both the failure and its message)
summary() {
	if "$@" >"$tmp/summary.out" 2>&1; then
		sed -n '/^All jobs:/,$p' "$tmp/summary.out"
	else
		st=$?
		cat "$tmp/summary.out" >&2
		echo "demo: the replay failed (exit status $st)" >&2
		exit 1
	fi
}

if [ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ] &&
   $py -c 'import torch, torchvision' 2>/dev/null; then
	step "1. a real training job: ImageFolder JPEGs, 2 DataLoader workers, 2 epochs"
	$py "$top/traces/workloads/image_folder.py" "$tmp/data" --epochs 0 >/dev/null
	echo "   dataset: $(find "$tmp/data" -type f | wc -l) files in $tmp/data"
	sync
	echo 3 > /proc/sys/vm/drop_caches
	echo "   iotape record -o job.iotape -- python3 image_folder.py DATA"
	"$iotape" record -o "$trace" -- $py "$top/traces/workloads/image_folder.py" "$tmp/data"
else
	step "1. recording needs root, BTF and PyTorch: using the bundled traces/image_folder.iotape"
	cp "$top/traces/image_folder.iotape" "$trace"
fi

step "2. iotape info job.iotape"
"$iotape" info "$trace"

step "3. iotape analyze job.iotape"
"$iotape" analyze "$trace"

if [ "$(id -u)" != 0 ]; then
	step "4. iotape replay job.iotape --dir REPLAY (think timing: recorded compute as delays)"
	summary "$iotape" replay "$trace" --dir "$tmp/replay"
	step "done: record -> analyze -> replay (compare needs the replay recorded: run as root)"
	exit 0
fi

step "4. iotape replay job.iotape --dir REPLAY --drop-caches (think timing: recorded compute as delays), recorded"
"$iotape" replay "$trace" --dir "$tmp/replay" --prepare-only
echo "   iotape record -o replay.iotape -- iotape replay --no-prepare --drop-caches job.iotape"
summary "$iotape" record -q -o "$tmp/replay.iotape" -- \
	"$iotape" replay "$trace" --dir "$tmp/replay" --no-prepare --drop-caches

step "5. iotape compare --map REPLAY --check job.iotape replay.iotape (fidelity of the replay)"
if "$iotape" compare --top 5 --map "$tmp/replay" --check "$trace" "$tmp/replay.iotape"; then
	verdict="the replay did the job's I/O"
else
	verdict="the replay differs from the job (see CHECK above)"
fi

step "done: record -> analyze -> replay -> compare: $verdict"
