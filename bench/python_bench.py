# SPDX-License-Identifier: MIT
"""python_bench.py - how fast does python/iotape read a trace into numpy?

    python_bench.py TRACE CSV RUNS

TRACE and CSV hold the same syscall rows (bench/format_bench.c -S -C:
the CSV is what `iotape dump --format csv` prints).  Times, best of RUNS,
wall and CPU of this process:
  arrays   iotape.read_arrays(TRACE): every column into numpy arrays
           (decoded on iotape's default threads: one per CPU, at most 8)
  numeric  the same without the string columns (path, path2)
  frame    iotape.read(TRACE): the pandas DataFrame (categoricals)
  csv      pandas.read_csv(CSV), the peer: the same rows, every column
           (one run: it is the slow one)
Prints key=value lines for bench/run.sh.  Needs numpy and pandas, and
IOTAPE_LIBTAPE or another way for iotape to find libtape.so.
"""
import resource
import sys
import time

import iotape


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def best(f, runs):
    wall = cpus = None
    for _ in range(runs):
        t, c = time.perf_counter(), cpu()
        n = f()
        t, c = time.perf_counter() - t, cpu() - c
        wall = t if wall is None else min(wall, t)
        cpus = c if cpus is None else min(cpus, c)
    return n, wall, cpus


def main():
    trace, csv, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    import pandas as pd

    numeric = [c for c in iotape.columns("syscall") if c not in ("path", "path2")]
    print("threads=%d" % iotape._threads(None))
    tests = [
        ("arrays", lambda: len(iotape.read_arrays(trace)["ts_ns"]), runs),
        ("numeric", lambda: len(iotape.read_arrays(trace, columns=numeric)["ts_ns"]), runs),
        ("frame", lambda: len(iotape.read(trace)), runs),
        ("csv", lambda: len(pd.read_csv(csv)), 1),
    ]
    for name, f, r in tests:
        n, wall, c = best(f, r)
        print("%s_events=%d" % (name, n))
        print("%s_s=%.3f" % (name, wall))
        print("%s_cpu_s=%.3f" % (name, c))
        print("%s_mev_s=%.2f" % (name, n / wall / 1e6))
        print("%s_cpu_mev_s=%.2f" % (name, n / c / 1e6))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
