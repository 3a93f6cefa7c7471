#!/usr/bin/env python3
"""Side-by-side timing of tsr against NumPy, ONNX Runtime, ggml and CPython (see README.md).

Run with any python3: on first use it creates benches/compare/.venv with the peers
(requirements.txt) and re-runs itself there. Then it builds tsr (unless --tsr is
given), and for each case and thread count alternates peer and tsr rounds, takes
medians over all samples, and prints the table (also written as markdown to --out).
"""

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
VENV = HERE / ".venv"
VENV_PYTHON = VENV / "bin" / "python"
WORK = HERE / ".work"

PEER_MODULES = "import numpy, onnxruntime, onnx, threadpoolctl, cmake"


def ensure_venv():
    """Re-executes this script in .venv, creating and filling the venv first if needed."""
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    ready = VENV_PYTHON.exists() and (
        subprocess.run([VENV_PYTHON, "-c", PEER_MODULES], capture_output=True).returncode == 0
    )
    if not ready:
        print(f"compare: setting up {VENV} (numpy, onnxruntime, onnx, threadpoolctl, cmake)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        pip = [VENV_PYTHON, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run(pip + ["-r", HERE / "requirements.txt"], check=True)
    os.execv(VENV_PYTHON, [str(VENV_PYTHON), str(Path(__file__).resolve()), *sys.argv[1:]])


# The sibling modules below import only the standard library; the venv matters for the
# peer worker, which this process starts with its own interpreter.
if __name__ == "__main__":
    ensure_venv()
from cases import CASES  # noqa: E402
from ggml_build import ensure_ggml  # noqa: E402
from table import Row, markdown_table, text_table  # noqa: E402
from timing_plan import TimingPlan, summarize  # noqa: E402
from tsr_script import check_script, timing_script  # noqa: E402


class Settings:
    """Rounds and per-round plans for a full or a --quick run."""

    def __init__(self, quick, rounds=None, budget=None):
        self.rounds = rounds or (2 if quick else 5)
        budget = budget or (0.03 if quick else 0.25)
        self.plan = TimingPlan(budget=budget, min_reps=1 if quick else 3, max_reps=20 if quick else 200)
        # tsr-only cases need no interleaving: one longer round.
        self.solo_plan = TimingPlan(
            budget=budget * 3, min_reps=self.plan.min_reps * 2, max_reps=self.plan.max_reps
        )
        # A case whose first round is slow gets fewer rounds, keeping a full run bounded.
        self.case_seconds = 8 if quick else 40
        self.startup_runs = 3 if quick else 10


def build_tsr():
    print("compare: cargo build --release", file=sys.stderr)
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    if not target.is_absolute():
        target = ROOT / target
    return target / "release" / "tsr"


# --peer-isa avx2: the peers' kernels of the AVX2 reference machine (docs/TARGETS.md's Zen 3)
# on an AVX-512 machine, where NumPy would otherwise take AVX-512 loops for exp, tanh
# etc. and OpenBLAS its SkylakeX kernels, which tsr (an AVX2 product) does not use.
# ONNX Runtime has no such switch.
AVX2_PEER_ENV = {
    "OPENBLAS_CORETYPE": "Haswell",
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
}


def ensure_torch(site):
    """Makes PyTorch importable by the peer worker: from `site` (a site-packages folder
    holding torch) when given, else installed into .venv from requirements-torch.txt
    (a large download: PyPI's Linux wheel brings CUDA libraries; only the CPU is used).
    Returns the folder the worker appends to its sys.path (empty: none needed)."""
    if site:
        return Path(site).resolve()
    if subprocess.run([VENV_PYTHON, "-c", "import torch"], capture_output=True).returncode != 0:
        print("compare: installing PyTorch into .venv (requirements-torch.txt)", file=sys.stderr)
        pip = [VENV_PYTHON, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run(pip + ["-r", HERE / "requirements-torch.txt"], check=True)
    return ""



class PeerWorker:
    """peer_worker.py in its own process, with its thread count fixed by its environment."""

    def __init__(self, threads, peer_isa, ggml_lib, torch_site=None):
        env = dict(os.environ)
        # Only a run with torch rows (train, bf16) loads torch (its OpenMP runtime would
        # be loaded beside NumPy's in every worker otherwise).
        if torch_site is not None:
            env["TORCH_PEER"] = "1"
            env["TORCH_SITE"] = str(torch_site)
        if ggml_lib:
            env["GGML_PEER_LIB"] = str(ggml_lib)
        # Set on some machines to steer OpenBLAS; they slow current NumPy, so drop them.
        env.pop("OPENBLAS_CORETYPE", None)
        env.pop("OPENBLAS_L2_SIZE", None)
        env.pop("NPY_DISABLE_CPU_FEATURES", None)
        if peer_isa == "avx2":
            env.update(AVX2_PEER_ENV)
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = str(threads)
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE / "peer_worker.py"), str(threads)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=HERE,
        )

    def ask(self, cmd, **kw):
        self.proc.stdin.write(json.dumps({"cmd": cmd, **kw}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("peer worker exited")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return reply

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


class TsrError(RuntimeError):
    pass


def slug(name):
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")


def run_tsr(tsr, threads, script_text, script_name):
    WORK.mkdir(exist_ok=True)
    path = WORK / script_name
    path.write_text(script_text)
    env = dict(os.environ)
    env.pop("TSR_NUM_THREADS", None)
    proc = subprocess.run(
        [str(tsr), "--threads", str(threads), str(path)], capture_output=True, text=True, env=env
    )
    if proc.returncode != 0:
        raise TsrError(f"{path.name}: " + " / ".join(proc.stderr.strip().splitlines()[:3]))
    return proc.stdout


def tsr_samples(tsr, case, threads, plan):
    out = run_tsr(tsr, threads, timing_script(case, plan), f"{slug(case.name)}.tsr")
    samples = [float(line.split()[1]) for line in out.splitlines() if line.startswith("SAMPLE ")]
    if not samples:
        raise TsrError(f"no SAMPLE lines in tsr output: {out[:200]!r}")
    return samples


def check_case(tsr, worker, case, threads):
    """Runs both sides once on the same .npy inputs; returns None when they agree, else why."""
    data = WORK / "check" / slug(case.name)
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    worker.ask("check_inputs", case=case.name, dir=str(data))
    run_tsr(tsr, threads, check_script(case, data), f"check_{slug(case.name)}.tsr")
    verdict = worker.ask("check_compare", dir=str(data))
    shutil.rmtree(data, ignore_errors=True)
    return None if verdict["ok"] else verdict["detail"]


def time_pair(tsr, worker, case, threads, settings):
    """summarize() of the seconds per call of (peer, tsr); rounds alternate who goes first."""
    peer, ours = [], []
    rounds = settings.rounds
    started = time.perf_counter()
    r = 0
    while r < rounds:
        sides = [
            lambda: peer.extend(worker.ask("time", case=case.name, plan=settings.plan.__dict__)["samples"]),
            lambda: ours.extend(tsr_samples(tsr, case, threads, settings.plan)),
        ]
        for side in sides if r % 2 == 0 else reversed(sides):
            side()
        if r == 0:
            rounds = min(rounds, max(1, int(settings.case_seconds / (time.perf_counter() - started))))
        r += 1
    return summarize(peer), summarize(ours)


def time_startup(tsr, settings):
    """Wall time of `tsr -e 1` and `python3 -c pass`, runs alternating."""
    python = shutil.which("python3") or sys.executable
    commands = {"tsr": [str(tsr), "-e", "1"], "python": [python, "-c", "pass"]}
    times = {"tsr": [], "python": []}
    for _ in range(settings.rounds * settings.startup_runs):
        for side, cmd in commands.items():
            t0 = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
            times[side].append(time.perf_counter() - t0)
    return summarize(times["python"]), summarize(times["tsr"])


def status_of(case, threads, peer_ms, tsr_ms):
    target = case.targets.get(threads)
    if target is None:
        return "-", "-"
    return target.label, "met" if target.met(tsr_ms, peer_ms) else "NOT MET"


def run_case(tsr, worker, case, threads, settings, check):
    """One table row; failures become the row's status instead of stopping the run."""
    peer, ours = (None, 0.0), (None, 0.0)
    problem = None
    try:
        if case.peer == "process":
            peer, ours = time_startup(tsr, settings)
        else:
            if check and case.checkable:
                problem = check_case(tsr, worker, case, threads)
            peer, ours = time_pair(tsr, worker, case, threads, settings)
    except TsrError as e:
        return Row(case.name, threads, case.peer_label, None, None, None, "-", "tsr ERROR"), str(e)
    except RuntimeError as e:
        return Row(case.name, threads, case.peer_label, None, None, None, "-", "peer ERROR"), str(e)
    peer_ms = None if peer[0] is None else peer[0] * 1e3
    tsr_ms = ours[0] * 1e3
    target, status = status_of(case, threads, peer_ms, tsr_ms)
    if problem:
        status = "MISMATCH"
    label = "python3 -c pass" if case.peer == "process" else case.peer_label
    row = Row(case.name, threads, label, peer_ms, tsr_ms, max(peer[1], ours[1]), target, status)
    return row, problem


def machine_header(tsr, hellos, settings, quick, peer_isa):
    cpu = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    version = subprocess.run([str(tsr), "--version"], capture_output=True, text=True).stdout
    version = "; ".join(version.split("\n")).strip("; ")
    avx2_env = ", ".join(f"{k}={v}" for k, v in AVX2_PEER_ENV.items())
    rev = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    lines = [
        f"date: {datetime.datetime.now().isoformat(timespec='seconds')}",
        f"machine: {cpu}, {os.cpu_count()} CPUs",
        f"tsr: {tsr} ({version}, checkout {rev or '?'})",
        f"mode: {'quick' if quick else 'full'}, up to {settings.rounds} interleaved rounds, "
        f"{settings.plan.budget:g} s per side per round; medians of all samples",
        f"peer ISA: {peer_isa}" + (f" ({avx2_env})" if peer_isa == "avx2" else ""),
    ]
    for threads, hello in sorted(hellos.items()):
        blas = "; ".join(
            f"{b['internal_api']} {b['version']} kernel {b['architecture']} threads {b['num_threads']}"
            for b in hello["blas"]
        )
        lines.append(
            f"peers at {threads} thread(s): Python {hello['python']}, NumPy {hello['numpy']} "
            f"(SIMD {' '.join(hello['numpy_simd'])}) [{blas}], onnxruntime {hello['onnxruntime']}"
            + (f", {hello['ggml']}" if hello["ggml"] else "")
            + (f", {hello['torch']}" if hello.get("torch") else "")
        )
    return lines


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="few rounds and short budgets (smoke run)")
    p.add_argument("--only", metavar="PATTERN", help="run cases whose name or group matches this regex")
    p.add_argument("--tsr", metavar="PATH", help="tsr binary to time (default: cargo build --release here)")
    p.add_argument("--threads", default="1,2", help="thread counts, comma-separated (default 1,2)")
    p.add_argument("--rounds", type=int, help="interleaved rounds per case (default 5, quick 2)")
    p.add_argument("--budget", type=float, help="seconds per side per round (default 0.25, quick 0.03)")
    p.add_argument(
        "--peer-isa",
        choices=("native", "avx2"),
        default="native",
        help="native: the peers' best kernels here; avx2: NumPy/OpenBLAS limited to AVX2 (see README)",
    )
    p.add_argument("--no-check", action="store_true", help="skip the same-inputs cross-check")
    p.add_argument(
        "--torch-site",
        metavar="DIR",
        help="a site-packages folder with PyTorch for the torch rows (default: install it into .venv)",
    )
    p.add_argument("--out", default=str(HERE / "results.md"), help="markdown file for the table")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    return p.parse_args()


def main():
    args = parse_args()
    cases = CASES
    if args.only:
        pattern = re.compile(args.only, re.IGNORECASE)
        cases = [c for c in cases if pattern.search(c.name) or pattern.search(c.group)]
    if args.list:
        for c in cases:
            print(f"{c.group:12} {c.name}")
        return
    if not cases:
        sys.exit(f"compare: no case matches {args.only!r}")
    tsr = Path(args.tsr).resolve() if args.tsr else build_tsr()
    ggml_lib = ensure_ggml() if any(c.peer == "ggml" for c in cases) else None
    torch_site = ensure_torch(args.torch_site) if any(c.peer == "torch" for c in cases) else None
    settings = Settings(args.quick, args.rounds, args.budget)
    thread_counts = [int(t) for t in args.threads.split(",")]

    results, notes, hellos = {}, [], {}
    jobs = [(t, c) for t in thread_counts for c in cases if t in c.threads]
    started = time.perf_counter()
    for threads in thread_counts:
        worker = PeerWorker(threads, args.peer_isa, ggml_lib, torch_site)
        hellos[threads] = worker.ask("hello")
        for case in (c for c in cases if threads in c.threads):
            row, note = run_case(tsr, worker, case, threads, settings, not args.no_check)
            results[(case.name, threads)] = row
            if note:
                notes.append(f"{case.name} @ {threads}T: {note}")
            ratio = "-" if row.ratio is None else f"{row.ratio:.2f}"
            print(
                f"[{len(results):3}/{len(jobs)}] {case.name} @{threads}T: peer {row.cells()[3]} ms, "
                f"tsr {row.cells()[4]} ms, ratio {ratio}  {row.status}",
                file=sys.stderr,
                flush=True,
            )
        worker.close()

    rows = [results[(c.name, t)] for c in cases for t in thread_counts if (c.name, t) in results]
    header = machine_header(tsr, hellos, settings, args.quick, args.peer_isa)
    header.append(f"wall time: {time.perf_counter() - started:.0f} s")
    print("\n".join(header) + "\n\n" + text_table(rows))
    if notes:
        print("\nnotes:\n" + "\n".join(f"  {n}" for n in notes))
    markdown = "\n".join(["# tsr vs peers", ""] + [f"- {h}" for h in header] + ["", markdown_table(rows), ""])
    if notes:
        markdown += "\nNotes:\n\n" + "\n".join(f"- {n}" for n in notes) + "\n"
    Path(args.out).write_text(markdown)
    print(f"\ncompare: table written to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
