"""Writes examples/data/digits.npz from the handwritten digits scikit-learn ships.

Run once, by hand (needs scikit-learn and NumPy; tests never run it):
    python examples/data/digits_npz.py

The 1,797 8x8 images (pixel values 0..16) are split by a fixed NumPy permutation
(seed 0): 1,437 for training, 360 for testing. Stored deflated:
x_train u8[1437, 8, 8], y_train i64[1437], x_test u8[360, 8, 8], y_test i64[360].
Written with scikit-learn 1.9.1 and NumPy 2.x.
"""

from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits


def main() -> None:
    digits = load_digits()
    images = digits.images.astype(np.uint8)
    labels = digits.target.astype(np.int64)
    order = np.random.default_rng(0).permutation(len(labels))
    n_test = 360
    test, train = order[:n_test], order[n_test:]
    out = Path(__file__).with_name("digits.npz")
    np.savez_compressed(
        out,
        x_train=images[train],
        y_train=labels[train],
        x_test=images[test],
        y_test=labels[test],
    )
    print(f"wrote {out}: {len(train)} train, {len(test)} test")


if __name__ == "__main__":
    main()
