"""pip installs the package with the in-tree build backend, offline."""
import os
import re
import subprocess
import sys
import zipfile

from conftest import HERE

PROJECT = HERE.parent


def test_pip_installs_offline_and_the_package_imports(tmp_path):
    target = tmp_path / "site"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps",
         "--disable-pip-version-check", "--target", str(target), str(PROJECT)],
        capture_output=True, text=True, timeout=120)
    assert installed.returncode == 0, installed.stderr
    sources = {p.name for p in (PROJECT / "queuey").iterdir() if p.suffix == ".py"}
    assert sources <= {p.name for p in (target / "queuey").iterdir()}
    assert (target / "queuey" / "py.typed").exists()
    imported = subprocess.run(
        [sys.executable, "-c", "import queuey; print(queuey.__file__, queuey.library_version())"],
        capture_output=True, text=True, cwd=tmp_path,
        env={"PYTHONPATH": str(target), **{k: v for k, v in os.environ.items()
                                           if k in ("QUEUEY_LIBRARY", "PKG_CONFIG_PATH", "PATH")}})
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.startswith(str(target / "queuey" / "__init__.py"))
    # The console script: queuey-worker, the worker command of `python -m queuey worker`.
    script = [str(target / "bin" / "queuey-worker")]
    env = {"PYTHONPATH": str(target), **{k: v for k, v in os.environ.items()
                                         if k in ("QUEUEY_LIBRARY", "PKG_CONFIG_PATH", "PATH")}}
    helped = subprocess.run(script + ["--help"], capture_output=True, text=True, cwd=tmp_path,
                            env=env)
    assert helped.returncode == 0, helped.stderr
    assert helped.stdout.startswith("usage: queuey-worker [-h] [--concurrency N]")
    misused = subprocess.run(script + ["app"], capture_output=True, text=True, cwd=tmp_path,
                             env=env)
    assert (misused.returncode, misused.stderr) == (
        2, "queuey-worker: error: expected MODULE:ATTRIBUTE, such as app:worker, not 'app'\n")


def test_wheel_metadata_names_the_runtime_dependency(tmp_path):
    sys.path.insert(0, str(PROJECT / "tools"))
    try:
        import wheel_backend
    finally:
        sys.path.pop(0)
    name = wheel_backend.build_wheel(str(tmp_path))
    with zipfile.ZipFile(tmp_path / name) as wheel:
        metadata = wheel.read("queuey-0.2.0.dist-info/METADATA").decode()
        record = wheel.read("queuey-0.2.0.dist-info/RECORD").decode()
        entry_points = wheel.read("queuey-0.2.0.dist-info/entry_points.txt").decode()
    assert name == "queuey-0.2.0-py3-none-any.whl"
    assert "Requires-Dist: cffi>=1.15" in metadata
    assert "queuey/worker.py,sha256=" in record
    assert entry_points == "[console_scripts]\nqueuey-worker = queuey.worker_cli:main\n"



def test_meson_runs_every_broker_test_file_with_the_broker():
    """meson.build lists the test_broker*.py files: python_broker runs them, python_memory
    leaves them out; a file missing from the list would run in neither or wrongly."""
    listed = re.findall(r"'(test_broker\w*\.py)'", (PROJECT / "meson.build").read_text())
    assert sorted(listed) == sorted(p.name for p in HERE.glob("test_broker*.py"))
