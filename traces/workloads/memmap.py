#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""memmap.py DATADIR [--epochs N] [--samples S] [--dim D] [--batch B]
[--workers W] [--seed S]

Workload 2 of traces/: a data set read through a memory map, the way numpy
memmaps (and HuggingFace/Arrow data sets) are read: no read() for the data,
only page faults on a file mapping.

Creates DATADIR/features.npy (S x D float32, seeded: a class centroid plus
noise; 64 MiB by default) and DATADIR/labels.npy (S int64) if absent, then
trains an MLP (D -> 256 -> 10, Adam) for N epochs.  Samples are visited in a
new random order each epoch (seeded) by a DataLoader with W non-persistent
workers; each worker maps the files with numpy.load(mmap_mode="r") and copies
one row per sample, so every first touch of a page is a page fault on the
file mapping (4 KiB rows: one page per sample at the default D = 1024).

Prints one line: workload, samples seen, epochs, final loss, wall time."""
import argparse
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


def make_dataset(root, samples, dim, seed):
    done = os.path.join(root, ".complete")
    if os.path.exists(done):
        return
    os.makedirs(root, exist_ok=True)
    rng = np.random.default_rng(seed)
    centroids = rng.normal(0, 1, size=(10, dim)).astype(np.float32)
    labels = rng.integers(0, 10, size=samples)
    feats = np.lib.format.open_memmap(os.path.join(root, "features.npy"), mode="w+",
                                      dtype=np.float32, shape=(samples, dim))
    step = 4096
    for i in range(0, samples, step):
        j = min(i + step, samples)
        feats[i:j] = centroids[labels[i:j]] + \
            rng.normal(0, 12, size=(j - i, dim)).astype(np.float32)
    feats.flush()
    del feats
    np.save(os.path.join(root, "labels.npy"), labels.astype(np.int64))
    with open(done, "w") as f:
        f.write("%d %d %d\n" % (samples, dim, seed))


class Mapped(Dataset):
    """Rows of a .npy file mapped read-only; opened lazily in each worker."""

    def __init__(self, root):
        self.root = root
        self.labels = np.load(os.path.join(root, "labels.npy"))
        self.x = None

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        if self.x is None:
            self.x = np.load(os.path.join(self.root, "features.npy"), mmap_mode="r")
        return torch.from_numpy(np.array(self.x[i])), int(self.labels[i])


def main():
    ap = argparse.ArgumentParser(description="MLP over a numpy memmap")
    ap.add_argument("datadir")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--samples", type=int, default=16384)
    ap.add_argument("--dim", type=int, default=1024)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    t0 = time.monotonic()
    make_dataset(a.datadir, a.samples, a.dim, a.seed)

    torch.manual_seed(a.seed)
    g = torch.Generator()
    g.manual_seed(a.seed)
    ds = Mapped(a.datadir)
    loader = DataLoader(ds, batch_size=a.batch, shuffle=True, num_workers=a.workers,
                        generator=g)
    model = nn.Sequential(nn.Linear(a.dim, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    seen = 0
    loss = torch.zeros(())
    for e in range(a.epochs):
        for x, y in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            seen += len(y)
    print("memmap: %d samples, %d epochs, loss %.3f, %.1f s"
          % (seen, a.epochs, loss.item(), time.monotonic() - t0))
    return 0 if seen == len(ds) * a.epochs else 1


if __name__ == "__main__":
    sys.exit(main())
