"""How one side times one case in one round; tsr_script.py emits the same steps in tsr.

Both sides: one timed warm-up call; unless it took 10 batches or more (then `inner` is
1), one timed calibration call; then `inner` (a power of two) calls per sample so that
a sample lasts at least `batch` seconds (tiny ops would otherwise measure the clock),
and samples until `budget` seconds have passed and `min_reps` samples exist, at most
`max_reps`. A sample is seconds per call.
"""

from dataclasses import dataclass
from statistics import median, quantiles
from time import perf_counter

MAX_INNER = 1 << 20


@dataclass(frozen=True)
class TimingPlan:
    budget: float
    min_reps: int
    max_reps: int
    batch: float = 0.002


def measure(run, plan):
    """Samples (seconds per call) of `run(n)`, which calls the workload n times."""
    t = perf_counter()
    run(1)
    once = perf_counter() - t
    if once < 10 * plan.batch:
        t = perf_counter()
        run(1)
        once = perf_counter() - t
    inner = 1
    while inner * once < plan.batch and inner < MAX_INNER:
        inner *= 2
    samples = []
    start = perf_counter()
    while (len(samples) < plan.min_reps or perf_counter() - start < plan.budget) and len(
        samples
    ) < plan.max_reps:
        t0 = perf_counter()
        run(inner)
        samples.append((perf_counter() - t0) / inner)
    return samples


def summarize(samples):
    """(median, spread): the spread is the interquartile range over the median, the
    row's noise figure (0 with fewer than two samples)."""
    mid = median(samples)
    if len(samples) < 2 or mid == 0:
        return mid, 0.0
    q1, _, q3 = quantiles(samples, n=4)
    return mid, (q3 - q1) / mid
