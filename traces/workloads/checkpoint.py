#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""checkpoint.py DATADIR [--steps N] [--every K] [--width W] [--batch B]
[--keep K] [--seed S]

Workload 4 of traces/: a checkpoint-heavy job, whose I/O is mostly large
writes of its own state.

Trains an MLP (W -> 2W -> 2W -> W/2 -> 10, about 8.4 M parameters at the
default W = 1024) with Adam on seeded synthetic batches generated in memory
(no data set is read), and every K steps saves the model and optimizer
state (about 96 MiB: the parameters and Adam's two moments) the way careful
jobs do: torch.save into DATADIR/ckpt_<step>.pt.tmp, flush, os.fsync, then
os.replace to DATADIR/ckpt_<step>.pt and an fsync of DATADIR; only the
newest --keep checkpoints are kept (older ones are unlinked).  DATADIR is
created if absent.

Prints one line: workload, steps, checkpoints, bytes per checkpoint, final
loss, wall time."""
import argparse
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def save(state, path, dirfd):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    os.fsync(dirfd)
    return os.path.getsize(path)


def main():
    ap = argparse.ArgumentParser(description="checkpoint-heavy MLP training")
    ap.add_argument("datadir")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--width", type=int, default=1024)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--keep", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    t0 = time.monotonic()
    os.makedirs(a.datadir, exist_ok=True)
    dirfd = os.open(a.datadir, os.O_RDONLY | os.O_DIRECTORY)

    torch.manual_seed(a.seed)
    w = a.width
    model = nn.Sequential(nn.Linear(w, 2 * w), nn.ReLU(), nn.Linear(2 * w, 2 * w), nn.ReLU(),
                          nn.Linear(2 * w, w // 2), nn.ReLU(), nn.Linear(w // 2, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    g = torch.Generator()
    g.manual_seed(a.seed)
    centroids = torch.randn(10, w, generator=g)
    saved = []
    size = 0
    loss = torch.zeros(())
    for step in range(1, a.steps + 1):
        y = torch.randint(0, 10, (a.batch,), generator=g)
        x = centroids[y] + 6 * torch.randn(a.batch, w, generator=g)
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        if step % a.every == 0:
            path = os.path.join(a.datadir, "ckpt_%05d.pt" % step)
            size = save({"step": step, "model": model.state_dict(),
                         "optimizer": opt.state_dict()}, path, dirfd)
            saved.append(path)
            while len(saved) > a.keep:
                os.unlink(saved.pop(0))
    os.close(dirfd)
    print("checkpoint: %d steps, %d checkpoints of %.1f MiB, loss %.3f, %.1f s"
          % (a.steps, a.steps // a.every, size / 2**20, loss.item(), time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
