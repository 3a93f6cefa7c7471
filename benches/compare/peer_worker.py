"""The peer side of benches/compare: a long-lived process timing NumPy, ONNX Runtime or
plain CPython for the orchestrator, one JSON request per stdin line, one JSON reply per
stdout line.

Its thread count is fixed by the environment compare.py starts it with
(OPENBLAS_NUM_THREADS etc., read when NumPy loads) and by intra_op_num_threads for ONNX
Runtime sessions. Inputs and sessions are kept for the current case, so rounds after
the first pay no setup.
"""

import ctypes
import json
import os
import platform
import sys
from importlib.metadata import version

import numpy as np
from threadpoolctl import threadpool_info

from cases import CASES_BY_NAME
from timing_plan import TimingPlan, measure


def make_inputs(case, seed=0):
    rng = np.random.default_rng(seed)
    arrays = {}
    for inp in case.inputs:
        a = rng.standard_normal(inp.shape, dtype=np.float32)
        if inp.nan_every:
            a[:, :: inp.nan_every] = np.nan
        arrays[inp.name] = a
    return arrays


def ort_session(case, arrays, threads):
    """A session over one ONNX node: the first input is fed, the others are initializers."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    first = case.inputs[0]
    node = helper.make_node(case.ort_op, [i.name for i in case.inputs], ["y"], **case.ort_attrs)
    graph = helper.make_graph(
        [node],
        "compare",
        [helper.make_tensor_value_info(first.name, TensorProto.FLOAT, list(first.shape))],
        # Every node here keeps the input's rank; the checker wants the rank stated.
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None] * len(first.shape))],
        initializer=[numpy_helper.from_array(arrays[i.name], i.name) for i in case.inputs[1:]],
    )
    # Opset 17 / IR 8 load in every onnxruntime the requirements allow.
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


class Ggml:
    """ggml through our shim (ggml/ggml_peer.c), built by ggml_build.py; its path comes in
    GGML_PEER_LIB. One graph is prepared at a time, for the current case."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.gp_result_len.restype = ctypes.c_int64

    def describe(self):
        text = ctypes.create_string_buffer(512)
        self.lib.gp_describe(text, len(text))
        return text.value.decode()

    def prepare(self, case, arrays, threads):
        w = arrays["w"]
        x = arrays.get("x")
        floats = ctypes.POINTER(ctypes.c_float)
        # ggml spells the k-quant types with a capital K (q4_K); tsr with a small one.
        ggml_type = case.ggml_type.replace("_k", "_K").encode()
        status = self.lib.gp_prepare(
            case.ggml_op.encode(),
            ggml_type,
            w.ctypes.data_as(floats),
            ctypes.c_int64(w.shape[0]),
            ctypes.c_int64(w.shape[1]),
            None if x is None else x.ctypes.data_as(floats),
            ctypes.c_int64(0 if x is None else x.shape[0]),
            threads,
        )
        # The graph keeps its own copies of the inputs; the arrays may go.
        if status != 0:
            raise RuntimeError(f"ggml_peer could not prepare {case.name}")

        def run(n):
            if self.lib.gp_run(n) != 0:
                raise RuntimeError("ggml_graph_compute failed")

        return run, lambda: self.result(case, w, x)

    def result(self, case, w, x):
        out = np.empty(self.lib.gp_result_len(), dtype=np.float32)
        self.lib.gp_run(1)
        self.lib.gp_result(out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
        rows = x.shape[0] if case.ggml_op == "matmul" else w.shape[0]
        return out.reshape(rows, -1)


def numpy_simd():
    """The SIMD targets NumPy's dispatched loops (exp, tanh, ...) may use here."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # a private module: report rather than fail if it moves
        return ["unknown"]
    return [k for k in __cpu_dispatch__ if __cpu_features__.get(k)]


def import_torch():
    """PyTorch, from .venv or from the folder compare.py --torch-site names (searched
    after .venv's own packages, so NumPy stays .venv's)."""
    site = os.environ.get("TORCH_SITE")
    if site and site not in sys.path:
        sys.path.append(site)
    import torch

    return torch


def torch_description():
    """PyTorch's version and the CPU kernels it picked, in a run with torch rows."""
    if not os.environ.get("TORCH_PEER"):
        return None
    try:
        torch = import_torch()
    except ImportError:
        return None
    return f"torch {torch.__version__} ({torch.backends.cpu.get_cpu_capability()})"


class Worker:
    def __init__(self, threads):
        self.threads = threads
        self.case_name = None
        self.run = None
        self.once = None
        lib = os.environ.get("GGML_PEER_LIB")
        self.ggml = Ggml(lib) if lib else None

    def prepare(self, name):
        """Builds `run(n)` (n calls of the case) and `once()` (its result) for case `name`."""
        if name == self.case_name:
            return
        self.case_name = self.run = self.once = None
        case = CASES_BY_NAME[name]
        arrays = make_inputs(case)
        if case.peer == "ort":
            session = ort_session(case, arrays, self.threads)
            feeds = {case.inputs[0].name: arrays[case.inputs[0].name]}

            def run(n):
                for _ in range(n):
                    session.run(["y"], feeds)

            self.run = run
            self.once = lambda: session.run(["y"], feeds)[0]
        elif case.peer == "ggml":
            self.run, self.once = self.ggml_for(case).prepare(case, arrays, self.threads)
        elif case.peer == "torch":
            torch = import_torch()  # only the torch rows need it (requirements-torch.txt)
            torch.set_num_threads(self.threads)
            ns = {"np": np, "torch": torch, "F": torch.nn.functional}
            ns.update({k: torch.from_numpy(v) for k, v in arrays.items()})
            exec(case.peer_setup, ns)
            src = f"def _run(_n):\n    for _ in range(_n):\n        {case.peer_code}\n"
            src += f"def _once():\n    return {case.peer_code}\n"
            exec(src, ns)
            self.run, self.once = ns["_run"], ns["_once"]
        else:
            # The loop is compiled with the inputs as globals, so a call costs what it
            # costs in a user's script: no lambda or indirection per iteration.
            ns = {"np": np, **arrays}
            exec(case.peer_setup, ns)
            src = f"def _run(_n):\n    for _ in range(_n):\n        _y = {case.peer_code}\n"
            src += f"def _once():\n    return {case.peer_code}\n"
            exec(src, ns)
            self.run, self.once = ns["_run"], ns["_once"]
        self.case_name = name

    def ggml_for(self, case):
        if self.ggml is None:
            raise RuntimeError(f"{case.name}: ggml was not built (GGML_PEER_LIB unset)")
        return self.ggml

    def hello(self, _req):
        return {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "numpy_simd": numpy_simd(),
            "onnxruntime": version("onnxruntime"),
            "ggml": self.ggml.describe() if self.ggml else None,
            "torch": torch_description(),
            "blas": [
                {k: info.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
                for info in threadpool_info()
            ],
        }

    def time(self, req):
        self.prepare(req["case"])
        return {"samples": measure(self.run, TimingPlan(**req["plan"]))}

    def check_inputs(self, req):
        """Writes the case's inputs and the peer's result as .npy files into req["dir"]."""
        case = CASES_BY_NAME[req["case"]]
        arrays = make_inputs(case, seed=1)
        for name, a in arrays.items():
            np.save(f"{req['dir']}/{name}.npy", a)
        self.case_name = None
        if case.peer == "ort":
            session = ort_session(case, arrays, self.threads)
            result = session.run(["y"], {case.inputs[0].name: arrays[case.inputs[0].name]})[0]
        elif case.peer == "ggml":
            _, once = self.ggml_for(case).prepare(case, arrays, self.threads)
            result = once()
        else:
            ns = {"np": np, **arrays}
            exec(case.peer_setup, ns)
            result = eval(case.peer_check or case.peer_code, ns)
        np.save(f"{req['dir']}/peer.npy", np.asarray(result))
        return {}

    def check_compare(self, req):
        """Whether tsr.npy matches peer.npy in dtype, shape and values (f32 tolerance)."""
        peer = np.load(f"{req['dir']}/peer.npy")
        ours = np.load(f"{req['dir']}/tsr.npy")
        if peer.dtype != ours.dtype or peer.shape != ours.shape:
            return {
                "ok": False,
                "detail": f"peer {peer.dtype}{list(peer.shape)} vs tsr {ours.dtype}{list(ours.shape)}",
            }
        if peer.dtype.kind == "f":
            scale = float(np.nanmax(np.abs(peer))) if peer.size else 0.0
            close = np.allclose(ours, peer, rtol=1e-3, atol=1e-4 * scale, equal_nan=True)
            worst = float(np.nanmax(np.abs(ours.astype(np.float64) - peer))) if peer.size else 0.0
            return {"ok": bool(close), "detail": f"max abs diff {worst:.3g} (scale {scale:.3g})"}
        equal = np.array_equal(ours, peer)
        return {"ok": bool(equal), "detail": "exact" if equal else "values differ"}


def main():
    worker = Worker(int(sys.argv[1]))
    for line in sys.stdin:
        req = json.loads(line)
        try:
            reply = getattr(worker, req["cmd"])(req)
        except Exception as e:  # reported to the orchestrator, which marks the row
            reply = {"error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
