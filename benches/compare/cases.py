"""The workloads compared: each case states how tsr and its peer compute the same thing.

Used by compare.py (the orchestrator) and peer_worker.py (the NumPy/ORT side), so it
imports nothing outside the standard library. Inputs are f32 standard normals on both
sides (tsr's `randn`, NumPy's `standard_normal(dtype=float32)`); the values differ, the
distributions, shapes and dtypes do not. `compare.py --check` proves the expressions
agree by feeding both sides the same .npy inputs.
"""

from dataclasses import dataclass, field

M1 = 1 << 20  # "1M" elements
M16 = 1 << 24  # "16M" elements, = 4096 * 4096


@dataclass(frozen=True)
class Input:
    """A random f32 input; `nan_every` > 0 sets every k-th column to NaN (nan* reductions)."""

    name: str
    shape: tuple
    nan_every: int = 0


@dataclass(frozen=True)
class Target:
    """What the row must reach: tsr/peer `ratio` <= limit, or tsr time `abs_ms` < limit."""

    kind: str
    limit: float
    label: str

    def met(self, tsr_ms, peer_ms):
        if self.kind == "ratio":
            return peer_ms is not None and tsr_ms / peer_ms <= self.limit
        return tsr_ms < self.limit


def ratio(limit, note=""):
    return Target("ratio", limit, f"<= {limit:g}{note}")


def below_ms(limit, label):
    return Target("abs_ms", limit, label)


@dataclass(frozen=True)
class Case:
    """One row family of the table (one row per thread count).

    peer is "numpy" (peer_code is a Python expression over the inputs and `np`),
    "torch" (PyTorch CPU: peer_code is a call over torch tensors of the inputs, after
    peer_setup, with `torch` and `F` = torch.nn.functional in scope),
    "cpython" (the same, timing plain Python), "ort" (a single ONNX node `ort_op`
    whose first input is fed at run time and the rest are initializers), "ggml"
    (ggml's `ggml_op` on weights quantized to `ggml_type`, see ggml/ggml_peer.c) or
    "process" (startup). tsr is a tsr expression, or statements when tsr_is_stmt.
    peer_check and tsr_check, when set, are what --check compares instead of the timed
    expressions (a quantized result is compared dequantized).
    """

    name: str
    group: str
    inputs: tuple
    tsr: str
    peer: str
    targets: dict = field(default_factory=dict)
    peer_code: str = ""
    peer_setup: str = ""
    peer_check: str = ""
    tsr_setup: str = ""
    tsr_is_stmt: bool = False
    ort_op: str = ""
    ort_attrs: dict = field(default_factory=dict)
    tsr_check: str = ""
    ggml_op: str = ""
    ggml_type: str = ""
    threads: tuple = (1, 2)

    @property
    def checkable(self):
        """Whether both sides return a tensor that --check can compare."""
        return self.peer in ("numpy", "ort", "ggml") and not self.tsr_is_stmt

    @property
    def peer_label(self):
        return {"cpython": "CPython"}.get(self.peer, self.peer)


def both(target):
    return {1: target, 2: target}


def _numpy(name, group, inputs, tsr, peer_code, targets=None, **kw):
    return Case(name, group, tuple(inputs), tsr, "numpy", targets or {}, peer_code, **kw)


def _gemm_cases():
    def mm(name, a, b, target=None):
        targets = both(ratio(target)) if target else {}
        return _numpy(name, "gemm", [Input("a", a), Input("b", b)], "a @ b", "a @ b", targets)

    return [
        mm("matmul 64^3", (64, 64), (64, 64), 1.0),
        mm("matmul 256^3", (256, 256), (256, 256), 1.0),
        mm("matmul 1024^3", (1024, 1024), (1024, 1024), 1.0),
        mm("matmul 2048^3", (2048, 2048), (2048, 2048), 1.0),
        mm("matvec 4096x4096 . 4096", (4096, 4096), (4096,), 1.0),
        mm("batched [64,64,64]@[64,64,64]", (64, 64, 64), (64, 64, 64), 1.0),
        mm("batched [8,512,64]@[8,64,512]", (8, 512, 64), (8, 64, 512), 1.0),
    ] + [
        bf16("bf16 matmul 1024^3", 1024),
        bf16("bf16 x @ w.T [1,4096]x[4096,4096]", 1),
    ]


def bf16(name, rows):
    """A bf16 product against PyTorch's (NumPy has no bf16): no target in the issue, so
    the row is informational. rows 1 is a matrix-vector product, as a token's step."""
    k = 1024 if rows > 1 else 4096
    inputs = [Input("a", (rows, k)), Input("b", (k, k))]
    return Case(
        name,
        "gemm",
        tuple(inputs),
        "ab @ bb" if rows > 1 else "ab @ bb.T",
        "torch",
        peer_code="ab @ bb" if rows > 1 else "ab @ bb.T",
        peer_setup="ab = a.to(torch.bfloat16)\nbb = b.to(torch.bfloat16)",
        tsr_setup="let ab = a.to(bf16)\nlet bb = b.to(bf16)",
    )


# NumPy's ufuncs never use more than one thread, so the 2-thread row's peer time is
# NumPy's single-threaded time, which is what the 0.6 target is stated against.
ELEMENTWISE_TARGETS = {1: ratio(1.0), 2: ratio(0.6, " (NumPy 1T)")}


def _elementwise_cases():
    def binary(name, n, op):
        inputs = [Input("a", (n,)), Input("b", (n,))]
        return _numpy(name, "elementwise", inputs, f"a {op} b", f"a {op} b", ELEMENTWISE_TARGETS)

    def unary(name, n, tsr, peer, targets=ELEMENTWISE_TARGETS):
        return _numpy(name, "elementwise", [Input("x", (n,))], tsr, peer, targets)

    # Vector math against NumPy's SVML loops: half their time on one thread.
    vector_math = {1: ratio(0.5), 2: ratio(0.6, " (NumPy 1T)")}

    return [
        binary("add 1M", M1, "+"),
        binary("add 16M", M16, "+"),
        binary("mul 1M", M1, "*"),
        unary("exp 1M", M1, "exp(x)", "np.exp(x)", vector_math),
        unary("exp 16M", M16, "exp(x)", "np.exp(x)"),
        unary("tanh 1M", M1, "tanh(x)", "np.tanh(x)", vector_math),
        unary("sigmoid 1M", M1, "sigmoid(x)", "1 / (1 + np.exp(-x))", vector_math),
        unary("tanh 16M", M16, "tanh(x)", "np.tanh(x)"),
        unary("maximum(x, 0) 1M", M1, "maximum(x, 0)", "np.maximum(x, 0)"),
        _numpy(
            "[4096,4096] + [4096]",
            "elementwise",
            [Input("a", (4096, 4096)), Input("b", (4096,))],
            "a + b",
            "a + b",
            ELEMENTWISE_TARGETS,
        ),
    ]


def _sort_cases():
    # NumPy sorts on one thread; "faster with 2 threads" is against that same time.
    targets = {1: ratio(1.0), 2: ratio(0.99, " (NumPy 1T)")}
    return [
        _numpy("sort 16M f32", "sort", [Input("x", (M16,))], "sort(x)", "np.sort(x)", targets),
        _numpy(
            "argsort [4096,4096] last axis",
            "sort",
            [Input("x", (4096, 4096))],
            "argsort(x, axis=-1)",
            "np.argsort(x, axis=-1)",
            targets,
            # NumPy's default argsort is not stable (randn rows have ties); tsr's is.
            peer_check='np.argsort(x, axis=-1, kind="stable")',
        ),
    ]


def _linalg_cases():
    # NumPy's linalg is OpenBLAS's LAPACK, threaded like the peer's BLAS; tsr must be at
    # most as slow on one thread and ahead on two.
    targets = {1: ratio(1.0), 2: ratio(0.99)}
    cases = []
    for n in (256, 1024):
        a = [Input("a", (n, n))]
        ab = [Input("a", (n, n)), Input("b", (n, n))]
        spd_np = f"s = a @ a.T + {n} * np.eye({n}, dtype=np.float32)"
        spd_tsr = f"let s = a @ a.mT + {n} * eye({n})"
        sym_np = "h = (a + a.T) / 2"
        sym_tsr = "let h = (a + a.mT) / 2"
        cases += [
            _numpy(f"solve {n}^2", "linalg", ab, "solve(a, b)", "np.linalg.solve(a, b)", targets),
            _numpy(f"inv {n}^2", "linalg", a, "inv(a)", "np.linalg.inv(a)", targets),
            # The factorizations return tuples; the row times the whole call and --check
            # compares the part that is unique (s, w; r up to row signs, which agree here).
            _numpy(f"svd {n}^2", "linalg", a, "svd(a)[1]", "np.linalg.svd(a)[1]", targets),
            _numpy(f"eigh {n}^2", "linalg", a, "eigh(h)[0]", "np.linalg.eigh(h)[0]", targets,
                   peer_setup=sym_np, tsr_setup=sym_tsr),
            _numpy(f"qr {n}^2", "linalg", a, "qr(a)[1]", "np.linalg.qr(a)[1]", targets),
            _numpy(f"cholesky {n}^2", "linalg", a, "cholesky(s)", "np.linalg.cholesky(s)", targets,
                   peer_setup=spd_np, tsr_setup=spd_tsr),
        ]
    cases.append(
        _numpy(
            "einsum bhqd,bhkd->bhqk [8,16,512,64]",
            "linalg",
            [Input("q", (8, 16, 512, 64)), Input("k", (8, 16, 512, 64))],
            'einsum("bhqd,bhkd->bhqk", q, k)',
            'np.einsum("bhqd,bhkd->bhqk", q, k)',
            targets,
        )
    )
    return cases


NUMPY_SOFTMAX = """
def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
"""


def _reduction_cases():
    # The issue states reduction targets single-threaded only; the 2-thread row is shown bare.
    targets = {1: ratio(1.0)}

    def red(name, tsr, peer, nan_every=0, **kw):
        x = Input("x", (4096, 4096), nan_every)
        return _numpy(f"{name} [4096,4096]", "reduction", [x], tsr, peer, targets, **kw)

    return [
        red("sum all", "sum(x)", "x.sum()"),
        red("sum axis 0", "sum(x, axis=0)", "x.sum(axis=0)"),
        red("sum axis 1", "sum(x, axis=1)", "x.sum(axis=1)"),
        red("max axis 1", "max(x, axis=1)", "x.max(axis=1)"),
        red("argmax axis 1", "argmax(x, axis=1)", "x.argmax(axis=1)"),
        red("mean axis 0", "mean(x, axis=0)", "x.mean(axis=0)"),
        red("softmax last axis", "softmax(x, axis=-1)", "softmax(x)", peer_setup=NUMPY_SOFTMAX),
        red("nansum all", "nansum(x)", "np.nansum(x)", nan_every=16),
    ]


def _ort(name, inputs, tsr, op, attrs, limit):
    inputs = tuple(Input(n, s) for n, s in inputs)
    return Case(name, "conv", inputs, tsr, "ort", both(ratio(limit)), ort_op=op, ort_attrs=attrs)


def _conv_cases():
    def pads(p):
        return [p, p, p, p]

    return [
        _ort(
            "conv [1,64,56,56]*[64,64,3,3] pad 1",
            [("x", (1, 64, 56, 56)), ("w", (64, 64, 3, 3)), ("b", (64,))],
            "conv2d(x, w, b, padding=1)",
            "Conv",
            {"pads": pads(1)},
            1.0,
        ),
        _ort(
            "conv [1,3,224,224]*[64,3,7,7] stride 2 pad 3",
            [("x", (1, 3, 224, 224)), ("w", (64, 3, 7, 7)), ("b", (64,))],
            "conv2d(x, w, b, stride=2, padding=3)",
            "Conv",
            {"strides": [2, 2], "pads": pads(3)},
            1.0,
        ),
        _ort(
            "conv [8,32,32,32]*[64,32,3,3] pad 1",
            [("x", (8, 32, 32, 32)), ("w", (64, 32, 3, 3)), ("b", (64,))],
            "conv2d(x, w, b, padding=1)",
            "Conv",
            {"pads": pads(1)},
            1.0,
        ),
        _ort(
            "depthwise [1,256,28,28] 3x3 pad 1",
            [("x", (1, 256, 28, 28)), ("w", (256, 1, 3, 3)), ("b", (256,))],
            "conv2d(x, w, b, padding=1, groups=256)",
            "Conv",
            {"pads": pads(1), "group": 256},
            1.0,
        ),
        _ort(
            "conv_transpose [1,64,28,28]*[64,32,4,4] stride 2 pad 1",
            [("x", (1, 64, 28, 28)), ("w", (64, 32, 4, 4)), ("b", (32,))],
            "conv_transpose2d(x, w, b, stride=2, padding=1)",
            "ConvTranspose",
            {"strides": [2, 2], "pads": pads(1)},
            1.0,
        ),
        _ort(
            "max_pool 3x3 stride 2 [1,64,112,112]",
            [("x", (1, 64, 112, 112))],
            "max_pool2d(x, 3, stride=2)",
            "MaxPool",
            {"kernel_shape": [3, 3], "strides": [2, 2]},
            1.0,
        ),
        _ort(
            "global avg pool [8,512,7,7]",
            [("x", (8, 512, 7, 7))],
            "global_avg_pool2d(x)",
            "GlobalAveragePool",
            {},
            1.0,
        ),
    ]


PY_LOOP_FUNCTION = """
def f():
    s = 0
    for i in range(1000000):
        s += i
    return s
"""

PY_LOOP_MODULE = """
_module_loop = compile("s = 0\\nfor i in range(1000000):\\n    s += i\\n", "<module>", "exec")
"""


NUMPY_ELEMENT_LOOPS = """
def write_loop(s):
    for j in range(10000):
        s[j] = 1.5

def read_loop(s):
    acc = 0.0
    for j in range(10000):
        acc += s[j]
    return acc

def mask_assign(d, h):
    d[h <= 0] = 0
"""


def _interpreter_cases():
    loop_target = {1: ratio(0.5)}
    vector = [Input("s", (10000,))]
    masked = [Input("d", (6000, 256)), Input("h", (6000, 256))]

    def element_loop(name, inputs, tsr, peer_code, threads=(1,)):
        return _numpy(
            name,
            "interpreter",
            inputs,
            tsr,
            peer_code,
            {t: ratio(1.0) for t in threads},
            peer_setup=NUMPY_ELEMENT_LOOPS,
            tsr_is_stmt=True,
            threads=threads,
        )

    return [
        Case(
            "startup: tsr -e '1' vs python3 -c pass",
            "interpreter",
            (),
            "",
            "process",
            {1: below_ms(5.0, "tsr < 5 ms")},
            threads=(1,),
        ),
        Case(
            "scalar loop 1M, in a function",
            "interpreter",
            (),
            "f()",
            "cpython",
            loop_target,
            peer_code="f()",
            peer_setup=PY_LOOP_FUNCTION,
            tsr_setup="fn f() { let s = 0; for i in range(1000000) { s += i }; s }",
            threads=(1,),
        ),
        Case(
            "scalar loop 1M, top level",
            "interpreter",
            (),
            "s = 0; for i in range(1000000) { s += i }",
            "cpython",
            loop_target,
            peer_code="exec(_module_loop, {})",
            peer_setup=PY_LOOP_MODULE,
            tsr_setup="let s = 0",
            tsr_is_stmt=True,
            threads=(1,),
        ),
        _numpy(
            "3x3 tensor add, per loop iteration",
            "interpreter",
            [Input("a", (3, 3)), Input("b", (3, 3))],
            "a + b",
            "a + b",
            {1: below_ms(0.001, "tsr < 1 us")},
            threads=(1,),
        ),
        # Per 10,000 elements; NumPy's loops run in a function, tsr's at the top level.
        element_loop("element write s[j] = 1.5, 10k", vector, "for j in range(10000) { s[j] = 1.5 }", "write_loop(s)"),
        element_loop(
            "element read acc += s[j], 10k",
            vector,
            "let acc = 0.0; for j in range(10000) { acc += s[j] }",
            "read_loop(s)",
        ),
        element_loop("mask assignment d[h <= 0] = 0 [6000,256]", masked, "d[h <= 0] = 0", "mask_assign(d, h)", (1, 2)),
        _numpy("mask read d[h <= 0] [6000,256]", "interpreter", masked, "d[h <= 0]", "d[h <= 0]", both(ratio(1.0))),
    ]


def _quant_cases():
    """ggml built here (ggml_build.py), timed in the same run: one graph op on its CPU backend."""
    same_as_ggml = both(ratio(1.0))

    def q_case(name, qtype, op, w_shape, x_rows, tsr, tsr_check=""):
        inputs = [Input("w", w_shape)] + ([Input("x", (x_rows, w_shape[1]))] if x_rows else [])
        setup = "" if op == "quantize" else f'let q = quantize(w, "{qtype}")'
        return Case(
            name,
            "quant",
            tuple(inputs),
            tsr,
            "ggml",
            same_as_ggml,
            tsr_setup=setup,
            tsr_check=tsr_check,
            ggml_op=op,
            ggml_type=qtype,
        )

    def matmul(qtype, rows):
        what = "matvec" if rows == 1 else f"x {rows} activation rows"
        return q_case(f"{qtype.upper()} [4096,4096] {what}", qtype, "matmul", (4096, 4096), rows, "x @ q.T")

    def dequant(qtype):
        return q_case(f"dequantize 16M {qtype.upper()}", qtype, "dequantize", (4096, 4096), 0, "dequantize(q)")

    def quant(qtype):
        expr = f'quantize(w, "{qtype}")'
        return q_case(f"quantize 1M {qtype.upper()}", qtype, "quantize", (256, 4096), 0, expr, f"dequantize({expr})")

    types = ("q4_k", "q5_k", "q6_k", "q8_0")
    return (
        [matmul(t, 1) for t in types]
        + [matmul(t, 32) for t in types]
        + [dequant(t) for t in types]
        + [quant(t) for t in types]
    )


# Training against PyTorch (CPU): a forward that records the graph, forward +
# backward, and a whole SGD step. tsr trains the functional way (value_and_grad,
# use optim); torch the usual way (nn.Module, loss.backward(), optim.SGD). The two
# sides' parameters are drawn differently; their shapes and the work are the same.
_TORCH_STEPS = '''
torch.manual_seed(0)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
def _fwd():
    return F.cross_entropy(model(x), y)
def _fwd_bwd():
    for p in model.parameters():
        p.grad = None
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    return loss
def _step():
    opt.zero_grad(set_to_none=True)
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss
'''


def _train_cases():
    def three(model, x_shape, classes, tsr_params, tsr_loss, torch_model):
        n = x_shape[0]
        leaves = ", ".join(f'"{k}": tensor(p["{k}"], requires_grad=true)' for k in tsr_params)
        tsr_setup = "\n".join(
            [
                "use optim",
                "let p = {" + ", ".join(f'"{k}": {v}' for k, v in tsr_params.items()) + "}",
                f"let y = randint(0, {classes}, [{n}])",
                f"fn loss(p) {{ cross_entropy({tsr_loss}, y) }}",
                "let vg = value_and_grad(loss)",
                "let st = optim.init(p)",
                "let pl = {" + leaves + "}",
            ]
        )
        peer_setup = f"model = {torch_model}\ny = torch.randint(0, {classes}, ({n},))\n" + _TORCH_STEPS
        target = both(ratio(1.0))
        rows = [
            ("forward (recording)", "let _y = loss(pl)", "_fwd()"),
            ("forward+backward", "let _y = vg(p)", "_fwd_bwd()"),
            ("train step (SGD)", "let (_l, _g) = vg(p)\n(p, st) = optim.sgd(p, _g, st, 0.01)", "_step()"),
        ]
        return [
            Case(
                f"train {model}: {what}",
                "train",
                (Input("x", x_shape),),
                tsr,
                "torch",
                target if what.startswith("train") else {},
                peer_code=peer,
                peer_setup=peer_setup,
                tsr_setup=tsr_setup,
                tsr_is_stmt=True,
            )
            for what, tsr, peer in rows
        ]

    mlp = three(
        "MLP 784-256-10 b256",
        (256, 784),
        10,
        {"w1": "randn([256, 784]) * 0.035", "b1": "zeros([256])", "w2": "randn([10, 256]) * 0.06", "b2": "zeros([10])"},
        'linear(relu(linear(x, p["w1"], p["b1"])), p["w2"], p["b2"])',
        "torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))",
    )
    cnn = three(
        "digits CNN b32",
        (32, 1, 8, 8),
        10,
        {
            "c1w": "randn([16, 1, 3, 3]) * 0.3",
            "c1b": "zeros([16])",
            "c2w": "randn([32, 16, 3, 3]) * 0.08",
            "c2b": "zeros([32])",
            "fw": "randn([10, 128]) * 0.09",
            "fb": "zeros([10])",
        },
        'linear(flatten(max_pool2d(relu(conv2d(max_pool2d(relu(conv2d(x, p["c1w"], p["c1b"], padding=1)), 2), '
        'p["c2w"], p["c2b"], padding=1)), 2), 1), p["fw"], p["fb"])',
        "torch.nn.Sequential(torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2), "
        "torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(), "
        "torch.nn.Linear(128, 10))",
    )
    return mlp + cnn


CASES = (
    _gemm_cases()
    + _elementwise_cases()
    + _reduction_cases()
    + _sort_cases()
    + _linalg_cases()
    + _conv_cases()
    + _interpreter_cases()
    + _quant_cases()
    + _train_cases()
)
CASES_BY_NAME = {c.name: c for c in CASES}
assert len(CASES_BY_NAME) == len(CASES), "case names must be unique"
