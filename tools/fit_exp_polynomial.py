"""Fits the polynomial of `src/kernels/math/exp_f32.rs`: e^r ≈ 1 + r·(1 + r·P(r)) on
|r| ≤ ln2/2 (a little beyond, for the reduction's rounding), P of degree 4 with the
least maximum relative error (Remez exchange), and prints P's coefficients rounded to
f32 with the error they give. Needs NumPy (benches/compare's environment has it):

    benches/compare/.venv/bin/python tools/fit_exp_polynomial.py
"""

import numpy as np

DEGREE = 4  # of P: coefficients c1..c5 of r², r³, ... in e^r - 1 - r
HALF = np.log(2) / 2 * 1.001
GRID = np.linspace(-HALF, HALF, 200_001)


def approx(c, r):
    return 1 + r * (1 + r * np.polyval(np.asarray(c, dtype=np.float64)[::-1], r))


def rel_error(c, r):
    return (approx(c, r) - np.exp(r)) / np.exp(r)


def remez():
    n = DEGREE + 1
    # Start from Chebyshev extrema; each step solves for equal alternating errors at
    # the reference points, then moves them to the new error extrema.
    pts = np.cos(np.pi * np.arange(n + 1) / n)[::-1] * HALF
    for _ in range(50):
        a = np.array([[r ** (k + 2) for k in range(n)] + [-((-1) ** i) * np.exp(r)] for i, r in enumerate(pts)])
        c = np.linalg.solve(a, np.exp(pts) - 1 - pts)[:n]
        e = rel_error(c, GRID)
        cuts = np.where(np.diff(np.sign(e)) != 0)[0] + 1
        extrema = [GRID[s[np.argmax(np.abs(e[s]))]] for s in np.split(np.arange(len(GRID)), cuts)]
        if len(extrema) == n + 1:
            pts = np.array(extrema)
    return c


def main():
    c = remez()
    c32 = [np.float32(v) for v in c]
    fine = np.linspace(-HALF, HALF, 1_000_001)
    print("max relative error, f64 coefficients:", np.abs(rel_error(c, fine)).max())
    print("max relative error, f32 coefficients:", np.abs(rel_error([float(v) for v in c32], fine)).max())
    print("coefficients of r^2, r^3, ... :", ", ".join(repr(float(v)) for v in c32))


if __name__ == "__main__":
    main()
