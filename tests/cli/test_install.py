"""`meson install` gives a working queuey command on PATH (issue 12's "done when")."""
from __future__ import annotations

import json
import os
import shutil
import subprocess


def test_meson_install_puts_a_working_queuey_on_path(cli, build_root, queue, tmp_path):
    subprocess.run(["meson", "install", "-C", str(build_root), "--no-rebuild", "--destdir",
                    str(tmp_path), "--quiet"], check=True, capture_output=True)
    [program] = tmp_path.rglob("bin/queuey")
    [library] = tmp_path.rglob("libqueuey.so.0")
    env = dict(os.environ, PATH=f"{program.parent}:{os.environ['PATH']}",
               LD_LIBRARY_PATH=str(library.parent), QUEUEY_URL=cli.url)
    assert shutil.which("queuey", path=env["PATH"]) == str(program)
    linked = subprocess.run(["ldd", str(program)], env=env, capture_output=True, text=True)
    assert f"{library.parent}/libqueuey.so.0" in linked.stdout, "it runs the installed library"

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
