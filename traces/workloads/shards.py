#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""shards.py DATADIR [--epochs N] [--shards K] [--records R] [--dim D]
[--batch B] [--workers W] [--bufsize BYTES] [--seed S]

Workload 3 of traces/: sequential streaming of sharded records, the way
WebDataset-style jobs read tar shards.

Creates DATADIR/shard_<k>.tar if absent: K tar files of R records each, a
record being one member "<k>_<r>.bin" holding a little-endian int64 label
followed by D float32 features (seeded; 8 KiB + 8 B at the default D = 2048,
so 2 MiB of data per shard), written with Python's tarfile.  Then trains an
MLP (D -> 128 -> 10, SGD) for N epochs from an IterableDataset: the shards
are split between W DataLoader workers (worker w streams shards w, w+W, ...,
in a seeded order that changes each epoch) and each worker reads its tar
files front to back in streaming mode (tarfile mode "r|", BYTES per read()
call, 1 MiB by default).

Prints one line: workload, samples seen, epochs, final loss, wall time."""
import argparse
import io
import os
import sys
import tarfile
import time
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


def make_dataset(root, shards, records, dim, seed):
    done = os.path.join(root, ".complete")
    if os.path.exists(done):
        return
    os.makedirs(root, exist_ok=True)
    rng = np.random.default_rng(seed)
    centroids = rng.normal(0, 1, size=(10, dim)).astype(np.float32)
    for k in range(shards):
        with tarfile.open(os.path.join(root, "shard_%03d.tar" % k), "w",
                          format=tarfile.USTAR_FORMAT) as tar:
            labels = rng.integers(0, 10, size=records)
            x = centroids[labels] + rng.normal(0, 8, size=(records, dim)).astype(np.float32)
            for r in range(records):
                data = np.int64(labels[r]).tobytes() + x[r].astype("<f4").tobytes()
                ti = tarfile.TarInfo("%03d_%05d.bin" % (k, r))
                ti.size = len(data)
                ti.mtime = 0
                tar.addfile(ti, io.BytesIO(data))
    with open(done, "w") as f:
        f.write("%d %d %d %d\n" % (shards, records, dim, seed))


class Shards(IterableDataset):
    def __init__(self, root, shards, bufsize, seed):
        self.paths = [os.path.join(root, "shard_%03d.tar" % k) for k in range(shards)]
        self.bufsize = bufsize
        self.seed = seed
        self.epoch = 0

    def __iter__(self):
        wi = get_worker_info()
        w, n = (wi.id, wi.num_workers) if wi else (0, 1)
        order = np.random.default_rng(self.seed + self.epoch).permutation(len(self.paths))
        for k in order[w::n]:
            with tarfile.open(self.paths[k], "r|", bufsize=self.bufsize) as tar:
                for m in tar:
                    raw = tar.extractfile(m).read()
                    y = int(np.frombuffer(raw[:8], "<i8")[0])
                    yield torch.from_numpy(np.frombuffer(raw[8:], "<f4").copy()), y


def main():
    ap = argparse.ArgumentParser(description="MLP streaming tar shards")
    ap.add_argument("datadir")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--shards", type=int, default=128)
    ap.add_argument("--records", type=int, default=256)
    ap.add_argument("--dim", type=int, default=2048)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--bufsize", type=int, default=1 << 20)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    # more workers than the 2 CPUs of the machine the trace was recorded on, on purpose
    warnings.filterwarnings("ignore", message="This DataLoader will create")
    t0 = time.monotonic()
    make_dataset(a.datadir, a.shards, a.records, a.dim, a.seed)

    torch.manual_seed(a.seed)
    ds = Shards(a.datadir, a.shards, a.bufsize, a.seed)
    loader = DataLoader(ds, batch_size=a.batch, num_workers=a.workers)
    model = nn.Sequential(nn.Linear(a.dim, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.002, momentum=0.9)
    seen = 0
    loss = torch.zeros(())
    for e in range(a.epochs):
        ds.epoch = e	# the workers are forked per epoch and see it
        for x, y in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            seen += len(y)
    print("shards: %d samples, %d epochs, loss %.3f, %.1f s"
          % (seen, a.epochs, loss.item(), time.monotonic() - t0))
    return 0 if seen == a.shards * a.records * a.epochs else 1


if __name__ == "__main__":
    sys.exit(main())
