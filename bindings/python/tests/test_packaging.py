"""What `pip install <repository>` builds, checked without building it, and what the
package says when it finds no libqueuey."""
import os
import re
import subprocess
import sys

import pytest

from conftest import HERE

PROJECT = HERE.parent
PACKAGE = PROJECT / "queuey"


def test_meson_installs_every_file_of_the_package():
    """queuey/meson.build lists the files that the wheel holds beside libqueuey."""
    listed = re.findall(r"'(\w+\.py|py\.typed)'", (PACKAGE / "meson.build").read_text())
    on_disk = [p.name for p in PACKAGE.iterdir() if p.suffix == ".py" or p.name == "py.typed"]
    assert sorted(listed) == sorted(on_disk)


@pytest.mark.parametrize("explicit", [None, "/nonexistent/libqueuey.so.0"])
def test_a_library_that_cannot_load_is_an_import_error_that_says_what_to_do(tmp_path, explicit):
    env = {k: v for k, v in os.environ.items()
           if k not in ("QUEUEY_LIBRARY", "PKG_CONFIG_PATH", "LD_LIBRARY_PATH")}
    env.update(PYTHONPATH=str(PROJECT), PKG_CONFIG_LIBDIR=str(tmp_path))  # no queuey.pc
    if explicit:
        env["QUEUEY_LIBRARY"] = explicit
    imported = subprocess.run([sys.executable, "-c", "import queuey"], capture_output=True,
                              text=True, cwd=tmp_path, env=env)
    if explicit is None and imported.returncode == 0:
        pytest.skip("the system's loader finds a libqueuey installed on this machine")
    assert imported.returncode == 1
    message = imported.stderr.splitlines()[-1]
    assert message.startswith("ImportError: queuey: cannot load libqueuey. Install queuey with "
                              "the library inside it: pip install PATH, PATH a checkout of "
                              "the queuey repository")
    assert "; or set QUEUEY_LIBRARY to the path of a libqueuey.so.0" in message
    tried = message.partition(" Tried: ")[2].split("; ")
    # An explicit path alone; else the package's directory, then the system's loader.
    wanted = [explicit] if explicit else [str(PACKAGE / "libqueuey.so.0"), "libqueuey.so.0"]
    assert [t.partition(": ")[0] for t in tried] == wanted
    assert all("cannot open shared object file" in t for t in tried)


def test_meson_runs_every_broker_test_file_with_the_broker():
    """meson.build lists the test_broker*.py files: python_broker runs them, python_memory
    leaves them out; a file missing from the list would run in neither or wrongly."""
    listed = re.findall(r"'(test_broker\w*\.py)'", (PROJECT / "meson.build").read_text())
    assert sorted(listed) == sorted(p.name for p in HERE.glob("test_broker*.py"))
