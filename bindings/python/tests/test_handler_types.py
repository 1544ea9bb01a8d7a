"""The handler's type says what a handler may be (issue 41, item 1): a function or a
coroutine function of a Job that returns nothing, so that `mypy --strict` refuses a
handler that returns a value (an outcome is raised, never returned)."""
import os
import subprocess
import sys
import textwrap

from conftest import HERE

HANDLERS = textwrap.dedent('''\
    import queuey


    def build(worker: queuey.Worker) -> None:
        @worker.handler("plain")
        def plain(job: queuey.Job) -> None:
            pass

        @worker.handler("coroutine")
        async def coroutine(job: queuey.Job) -> None:
            pass

        @worker.handler("returns-int")
        def returns_int(job: queuey.Job) -> int:
            return 1

        @worker.handler("returns-str-async")
        async def returns_str(job: queuey.Job) -> str:
            return ""

        worker.add_handler("lambda-returns-int", lambda job: 3)
    ''')


def test_mypy_strict_refuses_handlers_that_return_a_value(tmp_path):
    source = tmp_path / "handlers.py"
    source.write_text(HANDLERS)
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", os.devnull,
         str(source)],
        env={**os.environ, "MYPYPATH": str(HERE.parent)}, capture_output=True, text=True,
        timeout=240)
    errors = [line for line in checked.stdout.splitlines() if ": error:" in line]
    flagged = sorted(int(line.split(":")[1]) for line in errors)
    assert flagged == [13, 17, 21], checked.stdout + checked.stderr
    assert all("queuey/" not in line for line in errors), "the package itself fails mypy --strict"
