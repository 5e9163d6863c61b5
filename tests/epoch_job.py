"""epoch_job.py KIND DIR make|train [--epochs E] [--seed S] - a job that
reads the records of a data set in container files, for the epoch tests
(tests/cli/analyze_epochs.sh): `make` writes the data set into DIR,
`train` reads every record of it once per epoch, in a new random order
each epoch (seeded), and prints the bytes of records it read.

KIND, the data set and how a record is read:
  h5      6 HDF5 files (h5py), each a data set 'x' of 64 records of
          16 KiB; the files kept open, the records of all six in one
          shuffled order (h5py's sieve buffer reads 64 KiB from each record
          asked for, so one epoch reads each file's bytes about 3 times)
  h5open  the same, each record read through its own h5py.File
  npz     6 .npz files (numpy.savez) of 64 arrays of 16 KiB, kept open
          (numpy.load), the arrays of all six in one shuffled order
  tar     6 tar files (tarfile) of 64 members of 16 KiB, kept open
          (tarfile.open, which opens each three times first to guess its
          compression), the members of all six in one shuffled order
  one     one file of 64 records of 64 KiB, read through one open with
          os.pread at the records' offsets, shuffled
"""
import argparse
import io
import os
import random
import sys

FILES, RECORDS, SIZE = 6, 64, 16384


def make(kind, d):
    os.makedirs(d, exist_ok=True)
    rng = random.Random(7)
    rec = rng.randbytes
    if kind == "one":
        with open(os.path.join(d, "records.bin"), "wb") as f:
            for _ in range(RECORDS):
                f.write(rec(4 * SIZE))
        return
    for i in range(FILES):
        p = os.path.join(d, "part_%d" % i)
        if kind in ("h5", "h5open"):
            import h5py
            import numpy as np
            with h5py.File(p + ".h5", "w") as f:
                f.create_dataset("x", data=np.frombuffer(rec(RECORDS * SIZE), np.uint8)
                                 .reshape(RECORDS, SIZE))
        elif kind == "npz":
            import numpy as np
            np.savez(p + ".npz", **{"r%d" % j: np.frombuffer(rec(SIZE), np.uint8)
                                    for j in range(RECORDS)})
        elif kind == "tar":
            import tarfile
            with tarfile.open(p + ".tar", "w") as t:
                for j in range(RECORDS):
                    m = tarfile.TarInfo("r%04d.bin" % j)
                    m.size = SIZE
                    t.addfile(m, io.BytesIO(rec(SIZE)))


def train(kind, d, epochs, seed):
    rng = random.Random(seed)
    if kind == "one":
        fd = os.open(os.path.join(d, "records.bin"), os.O_RDONLY)
        get = lambda i, j: len(os.pread(fd, 4 * SIZE, j * 4 * SIZE))
        files = 1
    elif kind == "h5":
        import h5py
        xs = [h5py.File(os.path.join(d, "part_%d.h5" % i), "r")["x"] for i in range(FILES)]
        get = lambda i, j: len(xs[i][j])
    elif kind == "h5open":
        import h5py

        def get(i, j):
            with h5py.File(os.path.join(d, "part_%d.h5" % i), "r") as f:
                return len(f["x"][j])
    elif kind == "npz":
        import numpy as np
        zs = [np.load(os.path.join(d, "part_%d.npz" % i)) for i in range(FILES)]
        get = lambda i, j: len(zs[i]["r%d" % j])
    elif kind == "tar":
        import tarfile
        ts = [tarfile.open(os.path.join(d, "part_%d.tar" % i)) for i in range(FILES)]
        ms = [{m.name: m for m in t.getmembers()} for t in ts]
        get = lambda i, j: len(ts[i].extractfile(ms[i]["r%04d.bin" % j]).read())
    else:
        sys.exit("unknown kind " + kind)
    if kind != "one":
        files = FILES
    n = 0
    for _ in range(epochs):
        order = [(i, j) for i in range(files) for j in range(RECORDS)]
        rng.shuffle(order)
        for i, j in order:
            n += get(i, j)
    print(n)


def main():
    ap = argparse.ArgumentParser(description="records in container files, for the epoch tests")
    ap.add_argument("kind", choices=["h5", "h5open", "npz", "tar", "one"])
    ap.add_argument("dir")
    ap.add_argument("what", choices=["make", "train"])
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.what == "make":
        make(a.kind, a.dir)
    else:
        train(a.kind, a.dir, a.epochs, a.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
