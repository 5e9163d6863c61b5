"""torch_job.py DIR N [--epochs E] [--shuffle] [--seed S] - a PyTorch
DataLoader (batch_size=8, num_workers=2) over N small files
DIR/sample_<i>.bin; each sample is read whole by a worker process, once per
epoch.  Without --shuffle the files are visited in index (= name) order;
with it, in a new random order each epoch (seeded by --seed, default 0).
Workers are not persistent: each epoch forks its own two workers.

Prints the main pid and the number of samples seen in all epochs; the epoch
time (from the first batch request to the last batch, workers' start
included) on stderr: "epoch T s" for one epoch (bench/run.sh reads it),
"epoch K T s" per epoch for several."""
import argparse
import os
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Files(Dataset):
    def __init__(self, root, n):
        self.paths = [os.path.join(root, "sample_%04d.bin" % i) for i in range(n)]

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        with open(self.paths[i], "rb") as f:
            data = f.read()
        return torch.frombuffer(bytearray(data), dtype=torch.uint8).float().mean()


def main():
    ap = argparse.ArgumentParser(description="PyTorch DataLoader over small files")
    ap.add_argument("root")
    ap.add_argument("n", type=int)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--shuffle", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    g = torch.Generator()
    g.manual_seed(a.seed)
    loader = DataLoader(Files(a.root, a.n), batch_size=8, num_workers=2,
                        shuffle=a.shuffle, generator=g)
    seen = 0
    for e in range(a.epochs):
        t0 = time.monotonic()
        for batch in loader:
            seen += batch.numel()
        t = time.monotonic() - t0
        if a.epochs == 1:
            print("epoch %.3f s" % t, file=sys.stderr)
        else:
            print("epoch %d %.3f s" % (e, t), file=sys.stderr)
    print(os.getpid(), seen)
    return 0 if seen == a.n * a.epochs else 1


if __name__ == "__main__":
    sys.exit(main())
