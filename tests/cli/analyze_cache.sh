#!/bin/sh
# analyze_cache.sh - `iotape analyze` on a real recording: after dropping
# the page cache, an 8 MiB file read whole twice with read()
# (tests/helpers/readtwice.c) has cache hit_ratio 0.5 +- 0.05: every page
# missed once, hit once.  The program also maps libc and reads
# ld.so.cache, so the overall ratio is checked against the per-file
# entries (their sums), not against 0.5.
. "$(dirname "$0")/record_lib.sh"
rec_need_bpf
[ -x "$TB/readtwice" ] || skip "no $TB/readtwice (run make tests)"
f=$T/f.dat
head -c 8388608 /dev/urandom >"$f" && sync || fail "cannot write $f"
echo 3 >/proc/sys/vm/drop_caches || skip "cannot drop caches"
"$IOTAPE" record -q -o "$T/t.iotape" -- "$TB/readtwice" "$f" || fail "record failed"
"$IOTAPE" analyze --json "$T/t.iotape" >"$T/a.json" || fail "analyze failed"

# jnum KEY LINE: the number after "KEY": in LINE
jnum() { echo "$2" | sed -n "s/.*\"$1\":\([-0-9.e]*\)[,}].*/\1/p"; }
# files[] rows (4 spaces in); staging.ranked names the file too, on its one line
fl=$(grep -F "    {\"path\":\"$f\"," "$T/a.json")
t_check "files[] has $f" [ -n "$fl" ]
h=$(jnum hit_ratio "$fl")
t_check "hit_ratio of $f is 0.5 +- 0.05 (got $h)" awk "BEGIN { exit !(\"$h\" != \"\" && $h >= 0.45 && $h <= 0.55) }"
t_eq "$f: read_bytes (read twice)" 16777216 "$(jnum read_bytes "$fl")"
t_eq "$f: opens" 2 "$(jnum opens "$fl")"
t_eq "$f: pages accessed (2 x 2048)" 4096 "$(jnum pages_accessed "$fl")"
m=$(jnum pages_missed "$fl")
t_check "$f: pages missed 2048 +- 5% (got $m)" [ "${m:-0}" -ge 1946 -a "${m:-0}" -le 2150 ]
t_eq "$f: read_randomness (sequential)" 0.0 "$(jnum read_randomness "$fl")"

# the overall figures are the sums of the files'
c=$(grep '^  "cache": ' "$T/a.json")
t_check "cache section present" [ -n "$c" ]
sa=$(grep '^    {"path":' "$T/a.json" | sed -n 's/.*"pages_accessed":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
sm=$(grep '^    {"path":' "$T/a.json" | sed -n 's/.*"pages_missed":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
t_eq "cache.pages_accessed = sum over files" "$sa" "$(jnum pages_accessed "$c")"
t_eq "cache.pages_missed = sum over files" "$sm" "$(jnum pages_missed "$c")"
hc=$(jnum hit_ratio "$c")
t_check "cache.hit_ratio = 1 - missed/accessed ($hc)" \
	awk "BEGIN { d = $hc - (1 - $sm / $sa); exit !(d < 1e-6 && d > -1e-6) }"
echo "hit ratio: $f $h (missed $m of $(jnum pages_accessed "$fl") pages), overall $hc"
t_done
