#!/bin/sh
# bench/bpfcost.sh [record options] - average run time of each of the
# recorder's BPF programs (kernel.bpf_stats_enabled) while the 4 KiB pread
# loop runs traced.  Root; make && make tests first.
#
#   sh bench/bpfcost.sh              all layers
#   sh bench/bpfcost.sh -e syscall   one layer
#
# Only this recording's programs are shown (the ids behind the recorder's
# fds): other recorders on the machine load programs of the same names.
# The statistics add two clock reads to every run, ~20 ns.
top=$(cd "$(dirname "$0")/.." && pwd)
w=$(mktemp -d /tmp/iotape-bpfcost.XXXXXX) || exit 1
trap 'rm -rf "$w"' EXIT
head -c 1048576 /dev/urandom >"$w/f.dat"
sysctl -qw kernel.bpf_stats_enabled=1 || exit 1
"$top/iotape" record -q "$@" -o "$w/t.iotape" -- \
	"$top/.output/tests/preadbench" "$w/f.dat" 3000000 4096 &
rec=$!
sleep 3
for id in $(sed -n 's/^prog_id:[[:space:]]*//p' /proc/$rec/fdinfo/* 2>/dev/null | sort -un); do
	bpftool prog show id "$id"
done | grep -oE "name [a-z_]+|run_time_ns [0-9]+ run_cnt [0-9]+" | paste - - |
	awk '$6 > 0 { printf "%-16s %8.1f ns/run %10d runs\n", $2, $4 / $6, $6 }'
wait
sysctl -qw kernel.bpf_stats_enabled=0
