"""The checked-in cffi declarations and enums agree with include/queuey/queuey.h."""
import subprocess
import sys

import pytest

from conftest import HERE, REPO
import queuey
from queuey import _ffi

GENERATOR = HERE.parent / "tools" / "gen_decls.py"
HEADER = REPO / "include" / "queuey" / "queuey.h"


def run_check(header):
    return subprocess.run([sys.executable, str(GENERATOR), "--check", "--header", str(header)],
                          capture_output=True, text=True)


def test_checked_in_declarations_match_the_header():
    result = run_check(HEADER)
    assert result.returncode == 0, result.stderr


def test_a_changed_header_is_reported(tmp_path):
    header_dir = tmp_path / "queuey"
    header_dir.mkdir()
    (header_dir / "version.h.in").write_text((HEADER.parent / "version.h.in").read_text())
    changed = HEADER.read_text().replace(
        "#ifdef __cplusplus\n}", "QY_API int qy_new_function(void);\n\n#ifdef __cplusplus\n}")
    assert changed != HEADER.read_text()
    (header_dir / "queuey.h").write_text(changed)
    result = run_check(header_dir / "queuey.h")
    assert result.returncode == 1
    assert "out of date" in result.stderr


@pytest.mark.parametrize("enum, c_type, prefix", [
    (queuey.Status, "qy_status", ("QY_ERR_", "QY_")),
    (queuey.Counter, "qy_counter", ("QY_COUNTER_",)),
    (queuey.MemoryCount, "qy_memory_count", ("QY_MEMORY_",)),
])
def test_python_enums_match_the_header(enum, c_type, prefix):
    header = {}
    for value, name in _ffi.ffi.typeof(c_type).elements.items():
        short = next(name[len(p):] for p in prefix if name.startswith(p))
        header[short] = value
    assert {member.name: member.value for member in enum} == header


def test_library_version_is_the_package_version():
    assert queuey.library_version() == queuey.__version__
