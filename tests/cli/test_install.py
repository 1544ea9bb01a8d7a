"""`meson install` gives a working queuey command on PATH (issue 12's "done when"), which
finds its library without LD_LIBRARY_PATH (issue 41)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess


def test_meson_install_puts_a_working_queuey_on_path(cli, build_root, queue, tmp_path):
    subprocess.run(["meson", "install", "-C", str(build_root), "--no-rebuild", "--destdir",
                    str(tmp_path), "--quiet"], check=True, capture_output=True)
    [program] = tmp_path.rglob("bin/queuey")
    [library] = tmp_path.rglob("libqueuey.so.0")
    # No LD_LIBRARY_PATH (issue 41): its RUNPATH, $ORIGIN/../lib/..., finds the library
    # installed beside it, wherever the installation is (here under a DESTDIR).
    env = dict(os.environ, PATH=f"{program.parent}:{os.environ['PATH']}", QUEUEY_URL=cli.url)
    env.pop("LD_LIBRARY_PATH", None)
    assert shutil.which("queuey", path=env["PATH"]) == str(program)
    linked = subprocess.run(["ldd", str(program)], env=env, capture_output=True, text=True)
    found = re.search(r"libqueuey\.so\.0 => (\S+)", linked.stdout)
    assert found and os.path.realpath(found[1]) == os.path.realpath(library), linked.stdout

    def queuey(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["queuey", *args], env=env, capture_output=True, text=True,
                              timeout=60)

    version = queuey("--version")
    assert version.returncode == 0 and version.stdout == cli("--version").stdout
    enqueued = queuey("enqueue", queue, "t", '{"n": 1}', "--after", "2s")
    assert enqueued.returncode == 0, enqueued.stderr
    stats = queuey("--json", "stats", queue)
    assert stats.returncode == 0, stats.stderr
    line = json.loads(stats.stdout)
    assert (line["queue"], line["ready"], line["held"]) == (queue, 0, 1)
