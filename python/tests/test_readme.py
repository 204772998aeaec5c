"""Every snippet of README.md's "Use it from Python / JAX / CMake" section runs.

python blocks are executed; the cmake install command and the pkg-config line
are run with PREFIX in a temporary directory (app.c = tests/consumers/main.c);
the CMake lines must be those of tests/consumers/find_package (which
tests/consumers/run.sh builds); the pip command must be python/ci.sh's."""
import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
README = os.path.join(ROOT, "README.md")


def blocks():
    text = open(README).read()
    start = text.index("## Use it from Python / JAX / CMake")
    end = text.index("\n## ", start + 1)
    return re.findall(r"```(\w+)\n(.*?)```", text[start:end], re.S)


def test_section_has_every_kind():
    kinds = [k for k, _ in blocks()]
    assert kinds.count("python") == 2 and kinds.count("sh") == 3 and kinds.count("cmake") == 1


@pytest.mark.parametrize("i", range(2))
def test_python_snippet(i):
    code = [c for k, c in blocks() if k == "python"][i]
    if "bmm.jax" in code:
        pytest.importorskip("jax")
    exec(compile(code, "README python snippet %d" % i, "exec"), {})


def test_sh_and_cmake_snippets(tmp_path):
    sh = [c.strip() for k, c in blocks() if k == "sh"]
    cm = [c for k, c in blocks() if k == "cmake"][0]
    assert sh[0] == "pip install ./python"
    assert 'pip" install -q --disable-pip-version-check ./python' in open(
        os.path.join(ROOT, "python", "ci.sh")).read()
    consumer = open(os.path.join(ROOT, "tests", "consumers", "find_package",
                                 "CMakeLists.txt")).read()
    for line in cm.strip().splitlines():
        assert line.split("#")[0].strip() in consumer, line
    if not (shutil.which("cmake") and shutil.which("pkg-config")):
        pytest.skip("cmake or pkg-config missing")
    env = dict(os.environ, PREFIX=str(tmp_path / "prefix"))
    install = sh[1].replace("build/cmake", str(tmp_path / "cmake"))
    subprocess.run(install, shell=True, cwd=ROOT, env=env, check=True, capture_output=True)
    shutil.copy(os.path.join(ROOT, "tests", "consumers", "main.c"), tmp_path / "app.c")
    subprocess.run(sh[2], shell=True, cwd=tmp_path, env=env, check=True)
    out = subprocess.run([str(tmp_path / "app")], capture_output=True, text=True, check=True)
    assert "ok" in out.stdout
