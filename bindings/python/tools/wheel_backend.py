"""A PEP 517 build backend for this pure-Python package, on the standard library only.

It makes `pip install bindings/python` work offline with any pip: setuptools from a
fresh Python cannot build a wheel without the separate `wheel` package, which a machine
may lack. The wheel holds queuey/ and the metadata of pyproject.toml's [project] table.
"""
from __future__ import annotations

import base64
import hashlib
import io
import tarfile
import zipfile
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "queuey"


def _project() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def _metadata(project: dict) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project['description']}",
        f"License: {project['license']['text']}",
        f"Requires-Python: {project['requires-python']}",
    ]
    lines += [f"Requires-Dist: {dep}" for dep in project.get("dependencies", [])]
    for extra, deps in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {dep}; extra == "{extra}"' for dep in deps]
    lines.append("Description-Content-Type: text/markdown")
    return "\n".join(lines) + "\n\n" + (ROOT / project["readme"]).read_text(encoding="utf-8")


def _entry_points(scripts: dict) -> str:
    """entry_points.txt: pip makes a command of each console script."""
    return "[console_scripts]\n" + "".join(f"{name} = {target}\n"
                                           for name, target in scripts.items())


def _package_files() -> list[tuple[str, bytes]]:
    return [(path.relative_to(ROOT).as_posix(), path.read_bytes())
            for path in sorted((ROOT / PACKAGE).iterdir())
            if path.is_file() and (path.suffix == ".py" or path.name == "py.typed")]


def _write_wheel(directory: str, files: list[tuple[str, bytes]]) -> str:
    project = _project()
    dist = f"{project['name']}-{project['version']}"
    info = f"{dist}.dist-info"
    files = files + [
        (f"{info}/METADATA", _metadata(project).encode()),
        (f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: queuey wheel_backend\n"
                          b"Root-Is-Purelib: true\nTag: py3-none-any\n"),
        (f"{info}/top_level.txt", f"{PACKAGE}\n".encode()),
    ]
    if project.get("scripts"):
        files.append((f"{info}/entry_points.txt", _entry_points(project["scripts"]).encode()))
    record = []
    for name, data in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    files.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))

    wheel_name = f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(Path(directory) / wheel_name, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files:
            wheel.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
    return wheel_name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """A wheel with a .pth file that puts this directory on sys.path."""
    return _write_wheel(wheel_directory, [(f"{PACKAGE}.pth", f"{ROOT}\n".encode())])


def build_sdist(sdist_directory, config_settings=None):
    project = _project()
    dist = f"{project['name']}-{project['version']}"
    name = f"{dist}.tar.gz"
    with tarfile.open(Path(sdist_directory) / name, "w:gz") as sdist:
        for path in ["pyproject.toml", project["readme"], PACKAGE, "tools"]:
            sdist.add(ROOT / path, f"{dist}/{path}",
                      filter=lambda t: None if "__pycache__" in t.name else t)
        pkg_info = _metadata(project).encode()
        entry = tarfile.TarInfo(f"{dist}/PKG-INFO")
        entry.size = len(pkg_info)
        sdist.addfile(entry, io.BytesIO(pkg_info))
    return name
