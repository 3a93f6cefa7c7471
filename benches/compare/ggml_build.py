"""Builds ggml on this machine for the quantized rows, once, into benches/compare/.ggml.

ggml comes from the llama.cpp sources that PyPI's llama-cpp-python sdist vendors (a
pinned version, checked against its SHA-256): only its ggml/ folder is extracted and
built with CMake (from the venv's `cmake` package) as a native Release build —
`GGML_NATIVE` (this CPU's ISA: AVX-512, VNNI, ...), OpenMP threads and the llamafile
sgemm on, as llama.cpp builds it. Then ggml/ggml_peer.c, our own shim, is compiled
against it into libggml_peer.so, which peer_worker.py loads with ctypes.
"""

import hashlib
import shutil
import subprocess
import sys
import tarfile
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".ggml"
SDIST = "llama_cpp_python-0.3.36"
SDIST_URL = (
    "https://files.pythonhosted.org/packages/ec/e9/"
    "e7de2b0463ea3ffbf0ede6cb21b58c1258a8f6521aae45ca773a59fe7cf3/llama_cpp_python-0.3.36.tar.gz"
)
SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
GGML_IN_SDIST = f"{SDIST}/vendor/llama.cpp/ggml/"
SHIM = HERE / "ggml" / "ggml_peer.c"
CMAKE_OPTIONS = [
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=ON",
    "-DGGML_NATIVE=ON",
    "-DGGML_OPENMP=ON",
    "-DGGML_LLAMAFILE=ON",
    "-DGGML_BUILD_TESTS=OFF",
    "-DGGML_BUILD_EXAMPLES=OFF",
]


def _say(msg):
    print(f"compare: {msg}", file=sys.stderr, flush=True)


def _download(dest):
    _say(f"downloading {SDIST} (ggml sources, ~75 MB)")
    partial = dest.with_suffix(".part")
    with urllib.request.urlopen(SDIST_URL) as response, open(partial, "wb") as out:
        shutil.copyfileobj(response, out)
    digest = hashlib.sha256(partial.read_bytes()).hexdigest()
    if digest != SDIST_SHA256:
        partial.unlink()
        raise RuntimeError(f"{SDIST_URL}: SHA-256 {digest}, expected {SDIST_SHA256}")
    partial.rename(dest)


def _extract_ggml(archive, dest):
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if m.name.startswith(GGML_IN_SDIST)]
        for m in members:
            m.name = m.name[len(GGML_IN_SDIST) :]
        tar.extractall(dest, members=[m for m in members if m.name], filter="data")
    # The sdist leaves out the pkg-config template that ggml's CMakeLists configures.
    (dest / "ggml.pc.in").touch()


def _run(cmd):
    """Runs a build step quietly; on failure, raises with the end of its output."""
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-20:])
        raise RuntimeError(f"{Path(str(cmd[0])).name} failed:\n{tail}")


def _cmake():
    found = Path(sys.executable).parent / "cmake"
    return str(found) if found.exists() else shutil.which("cmake") or "cmake"


def ensure_ggml():
    """The path of libggml_peer.so, building ggml and the shim first when needed."""
    lib = CACHE / "libggml_peer.so"
    if lib.exists() and lib.stat().st_mtime >= SHIM.stat().st_mtime:
        return lib
    CACHE.mkdir(exist_ok=True)
    src, build = CACHE / "ggml", CACHE / "build"
    if not (build / "src" / "libggml.so").exists():
        archive = CACHE / f"{SDIST}.tar.gz"
        if not archive.exists():
            _download(archive)
        shutil.rmtree(src, ignore_errors=True)
        _extract_ggml(archive, src)
        _say("building ggml with cmake (native ISA; a minute or two on 2 cores)")
        _run([_cmake(), "-S", src, "-B", build, *CMAKE_OPTIONS])
        _run([_cmake(), "--build", build, "-j"])
    libs = build / "src"
    _run(
        ["cc", "-O2", "-shared", "-fPIC", SHIM, f"-I{src / 'include'}", f"-L{libs}"]
        + ["-lggml", "-lggml-cpu", "-lggml-base", "-lpthread", f"-Wl,-rpath,{libs}", "-o", lib]
    )
    return lib
