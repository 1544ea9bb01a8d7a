"""`pip wheel` of the repository (meson-python compiles libqueuey and the queuey command
into the package), that wheel installed into a fresh venv that can see no other libqueuey,
then the examples' producer and worker and the queuey command run from the venv against
the broker. The same wheel repaired by scripts/wheels (auditwheel: a manylinux wheel with
rabbitmq-c and the rest inside it), installed into another fresh venv where no compiler
can be found, in under 30 s, and a job run from there.

Meson runs this file on its own (test python_wheel, not collected by python_memory: its
name does not start with test_): the wheel takes minutes to build, once. pip's build
environment fetches meson-python and meson from PyPI, the repaired wheel's venv cffi;
pip caches into the test's temporary directory only.
"""
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
import uuid
import zipfile
from pathlib import Path

import pytest

from conftest import HERE, REPO

JOBS = 8
# The bound (41, item 5) for installing the prebuilt wheel into a fresh venv.
INSTALL_SECONDS = 30
# What could lead the venv's Python to a libqueuey, or a queuey, other than the wheel's.
HIDDEN = ("QUEUEY_LIBRARY", "PKG_CONFIG_PATH", "LD_LIBRARY_PATH", "PYTHONPATH")
SITE = f"lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages"
# The project's version, as meson.build's project() gives it to the wheel.
VERSION = re.search(r"version: '([^']+)'", (REPO / "meson.build").read_text())[1]


def _env(**extra: str) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if k not in HIDDEN}, **extra}


def _run(args: list[str], timeout: float = 120, stderr: bool = False, **extra: str) -> str:
    """Its stdout; with stderr, its stdout and stderr interleaved as they came."""
    # From /, where no queuey could be imported by accident.
    done = subprocess.run([str(a) for a in args], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT if stderr else subprocess.PIPE, text=True,
                          timeout=timeout, env=_env(**extra), cwd="/")
    assert done.returncode == 0, f"{args}:\n{done.stdout}{done.stderr or ''}"
    return done.stdout


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The wheel, and what pip -v showed while building it."""
    dist = tmp_path_factory.mktemp("dist")
    shown = _run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps",
                  "--disable-pip-version-check", "-w", dist, REPO],
                 timeout=1500, stderr=True, PIP_CACHE_DIR=str(dist / "pip-cache"))
    (wheel,) = dist.glob("*.whl")
    return wheel, shown


@pytest.fixture(scope="module")
def wheel(built: tuple[Path, str]) -> Path:
    return built[0]


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", venv])
    _run([venv / "bin" / "python", "-m", "pip", "install", "--quiet",
          "--disable-pip-version-check", wheel], timeout=300,
         PIP_CACHE_DIR=str(venv / "pip-cache"))
    return venv


def test_the_wheel_holds_the_package_the_library_and_the_command(wheel):
    # The distribution's name is not "queuey": that one on PyPI is another project.
    wheel_name = rf"queuey_rabbitmq-{re.escape(VERSION)}-cp\d+-cp\d+-linux_\w+\.whl"
    assert re.fullmatch(wheel_name, wheel.name)
    with zipfile.ZipFile(wheel) as archive:
        dist_info = f"queuey_rabbitmq-{VERSION}."
        names = {n for n in archive.namelist() if not n.startswith(dist_info)}
        scripts = archive.read(dist_info + "dist-info/entry_points.txt").decode()
    sources = {f"queuey/{p.name}" for p in (HERE.parent / "queuey").iterdir()
               if p.suffix == ".py" or p.name == "py.typed"}
    assert names == sources | {"queuey/libqueuey.so.0", "queuey/_bin/queuey",
                               "_queuey_command.py"}
    assert "queuey = _queuey_command:main" in scripts.splitlines()
    assert "queuey-worker = queuey.worker_cli:main" in scripts.splitlines()


def test_pip_v_shows_what_the_build_does(built):
    """pip -v passes Meson's lines on (pip shows none without it): what it found, whether
    the wheel carries the queuey command, and each compile step."""
    shown = built[1]
    assert "Message: pip install: the wheel carries the queuey command" in shown
    assert re.search(r"^\s*\[1/\d+\] Compiling C\+\+ object ", shown, re.M)


def test_the_venv_loads_the_library_of_the_wheel(venv):
    """The library that the process maps is the one inside the installed package."""
    shown = _run([venv / "bin" / "python", "-c",
                  "import queuey; print(queuey.library_version()); "
                  "print(*{l.split()[-1] for l in open('/proc/self/maps') if 'libqueuey' in l})"])
    assert shown.splitlines() == [VERSION, str(venv / SITE / "queuey" / "libqueuey.so.0")]


def test_the_library_of_the_wheel_has_its_soname_no_rpath_no_sanitizer(venv):
    """Its soname is its file name, no RPATH points into a build directory, and it needs no
    sanitizer runtime (the wheel's build is its own, whatever the test's build is)."""
    dynamic = _run(["readelf", "-d", venv / SITE / "queuey" / "libqueuey.so.0"])
    assert re.findall(r"\(SONAME\)\s+Library soname: \[(.*)\]", dynamic) == ["libqueuey.so.0"]
    assert not re.search(r"\((RPATH|RUNPATH)\)", dynamic)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.*)\]", dynamic)
    assert "librabbitmq.so.4" in needed
    assert not [lib for lib in needed if re.match(r"lib(a|ub|t)san", lib)]


def _jobs_run_from(venv: Path, broker_url: str) -> None:
    """N jobs enqueued by examples/python/producer.py, the same N run by worker.py."""
    examples = REPO / "examples" / "python"
    python = venv / "bin" / "python"
    produced = _run([python, examples / "producer.py", broker_url, str(JOBS)], timeout=60)
    enqueued = re.findall(r"^enqueued (\S+)$", produced, re.M)
    worked = _run([python, examples / "worker.py", broker_url, str(JOBS)], timeout=60)
    sent = re.findall(r"^sent (\S+) \(attempt \d\)", worked, re.M)
    assert len(enqueued) == JOBS
    assert sorted(sent) == sorted(enqueued)


def test_the_examples_run_from_the_venv(venv, broker_url):
    _jobs_run_from(venv, broker_url)


def test_the_command_of_the_wheel_finds_the_library_of_the_wheel(venv):
    """queuey/_bin/queuey: RUNPATH $ORIGIN/.. (the package), so libqueuey.so.0 resolves to
    the wheel's, with no LD_LIBRARY_PATH."""
    binary = venv / SITE / "queuey" / "_bin" / "queuey"
    dynamic = _run(["readelf", "-d", binary])
    assert re.findall(r"\(RUNPATH\)\s+Library runpath: \[(.*)\]", dynamic) == ["$ORIGIN/.."]
    resolved = re.findall(r"^\s*libqueuey\.so\.0 => (\S+)", _run(["ldd", binary]), re.M)
    assert [Path(p).resolve() for p in resolved] == [venv / SITE / "queuey" / "libqueuey.so.0"]


def _command_runs(venv: Path, broker_url: str) -> None:
    """`queuey --version`, then `queuey stats` of a queue of 3 jobs that `queuey enqueue`
    put there, the broker given by --url and by $QUEUEY_URL, from the venv's bin/."""
    queuey = venv / "bin" / "queuey"
    assert _run([queuey, "--version"]) == VERSION + "\n"
    queue = f"py.wheel.{uuid.uuid4().hex[:8]}"
    _run([venv / "bin" / "python", "-c",
          f"import queuey; queuey.Client({broker_url!r}).declare({queue!r})"])
    for i in range(3):
        _run([queuey, "--url", broker_url, "enqueue", queue, "send_email", f'{{"n": {i}}}'])
    by_flag = json.loads(_run([queuey, "--json", "--url", broker_url, "stats", queue]))
    by_env = json.loads(_run([queuey, "--json", "stats", queue], QUEUEY_URL=broker_url))
    for stats in (by_flag, by_env):
        assert (stats["queue"], stats["ready"], stats["dead"]) == (queue, 3, 0)


def test_the_queuey_command_runs_from_the_venv(venv, broker_url):
    _command_runs(venv, broker_url)


def test_the_console_script_of_the_venv(venv):
    script = venv / "bin" / "queuey-worker"
    helped = _run([script, "--help"])
    assert helped.startswith("usage: queuey-worker [-h] [--concurrency N]")
    misused = subprocess.run([script, "app"], capture_output=True, text=True, env=_env(),
                             cwd="/")
    assert (misused.returncode, misused.stderr) == (
        2, "queuey-worker: error: expected MODULE:ATTRIBUTE, such as app:worker, not 'app'\n")


@pytest.fixture(scope="module")
def repaired(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel above repaired by scripts/wheels, as a user makes the prebuilt one (the
    same build: it takes minutes)."""
    out = tmp_path_factory.mktemp("repaired")
    shown = _run([REPO / "scripts" / "wheels", "--repair", wheel, out], timeout=600,
                 PYTHON=sys.executable)
    path = Path(shown.splitlines()[-1])
    assert path.parent == out and path.is_file()
    return path


@pytest.fixture(scope="module")
def prebuilt_venv(repaired: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv that installs the repaired wheel with no compiler to be found and no
    index: pip takes wheels only, from a directory holding cffi's (downloaded first) and
    the repaired one. The issue's figure: under 30 s."""
    house = tmp_path_factory.mktemp("wheelhouse")
    _run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
          "--only-binary", ":all:", "--dest", house, "cffi>=1.15"], timeout=300,
         PIP_CACHE_DIR=str(house / "pip-cache"))
    venv = tmp_path_factory.mktemp("prebuilt-venv")
    started = time.monotonic()
    _run([sys.executable, "-m", "venv", venv])
    created = time.monotonic()
    path = str(venv / "bin")  # nothing else: no cc, c++, gcc, ld
    assert not [t for t in ("cc", "c++", "gcc", "g++", "ld") if shutil.which(t, path=path)]
    shown = _run([venv / "bin" / "python", "-m", "pip", "install", "--disable-pip-version-check",
                  "--no-index", "--find-links", house, "--only-binary", ":all:", repaired],
                 timeout=300, PATH=path, CC="/bin/false", CXX="/bin/false",
                 PIP_CACHE_DIR=str(venv / "pip-cache"))
    installed = time.monotonic()
    print(f"\nprebuilt wheel {repaired.name}: venv {created - started:.1f} s, "
          f"pip install {installed - created:.1f} s")
    assert "Successfully installed" in shown and "Building wheel" not in shown
    assert installed - created < INSTALL_SECONDS
    return venv


def test_the_repaired_wheel_is_manylinux_py3_and_carries_rabbitmq_c(repaired, tmp_path):
    """auditwheel picks the manylinux_2_X tag (X: the newest glibc symbol used, at most
    this machine's) and copies in what no manylinux system has, rabbitmq-c first, not
    glibc's or libstdc++; scripts/wheels tags it py3-none, which holds as nothing in it
    links libpython."""
    repaired_name = rf"queuey_rabbitmq-{re.escape(VERSION)}-py3-none-manylinux_2_(\d+)_(\w+)\.whl"
    tag = re.fullmatch(repaired_name, repaired.name)
    assert tag and tag[2] == platform.machine()
    assert int(tag[1]) <= int(platform.libc_ver()[1].split(".")[1])
    with zipfile.ZipFile(repaired) as archive:
        archive.extractall(tmp_path)
    vendored = [p.name for p in (tmp_path / "queuey_rabbitmq.libs").iterdir()]
    assert [v for v in vendored if v.startswith("librabbitmq-")]
    assert not [v for v in vendored if re.match(r"lib(c|m|stdc\+\+|gcc_s|pthread)[.-]", v)]
    elves = [p for p in tmp_path.rglob("*") if p.is_file() and p.read_bytes()[:4] == b"\x7fELF"]
    assert len(elves) == len(vendored) + 2  # and libqueuey.so.0, _bin/queuey
    assert not [e for e in elves if "libpython" in _run(["readelf", "-d", e])]


def test_the_prebuilt_wheel_runs_a_job_and_the_command(prebuilt_venv, broker_url):
    """From the venv of the repaired wheel: the examples' jobs, the queuey command, and the
    process maps rabbitmq-c from the wheel, not the system's."""
    _jobs_run_from(prebuilt_venv, broker_url)
    _command_runs(prebuilt_venv, broker_url)
    maps = _run([prebuilt_venv / "bin" / "python", "-c",
                 "import queuey; print(*{l.split()[-1] for l in open('/proc/self/maps') "
                 "if 'librabbitmq' in l})"])
    site = prebuilt_venv / SITE
    assert [Path(p).parent for p in maps.split()] == [site / "queuey_rabbitmq.libs"]
