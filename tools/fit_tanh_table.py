"""Fits the table of `src/kernels/math/tanh_f32.rs` and prints it as Rust.

tanh(a) for a = |x| in [0, 16] is a polynomial of degree 5 in t = a - c on each of 32
intervals, picked by the bits of a: entry 0 is [0, 1/8), where tanh(a) = a + a³·P(a²)
(odd, so tiny values stay exact); entries 1..=28 are the quarter octaves of [1/8, 16)
(2 bits of the mantissa under the exponent); entries 29..=31 hold 16 (and above, as
the kernel clamps a to 16), where tanh rounds to 1.

Each interval's center c is an f32 near its middle whose tanh lies close to an f32
(c0 = that f32 is then nearly exact, and a - c is exact by Sterbenz's lemma); the
other coefficients come from a minimax fit (Remez exchange) of the relative error
with every coefficient free, c0 then replaced. Prints each interval's error bound.
Needs NumPy (benches/compare's environment has it):

    benches/compare/.venv/bin/python tools/fit_tanh_table.py
"""

import sys

import numpy as np

DEGREE = 5
ENTRIES = 32
f32 = np.float32


def remez(basis, lo, hi, iters=80, points=40001):
    """Coefficients of `basis` with the least max |sum - tanh| / tanh on [lo, hi]."""
    n = len(basis)
    grid = np.linspace(lo, hi, points)
    ref = (np.cos(np.pi * np.arange(n + 1) / n)[::-1] + 1) / 2 * (hi - lo) + lo
    best = (np.inf, None)
    for _ in range(iters):
        a = np.array([[b(x) / np.tanh(x) for b in basis] + [(-1.0) ** i] for i, x in enumerate(ref)])
        c = np.linalg.solve(a, np.ones(n + 1))[:n]
        err = (sum(ck * b(grid) for ck, b in zip(c, basis)) - np.tanh(grid)) / np.tanh(grid)
        worst = np.abs(err).max()
        if worst < best[0]:
            best = (worst, c)
        cuts = np.where(np.diff(np.sign(err)) != 0)[0] + 1
        peaks = [grid[s[np.argmax(np.abs(err[s]))]] for s in np.split(np.arange(len(grid)), cuts)]
        if len(peaks) >= n + 1:
            size = [abs(np.interp(x, grid, err)) for x in peaks]
            k = max(range(len(peaks) - n), key=lambda i: min(size[i : i + n + 1]))
            ref = np.array(peaks[k : k + n + 1])
    return best


def miss(c):
    """How far tanh(c) is from the nearest f32, in that f32's ulps."""
    t = np.tanh(np.float64(c))
    near = f32(t)
    return abs(t - np.float64(near)) / np.float64(np.spacing(near))


def center(lo, hi):
    """An f32 in the middle half of [lo, hi] whose tanh is near an f32, preferring the
    middle (a flat tanh near 1 needs the whole span to find one)."""
    mid = (lo + hi) / 2
    xs = np.unique(np.linspace(lo + (hi - lo) / 4, hi - (hi - lo) / 4, 200001).astype(f32))
    return min(xs, key=lambda c: miss(c) + 0.01 * abs(float(c) - mid) / (hi - lo))


def literal(v):
    """The shortest Rust literal that reads back as the f32 nearest v."""
    text = np.format_float_scientific(f32(v), unique=True, trim="0")
    mantissa, exponent = text.split("e")
    exponent = int(exponent)
    if -3 <= exponent <= 2:
        return np.format_float_positional(f32(v), unique=True, trim="0")
    return f"{mantissa}e{exponent}"


def main():
    rows = []
    # Entry 0: a + c3·a³ + c5·a⁵ (the kernel adds a itself, so c1 = 0 here).
    odd = list(range(3, DEGREE + 1, 2))
    err, c = remez([lambda x, k=k: x**k for k in [1] + odd], 1e-6, 0.125)
    coef = [0.0] * (DEGREE + 1)
    for k, v in zip(odd, c[1:]):
        coef[k] = v
    rows.append((0.0, coef, err + abs(c[0] - 1)))
    for i in range(28):
        octave, quarter = divmod(i, 4)
        lo = 2.0 ** (octave - 3) * (1 + quarter / 4)
        hi = lo + 2.0 ** (octave - 3) / 4
        c = center(lo, hi)
        cd = np.float64(c)
        err, cs = remez([lambda x, k=k: (x - cd) ** k for k in range(DEGREE + 1)], lo, hi)
        c0 = f32(np.tanh(cd))
        err += abs(cs[0] - np.float64(c0)) / np.tanh(cd)
        rows.append((float(c), [float(c0)] + list(cs[1:]), err))
    while len(rows) < ENTRIES:
        rows.append((16.0, [1.0] + [0.0] * DEGREE, 0.0))

    for i, (c, _, err) in enumerate(rows):
        bound = f"2^{np.log2(err):.1f}" if err > 0 else "0"
        print(f"entry {i:2}: center {c!r}, relative error of the fit {bound}", file=sys.stderr)
    print("pub(super) const CENTER: [f32; 32] = [")
    print("".join(f"    {literal(c)},\n" for c, _, _ in rows), end="")
    print("];")
    print(f"pub(super) const COEF: [[f32; 32]; {DEGREE + 1}] = [")
    for k in range(DEGREE + 1):
        print("    [")
        print("".join(f"        {literal(coef[k])},\n" for _, coef, _ in rows), end="")
        print("    ],")
    print("];")


if __name__ == "__main__":
    main()
