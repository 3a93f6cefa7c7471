"""Writes the tsr side of a case as a script: inputs, then timing_plan's steps in tsr."""

from timing_plan import MAX_INNER


def _input_lines(case, data_dir):
    """`let` lines creating the case's inputs: random, or loaded from --check's .npy files."""
    lines = []
    for inp in case.inputs:
        if data_dir is None:
            lines.append(f"let {inp.name} = randn({list(inp.shape)})")
            if inp.nan_every:
                lines.append(f"{inp.name}[:, ::{inp.nan_every}] = nan")
        else:
            lines.append(f'let {inp.name} = load("{data_dir}/{inp.name}.npy")')
    if case.tsr_setup:
        lines.append(case.tsr_setup)
    return lines


def _body(case):
    return case.tsr if case.tsr_is_stmt else f"let _y = {case.tsr}"


def timing_script(case, plan):
    """Prints one `SAMPLE <seconds per call>` line per sample."""
    body = _body(case)
    return "\n".join(
        [f"# benches/compare: {case.name}"]
        + _input_lines(case, None)
        + [
            "let _t = perf_counter()",
            f"for _i in range(1) {{ {body} }}",
            "let _once = perf_counter() - _t",
            f"if _once < {10 * plan.batch!r} {{",
            "    _t = perf_counter()",
            f"    for _i in range(1) {{ {body} }}",
            "    _once = perf_counter() - _t",
            "}",
            "let _inner = 1",
            f"while _inner * _once < {plan.batch!r} and _inner < {MAX_INNER} {{ _inner = _inner * 2 }}",
            "let _n = 0",
            "let _start = perf_counter()",
            f"while (_n < {plan.min_reps} or perf_counter() - _start < {plan.budget!r}) "
            f"and _n < {plan.max_reps} {{",
            "    let _t0 = perf_counter()",
            f"    for _i in range(_inner) {{ {body} }}",
            '    print(f"SAMPLE {(perf_counter() - _t0) / _inner:.9e}")',
            "    _n += 1",
            "}",
            "",
        ]
    )


def check_script(case, data_dir):
    """Computes the case once on the inputs in data_dir and saves the result as tsr.npy."""
    return "\n".join(
        [f"# benches/compare --check: {case.name}"]
        + _input_lines(case, data_dir)
        + [f"let _y = {case.tsr_check or case.tsr}", f'save("{data_dir}/tsr.npy", _y)', ""]
    )
