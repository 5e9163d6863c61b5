# json_mask.py [--keep-null] FILE [FROM TO]... - a JSON output of iotape with what a run's
# timing decides masked (its value written "~"; a latency keeps only its
# count N), by the key's name: times, latencies, rates, AU, CPU and
# context-switch counts, the bytes the storage read (page cache), and
# whatif's job time change, whether a run was cut by --runtime and the
# what-if that helps most (decided by the runs' AU).  Every key, its place
# and every other value stay; with --keep-null a null stays null (whatif's:
# a run without a checkpoint time).  Each FROM in the text (a run's own
# directory) is written TO.  For json_outputs.sh and json_outputs_whatif.sh.
import json, re, sys
VOLATILE = re.compile(
    r"(^|\.)(timestamp|timestamp_ms|time|ctx|minf|majf|usr_cpu|sys_cpu|job_runtime|runtime|"
    r"bw|bw_bytes|iops|read_bw_bytes|write_bw_bytes|storage_read_bytes|au[a-z_]*|[a-z_]*_(ns|s|ms|us|pct|per_s)|"
    r"job_time_change|job_time_estimated|helps_most)$"
    r"|\.latency_(ns|us|ms)\.|(clat_ns|lat_ns|slat_ns)\.(min|max|mean|stddev|percentile)")
def mask(x, path):
    last = path.rsplit(".", 1)[-1]
    if isinstance(x, dict) and last in ("clat_ns", "lat_ns", "slat_ns"):
        return {"N": x.get("N")}        # a latency's count, not its values
    if isinstance(x, dict) and last.startswith("latency_"):
        return "~"
    if isinstance(x, dict):
        return {k: mask(v, path + "." + k if path else k) for k, v in x.items()}
    if isinstance(x, list):
        return [mask(v, path) for v in x]
    if x is None and KEEP_NULL and last != "helps_most":   # (its null is the AU's too)
        return x
    return "~" if VOLATILE.search(path) else x
KEEP_NULL = sys.argv[1] == "--keep-null"
args = sys.argv[2:] if KEEP_NULL else sys.argv[1:]
d = json.load(open(args[0]))
text = json.dumps(mask(d, ""), indent=1) + "\n"
for a, b in zip(args[1::2], args[2::2]):
    text = text.replace(a, b)
sys.stdout.write(text)
