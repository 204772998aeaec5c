"""Builds bmm's shared libraries from the repository's headers at install time.

libbmm.so: bmm.h's implementation (CPU; CPU+CUDA where nvcc builds it) with a
flat entry point for ctypes (src/bmm_py.c). libbmm_xla.so: the XLA FFI handler
(src/bmm_xla.cpp), linked to libbmm.so so that both share one threshold table;
built when the XLA FFI headers of an installed jaxlib are found.
Switches: BMM_CFLAGS, BMM_CUDA=auto|0|1, BMM_CUDA_GENCODE, BMM_JAX=auto|0|1,
BMM_XLA_FFI_INCLUDE, BMM_SOURCE_DIR (where bmm.h is; default: ..).
"""
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))


def say(msg):
    print("bmm build: " + msg, file=sys.stderr, flush=True)


def source_dir():
    root = os.environ.get("BMM_SOURCE_DIR", os.path.join(HERE, ".."))
    if not os.path.exists(os.path.join(root, "bmm.h")):
        raise SystemExit(
            "bmm build: bmm.h not found in %s; install from the repository "
            "(pip install ./python) or set BMM_SOURCE_DIR" % os.path.abspath(root))
    return os.path.abspath(root)


def run(cmd):
    say(" ".join(shlex.quote(c) for c in cmd))
    return subprocess.run(cmd).returncode == 0


def xla_include():
    """The XLA FFI headers of the jaxlib the package is installed beside.

    pip builds in an isolated environment without jax; the target
    environment's site-packages is still where sysconfig points."""
    env = os.environ.get("BMM_XLA_FFI_INCLUDE")
    if env:
        return env
    cands = []
    try:
        import jaxlib  # noqa: F401 (non-isolated builds)
        cands.append(os.path.join(os.path.dirname(jaxlib.__file__), "include"))
    except ImportError:
        pass
    for key in ("purelib", "platlib"):
        cands.append(os.path.join(sysconfig.get_paths()[key], "jaxlib", "include"))
    for c in cands:
        if os.path.exists(os.path.join(c, "xla", "ffi", "api", "ffi.h")):
            return c
    return None


def gpu_present():
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0
    except OSError:
        return False


class BuildWithLibs(build_py):
    def run(self):
        super().run()
        out = os.path.join(os.path.abspath(self.build_lib), "bmm")
        os.makedirs(out, exist_ok=True)
        for stale in ("libbmm.so", "libbmm_xla.so"):  # the in-tree build dir is reused
            if os.path.exists(os.path.join(out, stale)):
                os.remove(os.path.join(out, stale))
        root = source_dir()
        src = os.path.join(HERE, "src")
        cc = os.environ.get("CC", "cc")
        cxx = os.environ.get("CXX", "c++")
        lib = os.path.join(out, "libbmm.so")
        base = ["-fPIC", "-shared", "-I" + root, "-Wl,-soname,libbmm.so"]
        tail = ["-lm", "-lpthread"]
        fast = shlex.split(os.environ.get("BMM_CFLAGS", "-O3 -march=native -fopenmp"))

        # The XLA handler's object compiles while libbmm.so does (2 cores on CI).
        jax_mode = os.environ.get("BMM_JAX", "auto")
        inc = xla_include() if jax_mode != "0" else None
        if inc is None and jax_mode == "1":
            raise SystemExit("bmm build: BMM_JAX=1 but no XLA FFI headers: install jax first "
                             "or set BMM_XLA_FFI_INCLUDE")
        if inc is None and jax_mode != "0":
            say("no jaxlib found: bmm.jax disabled (pip install jax, then reinstall bmm)")
        cuda_mode = os.environ.get("BMM_CUDA", "auto")
        nvcc = shutil.which("nvcc")
        if cuda_mode == "1" and not nvcc:
            raise SystemExit("bmm build: BMM_CUDA=1 but nvcc is not on PATH")
        want_cuda = cuda_mode == "1" or (cuda_mode == "auto" and nvcc and gpu_present())
        if cuda_mode == "auto" and nvcc and not want_cuda:
            say("nvcc found but no GPU: CPU backend only (BMM_CUDA=1 builds the CUDA part)")
        elif cuda_mode == "auto" and not nvcc:
            say("no nvcc: CPU backend only")
        built_cuda = False
        xla_obj = os.path.join(out, "bmm_xla.o")
        xla_job = None
        if inc is not None:
            cmd = [cxx, "-std=c++17", "-O2", "-fPIC", "-c", "-I" + root, "-I" + inc]
            if want_cuda:
                cuda_home = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
                cmd += ["-DBMM_PY_CUDA", "-I" + os.path.join(cuda_home, "include")]
            cmd += [os.path.join(src, "bmm_xla.cpp"), "-o", xla_obj]
            say(" ".join(shlex.quote(c) for c in cmd))
            xla_job = subprocess.Popen(cmd)
        if want_cuda:
            built_cuda = self.build_cuda(nvcc, root, src, fast, lib, tail, cuda_mode)
        if not built_cuda:
            flag_sets = [fast, ["-O3", "-fopenmp"], ["-O2"]]
            if not any(run([cc, "-std=c99"] + f + base + [os.path.join(src, "bmm_py.c"), "-o",
                                                        lib] + tail) for f in flag_sets):
                raise SystemExit("bmm build: could not compile libbmm.so (see above)")
        if xla_job is None:
            return
        ok = xla_job.wait() == 0
        if ok and want_cuda and not built_cuda:
            ok = False  # compiled for a CUDA libbmm.so that did not build
        ok = ok and run([cxx, "-shared", xla_obj, "-o", os.path.join(out, "libbmm_xla.so"),
                         "-L" + out, "-lbmm", "-Wl,-rpath,$ORIGIN"])
        if os.path.exists(xla_obj):
            os.remove(xla_obj)
        if not ok:
            if jax_mode == "1":
                raise SystemExit("bmm build: the XLA handler did not build")
            say("the XLA handler did not build: bmm.jax disabled")

    @staticmethod
    def build_cuda(nvcc, root, src, fast, lib, tail, cuda_mode):
        gencode = shlex.split(os.environ.get(
            "BMM_CUDA_GENCODE",
            "-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"))
        xc = ",".join(["-fPIC"] + fast)
        ok = run([nvcc, "-x", "cu", "-std=c++17", "-O3", "-shared", "-DBMM_PY_CUDA",
                  "-I" + root, "-Xcompiler", xc] + gencode +
                 ["-Xlinker", "-soname,libbmm.so", os.path.join(src, "bmm_py.c"), "-o", lib] +
                 tail + (["-lgomp"] if "-fopenmp" in fast else []))
        if not ok:
            if cuda_mode == "1":
                raise SystemExit("bmm build: BMM_CUDA=1 but the CUDA build failed")
            say("CUDA build failed: CPU backend only")
        return ok


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibs}, distclass=BinaryDistribution)
