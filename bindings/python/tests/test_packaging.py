"""What `pip install <repository>` builds, checked without building it."""
import re

from conftest import HERE

PROJECT = HERE.parent
PACKAGE = PROJECT / "queuey"


def test_meson_installs_every_file_of_the_package():
    """queuey/meson.build lists the files that the wheel holds beside libqueuey."""
    listed = re.findall(r"'(\w+\.py|py\.typed)'", (PACKAGE / "meson.build").read_text())
    on_disk = [p.name for p in PACKAGE.iterdir() if p.suffix == ".py" or p.name == "py.typed"]
    assert sorted(listed) == sorted(on_disk)


def test_meson_runs_every_broker_test_file_with_the_broker():
    """meson.build lists the test_broker*.py files: python_broker runs them, python_memory
    leaves them out; a file missing from the list would run in neither or wrongly."""
    listed = re.findall(r"'(test_broker\w*\.py)'", (PROJECT / "meson.build").read_text())
    assert sorted(listed) == sorted(p.name for p in HERE.glob("test_broker*.py"))
