"""`pip wheel` of the repository (meson-python compiles libqueuey into the package), that
wheel installed into a fresh venv that can see no other libqueuey, then the examples'
producer and worker run from the venv against the broker.

Meson runs this file on its own (test python_wheel, not collected by python_memory: its
name does not start with test_): the wheel takes minutes to build. pip's build
environment fetches meson-python and meson from PyPI; pip caches into the test's
temporary directory only.
"""
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import HERE, REPO

JOBS = 8
# What could lead the venv's Python to a libqueuey, or a queuey, other than the wheel's.
HIDDEN = ("QUEUEY_LIBRARY", "PKG_CONFIG_PATH", "LD_LIBRARY_PATH", "PYTHONPATH")
SITE = f"lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages"


def _env(**extra: str) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if k not in HIDDEN}, **extra}


def _run(args: list[str], timeout: float = 120, **extra: str) -> str:
    # From /, where no queuey could be imported by accident.
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                          timeout=timeout, env=_env(**extra), cwd="/")
    assert done.returncode == 0, f"{args}:\n{done.stdout}{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check",
          "-w", dist, REPO], timeout=1500, PIP_CACHE_DIR=str(dist / "pip-cache"))
    (built,) = dist.glob("*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", venv])
    _run([venv / "bin" / "python", "-m", "pip", "install", "--quiet",
          "--disable-pip-version-check", wheel], timeout=300,
         PIP_CACHE_DIR=str(venv / "pip-cache"))
    return venv


def test_the_wheel_holds_the_package_and_the_library(wheel):
    # The distribution's name is not "queuey": that one on PyPI is another project.
    assert re.fullmatch(r"queuey_rabbitmq-0\.2\.0-cp\d+-cp\d+-linux_\w+\.whl", wheel.name)
    with zipfile.ZipFile(wheel) as archive:
        names = {n for n in archive.namelist() if n.startswith("queuey/")}
        scripts = archive.read("queuey_rabbitmq-0.2.0.dist-info/entry_points.txt").decode()
    sources = {f"queuey/{p.name}" for p in (HERE.parent / "queuey").iterdir()
               if p.suffix == ".py" or p.name == "py.typed"}
    assert names == sources | {"queuey/libqueuey.so.0"}
    assert "queuey-worker = queuey.worker_cli:main" in scripts


def test_the_venv_loads_the_library_of_the_wheel(venv):
    """The library that the process maps is the one inside the installed package."""
    shown = _run([venv / "bin" / "python", "-c",
                  "import queuey; print(queuey.library_version()); "
                  "print(*{l.split()[-1] for l in open('/proc/self/maps') if 'libqueuey' in l})"])
    assert shown.splitlines() == ["0.2.0", str(venv / SITE / "queuey" / "libqueuey.so.0")]


def test_the_library_of_the_wheel_has_its_soname_no_rpath_no_sanitizer(venv):
    """Its soname is its file name, no RPATH points into a build directory, and it needs no
    sanitizer runtime (the wheel's build is its own, whatever the test's build is)."""
    dynamic = _run(["readelf", "-d", venv / SITE / "queuey" / "libqueuey.so.0"])
    assert re.findall(r"\(SONAME\)\s+Library soname: \[(.*)\]", dynamic) == ["libqueuey.so.0"]
    assert not re.search(r"\((RPATH|RUNPATH)\)", dynamic)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.*)\]", dynamic)
    assert "librabbitmq.so.4" in needed
    assert not [lib for lib in needed if re.match(r"lib(a|ub|t)san", lib)]


def test_the_examples_run_from_the_venv(venv, broker_url):
    """N jobs enqueued by examples/python/producer.py, the same N run by worker.py."""
    examples = REPO / "examples" / "python"
    python = venv / "bin" / "python"
    produced = _run([python, examples / "producer.py", broker_url, str(JOBS)], timeout=60)
    enqueued = re.findall(r"^enqueued (\S+)$", produced, re.M)
    worked = _run([python, examples / "worker.py", broker_url, str(JOBS)], timeout=60)
    sent = re.findall(r"^sent (\S+) \(attempt \d\)", worked, re.M)
    assert len(enqueued) == JOBS
    assert sorted(sent) == sorted(enqueued)


def test_the_console_script_of_the_venv(venv):
    script = venv / "bin" / "queuey-worker"
    helped = _run([script, "--help"])
    assert helped.startswith("usage: queuey-worker [-h] [--concurrency N]")
    misused = subprocess.run([script, "app"], capture_output=True, text=True, env=_env(),
                             cwd="/")
    assert (misused.returncode, misused.stderr) == (
        2, "queuey-worker: error: expected MODULE:ATTRIBUTE, such as app:worker, not 'app'\n")
