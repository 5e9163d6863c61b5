"""torch_job.py DIR N - a PyTorch DataLoader (num_workers=2) over N small
files DIR/sample_<i>.bin; each sample is read whole by a worker process.
Prints the main pid and the number of samples seen; the epoch time (from the
first batch request to the last batch, workers' start included) on stderr."""
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
    root, n = sys.argv[1], int(sys.argv[2])
    loader = DataLoader(Files(root, n), batch_size=8, num_workers=2)
    seen = 0
    t0 = time.monotonic()
    for batch in loader:
        seen += batch.numel()
    epoch = time.monotonic() - t0
    print(os.getpid(), seen)
    print("epoch %.3f s" % epoch, file=sys.stderr)
    return 0 if seen == n else 1


if __name__ == "__main__":
    sys.exit(main())
