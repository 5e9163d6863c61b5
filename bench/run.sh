#!/bin/sh
# bench/run.sh - run the benchmarks and print their figures against targets.
#
#   sh bench/run.sh [OUT]        (make bench runs it with OUT=.output)
#
# Each benchmark is one section below: it runs its program, prints its
# figures with `fig`, and those with a target also land in the summary table
# printed at the end.  A missed target is a result, not a failure: the
# script exits 0 unless a benchmark program crashed or produced no figures.
#
# Environment:
#   FORMAT_EVENTS  syscall events for the format bench (default 10000000)
#   BENCH_RUNS     runs per measurement, best kept (default 3)
#   BENCH_KEEP=1   keep the trace and CSV files under OUT/bench/work
#   BENCH_ONLY     run only this section (format, ...)
set -u

OUT=${1:-.output}
WORK=$OUT/bench/work
SUMMARY=$WORK/summary.txt
FAILED=0
mkdir -p "$WORK" || exit 1
: > "$SUMMARY"

now() { date +%s.%N; }

# fig LABEL VALUE [TARGET_OP TARGET [NOTE]]
#   TARGET_OP is ge (value >= target), le (value <= target), - (no target)
#   or = (no target, but listed in the summary).
fig() {
	label=$1 value=$2 op=${3:--} target=${4:-} note=${5:-}
	if [ "$op" = - ] || [ "$op" = = ]; then
		printf '  %-28s %14s  %-9s %-5s %s\n' "$label" "$value" "-" "" "$note"
		[ "$op" = = ] && printf '%s|%s|%s|-|\n' "$SECTION" "$label" "$value" >> "$SUMMARY"
		return
	fi
	verdict=$(awk -v v="$value" -v t="$target" -v op="$op" 'BEGIN {
		ok = (op == "ge") ? (v + 0 >= t + 0) : (v + 0 <= t + 0)
		print ok ? "PASS" : "MISS" }')
	sym=">="; [ "$op" = le ] && sym="<="
	printf '  %-28s %14s  %-9s %-5s %s\n' "$label" "$value" "$sym $target" "$verdict" "$note"
	printf '%s|%s|%s|%s|%s\n' "$SECTION" "$label" "$value" "$sym $target" "$verdict" >> "$SUMMARY"
}

section() {
	SECTION=$1
	echo
	echo "== $1: $2"
}

# kv FILE KEY: the value of KEY=... in a key=value file.
kv() { awk -F= -v k="$2" '$1 == k { print substr($0, length(k) + 2); exit }' "$1"; }

# calc EXPR: floating-point arithmetic with awk, e.g. calc "$a / $b" 3
calc() { awk "BEGIN { printf \"%.${2:-2}f\", $1 }"; }

# thousands separators for counts
count() { printf '%s' "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }

want() { [ -z "${BENCH_ONLY:-}" ] || [ "$BENCH_ONLY" = "$1" ]; }

echo "iotape benchmarks ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (figures are only comparable on an idle machine)"
echo "machine: $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'), $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r)"

# ------------------------------------------------------------------ format
# Trace size and speed against CSV + zstd -3 (bench/format_bench.c).
format_section() {
	section format "trace encoding vs CSV + zstd -3 (bench/format_bench.c)"
	bin=$OUT/bench/format_bench
	trace=$WORK/format.tape
	csv=$WORK/format.csv
	res=$WORK/format.kv
	if [ ! -x "$bin" ]; then
		echo "  $bin is not built (make bench builds it)"
		FAILED=1
		return
	fi
	n=${FORMAT_EVENTS:-10000000}
	if ! "$bin" -q -n "$n" -r "${BENCH_RUNS:-3}" -o "$trace" -C "$csv" > "$res"; then
		echo "  format_bench failed"
		FAILED=1
		return
	fi
	[ "$(kv "$res" roundtrip)" = ok ] || { echo "  format_bench: no round trip"; FAILED=1; return; }

	# The CSV baseline is what `iotape dump --format csv` prints; format_bench
	# writes the same bytes itself so the bench runs before the CLI exists.
	csvsrc="format_bench (same bytes as iotape dump --format csv)"
	if [ -x ./iotape ] && ./iotape dump --format csv -o "$csv.dump" "$trace" 2>/dev/null; then
		if cmp -s "$csv" "$csv.dump"; then
			csvsrc="iotape dump --format csv (identical to format_bench's)"
		else
			csvsrc="iotape dump --format csv (DIFFERS from format_bench's: $(cmp "$csv" "$csv.dump" 2>&1 | head -1))"
		fi
		mv "$csv.dump" "$csv"
	fi
	rm -f "$csv.dump"
	csvb=$(wc -c < "$csv")

	zb='' zt=''
	if command -v zstd > /dev/null 2>&1; then
		t0=$(now)
		if zstd -3 -q -f "$csv" -o "$csv.zst"; then
			zt=$(calc "$(now) - $t0" 2)
			zb=$(wc -c < "$csv.zst")
		fi
	fi

	sys=$(kv "$res" syscall_events)
	ev=$(kv "$res" events)
	tb=$(kv "$res" trace_bytes)
	sb=$(kv "$res" table_syscall_bytes)
	echo "  $(count "$sys") syscall events ($(kv "$res" span_s) s of a training job, seed $(kv "$res" seed)) +" \
		"$(count "$(kv "$res" file_events)") file, $(count "$(kv "$res" block_events)") block," \
		"$(count "$(kv "$res" cache_events)") cache, $(kv "$res" process_events) process rows; pinned to CPU $(kv "$res" cpu)"
	echo "  csv: $csvsrc"
	echo
	fig "events" "$(count "$ev")" = "" "all tables"
	fig "trace bytes" "$(count "$tb")" - "" "$(calc "$tb / 1048576" 1) MiB, whole file"
	fig "trace bytes/event" "$(calc "$tb / $ev" 2)" = "" "whole file / all events"
	fig "syscall table bytes/event" "$(calc "$sb / $sys" 2)" - "" "syscall blocks only"
	fig "csv bytes/event" "$(calc "$csvb / $sys" 2)" - "" "$(calc "$csvb / 1048576" 0) MiB"
	if [ -n "$zb" ]; then
		fig "csv+zstd-3 bytes/event" "$(calc "$zb / $sys" 2)" = "" "$(calc "$zb / 1048576" 1) MiB, zstd -3 took $zt s"
		fig "ratio trace/csv.zst" "$(calc "$sb / $zb" 3)" le 0.33 "syscall table vs the same rows as csv"
		fig "ratio file/csv.zst" "$(calc "$tb / $zb" 3)" - "" "whole file (file, block, cache tables too)"
	else
		echo "  zstd not installed: no csv+zstd figures (apt-get install zstd)"
	fi
	fig "encode Mev/s" "$(kv "$res" encode_mev_s)" ge 20 "$(kv "$res" encode_s) s for all events, open to close"
	fig "encode Mev/s (cpu time)" "$(kv "$res" encode_cpu_mev_s)" - "" "$(kv "$res" encode_cpu_s) s of CPU; differs from the wall figure when the machine is busy"
	fig "decode Mev/s" "$(kv "$res" decode_hot_mev_s)" ge 50 "$(kv "$res" decode_hot_s) s, syscall table, page cache hot"
	fig "decode Mev/s (cpu time)" "$(kv "$res" decode_hot_cpu_mev_s)" - "" "$(kv "$res" decode_hot_cpu_s) s of CPU"
	fig "decode Mev/s (cold)" "$(kv "$res" decode_cold_mev_s)" - "" "$(kv "$res" decode_cold_s) s, file evicted first"
	busy=$(awk -v w="$(kv "$res" encode_s)" -v c="$(kv "$res" encode_cpu_s)" 'BEGIN { print (w > 1.15 * c) ? 1 : 0 }')
	if [ "$busy" = 1 ]; then
		echo "  note: wall time exceeded CPU time by more than 15%: the machine was busy"
		echo "        (load $(cut -d' ' -f1-3 /proc/loadavg)); compare the cpu-time figures"
	fi

	if [ "${BENCH_KEEP:-0}" != 1 ]; then
		rm -f "$trace" "$csv" "$csv.zst"
	fi
}
want format && format_section

# ----------------------------------------------------------------- summary
echo
echo "== summary (best of ${BENCH_RUNS:-3} runs; a MISS is a result, not an error)"
if [ -s "$SUMMARY" ]; then
	awk -F'|' 'BEGIN { printf "  %-10s %-28s %14s  %-9s %s\n", "bench", "metric", "value", "target", "result" }
		{ printf "  %-10s %-28s %14s  %-9s %s\n", $1, $2, $3, $4, $5 }' "$SUMMARY"
else
	echo "  no figures"
fi
[ "$FAILED" = 0 ] || { echo "bench: some benchmark failed to run" >&2; exit 1; }
exit 0
