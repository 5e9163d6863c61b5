#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""image_folder.py DATADIR [--epochs N] [--classes C] [--per-class K] [--size S]
[--batch B] [--workers W] [--seed S]

Workload 1 of traces/: image classification from a folder of JPEG files.

Creates DATADIR/images/<class>/img_<i>.jpg if absent (C classes x K images
of S x S pixels, seeded, each class a colour-and-stripes pattern plus noise,
written with PIL at quality 90), then trains a small CNN on it with
torchvision's ImageFolder and a DataLoader (shuffle=True, num_workers=W,
non-persistent workers: each epoch forks its own), SGD with momentum, for N
epochs, and saves a checkpoint (model + optimizer state, about 8 MiB) with
torch.save to DATADIR/ckpt/epoch_<e>.pt after each epoch.

Prints one line: workload, samples seen, epochs, final loss, accuracy of the
last epoch, wall time."""
import argparse
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def make_dataset(root, classes, per_class, size, seed):
    done = os.path.join(root, ".complete")
    if os.path.exists(done):
        return
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size]
    for c in range(classes):
        d = os.path.join(root, "class_%02d" % c)
        os.makedirs(d, exist_ok=True)
        base = rng.integers(40, 216, size=3)
        period = 4 + 2 * c
        for i in range(per_class):
            phase = rng.integers(0, period)
            stripes = ((xx + yy * (c % 3) + phase) // (period // 2)) % 2
            img = base[None, None, :] + 40 * stripes[..., None] \
                + rng.normal(0, 20, size=(size, size, 3))
            img = np.clip(img, 0, 255).astype(np.uint8)
            Image.fromarray(img).save(os.path.join(d, "img_%04d.jpg" % i), quality=90)
    with open(done, "w") as f:
        f.write("%d %d %d %d\n" % (classes, per_class, size, seed))


class Net(nn.Module):
    def __init__(self, size, classes):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * (size // 4) ** 2, 128)
        self.fc2 = nn.Linear(128, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


def main():
    ap = argparse.ArgumentParser(description="ImageFolder JPEG classification")
    ap.add_argument("datadir")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--per-class", type=int, default=80)
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    t0 = time.monotonic()
    images = os.path.join(a.datadir, "images")
    ckpt = os.path.join(a.datadir, "ckpt")
    make_dataset(images, a.classes, a.per_class, a.size, a.seed)
    os.makedirs(ckpt, exist_ok=True)

    torch.manual_seed(a.seed)
    g = torch.Generator()
    g.manual_seed(a.seed)
    tf = transforms.Compose([transforms.ToTensor(),
                             transforms.Normalize((0.5, 0.5, 0.5), (0.25, 0.25, 0.25))])
    ds = datasets.ImageFolder(images, transform=tf)
    loader = DataLoader(ds, batch_size=a.batch, shuffle=True, num_workers=a.workers,
                        generator=g)
    model = Net(a.size, len(ds.classes))
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    seen = correct = n = 0
    loss = torch.zeros(())
    for e in range(a.epochs):
        correct = n = 0
        for x, y in loader:
            opt.zero_grad()
            out = model(x)
            loss = F.cross_entropy(out, y)
            loss.backward()
            opt.step()
            seen += len(y)
            n += len(y)
            correct += (out.argmax(1) == y).sum().item()
        torch.save({"epoch": e, "model": model.state_dict(), "optimizer": opt.state_dict()},
                   os.path.join(ckpt, "epoch_%d.pt" % e))
    print("image_folder: %d samples, %d epochs, loss %.3f, acc %.3f, %.1f s"
          % (seen, a.epochs, loss.item(), correct / max(n, 1), time.monotonic() - t0))
    return 0 if seen == len(ds) * a.epochs else 1


if __name__ == "__main__":
    sys.exit(main())
