#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""loader.py DATADIR [--files N] [--size BYTES] [--epochs E] [--batch B]
[--workers W] [--decode-ms D] [--compute-ms C] [--startup-s S] [--idle-helper S]
[--report FILE]

A training job shaped like DLIO's PyTorch path, whose accelerator
utilization (AU) it measures itself, as DLIO does.

Creates DATADIR/data/file_<i>.bin if absent (N files of BYTES random bytes),
then runs E epochs over them with a torch DataLoader (batch B, W workers,
non-persistent, files in name order).  A worker reads a whole file, then
decodes it: D ms of its own CPU time (a loop until its thread's CPU clock
has advanced D ms, read every 4096 rounds).  The trainer stands for an accelerator as DLIO's does:
it sleeps C ms per batch (computation_time).  --startup-s sleeps S seconds
before the first epoch (imports and set-up that DLIO leaves out of AU);
--idle-helper S forks a child that sleeps S seconds and outlives the
trainer (as Open MPI's orted does).

AU per epoch is DLIO's (dlio_benchmark/utils/statscounter.py): the compute
time of the epoch's steps but the first, over the epoch's time less the
first step's (its loading and compute).  Prints one JSON line (and writes
it to --report): {"pid" (the trainer's), "au": [per epoch], "au_mean", "epochs", "steps",
"wall_s", "compute_s", "windows": [[start, first step's end, end] per epoch,
CLOCK_MONOTONIC seconds]}."""
import argparse
import json
import os
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Files(Dataset):
    def __init__(self, paths, decode_s):
        self.paths = paths
        self.decode_s = decode_s

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        with open(self.paths[i], "rb") as f:
            data = f.read()
        # CPU time, read every 4096 rounds: the clock is a system call
        end = time.thread_time() + self.decode_s
        x = 0
        while time.thread_time() < end:
            for _ in range(4096):
                x += 1
        return len(data), x & 0xff


def make_dataset(root, n, size):
    d = os.path.join(root, "data")
    done = os.path.join(root, ".complete")
    if not os.path.exists(done):
        os.makedirs(d, exist_ok=True)
        for i in range(n):
            with open(os.path.join(d, "file_%05d.bin" % i), "wb") as f:
                f.write(os.urandom(size))
        with open(done, "w") as f:
            f.write("%d %d\n" % (n, size))
    return [os.path.join(d, "file_%05d.bin" % i) for i in range(n)]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("datadir")
    p.add_argument("--files", type=int, default=64)
    p.add_argument("--size", type=int, default=65536)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--decode-ms", type=float, default=0.0)
    p.add_argument("--compute-ms", type=float, default=20.0)
    p.add_argument("--startup-s", type=float, default=0.0)
    p.add_argument("--idle-helper", type=float, default=0.0)
    p.add_argument("--report")
    a = p.parse_args()

    paths = make_dataset(a.datadir, a.files, a.size)
    if a.epochs == 0:
        return 0
    if a.idle_helper > 0 and os.fork() == 0:
        time.sleep(a.idle_helper)
        os._exit(0)
    if a.startup_s > 0:
        time.sleep(a.startup_s)
    # a batch is a list of the samples (no tensors: they would go through
    # shared memory and a socket to each worker, not the pipe alone)
    loader = DataLoader(Files(paths, a.decode_ms / 1e3), batch_size=a.batch,
                        num_workers=a.workers, shuffle=False, persistent_workers=False,
                        collate_fn=list)
    # time.monotonic() is CLOCK_MONOTONIC, a recording's clock
    t0 = time.monotonic()
    aus, steps, compute, windows = [], 0, 0.0, []
    for epoch in range(a.epochs):
        start = time.monotonic()
        comp, proc = [], []
        t_load = time.monotonic()
        for batch in loader:
            t_comp = time.monotonic()
            time.sleep(a.compute_ms / 1e3)       # the accelerator
            now = time.monotonic()
            comp.append(now - t_comp)
            proc.append(now - t_load)
            t_load = now
        end = time.monotonic()
        steps += len(comp)
        compute += sum(comp)
        total = end - start - proc[0]
        aus.append(sum(comp[1:]) / total if len(comp) > 1 and total > 0 else 0.0)
        windows.append([start, start + proc[0], end])
    out = {"pid": os.getpid(), "au": aus, "au_mean": sum(aus) / len(aus), "epochs": a.epochs,
           "steps": steps,
           "wall_s": time.monotonic() - t0, "compute_s": compute, "windows": windows}
    line = json.dumps(out)
    print(line)
    if a.report:
        with open(a.report, "w") as f:
            f.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
