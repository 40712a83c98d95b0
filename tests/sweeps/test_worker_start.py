"""Sweep workers die with their driver, however early the driver is killed."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

DRIVER = textwrap.dedent(
    """
    import multiprocessing, os, time
    from concurrent.futures import ProcessPoolExecutor
    from pathlib import Path
    from bounded.sweeps.worker_start import worker_boot
    from bounded.sweeps.executors import start_worker

    if __name__ == "__mp_main__":  # a worker loading the driver's main module (slowly)
        time.sleep(0.3)
        marks = Path(os.environ["TEST_MARKS"])
        (marks / str(os.getpid())).write_text(str(os.getppid()))

    if __name__ == "__main__":
        context = multiprocessing.get_context("spawn")
        with worker_boot(context), ProcessPoolExecutor(
            2, mp_context=context, initializer=start_worker, initargs=({}, os.getpid())
        ) as pool:
            futures = [pool.submit(time.sleep, 60) for _ in range(2)]
            print("submitted", flush=True)
            time.sleep(60)
    """
)


def workers_of(driver: int, marks: Path) -> list[int]:
    """Live processes the driver started (they inherited its `TEST_MARKS`), but the driver."""
    found = []
    mark = f"TEST_MARKS={marks}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == driver:
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if mark in environ and state != "Z":
            found.append(int(entry.name))
    return found


def wait_gone(driver: int, marks: Path, seconds: float = 10.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := workers_of(driver, marks)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
@pytest.mark.parametrize("delay", [0.0, 0.02, 0.1, 0.3, 1.5])
def test_workers_die_with_a_driver_killed_while_they_start_or_play(tmp_path, delay):
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    marks = tmp_path / "marks"
    marks.mkdir()
    driver = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "TEST_MARKS": str(marks)},
    )
    assert driver.stdout.readline().strip() == b"submitted"
    time.sleep(delay)
    if delay >= 1.5:  # by now both workers run: the check below can see them
        assert len(workers_of(driver.pid, marks)) >= 2  # and the resource tracker
    os.kill(driver.pid, signal.SIGKILL)
    driver.wait()
    assert wait_gone(driver.pid, marks) == []
    parents = {int(mark.read_text()) for mark in marks.iterdir()}
    assert parents <= {driver.pid}, "a worker ran the sweep's code after its driver died"


PROBE = textwrap.dedent(
    """
    import sys
    {head}
    if __name__ == "__main__":
        import multiprocessing
        from bounded.sweeps.worker_start import worker_boot

        MARK = True
        context = multiprocessing.get_context("spawn")
        check = "import sys; sys.exit(3 if {question} else 0)"
        with worker_boot(context):
            worker = context.Process(target=exec, args=(check,))
            worker.start()
            worker.join()
        print(worker.exitcode)
    """
)


def spawned_answer(tmp_path: Path, head: str, question: str) -> str:
    """A worker's exit status (3: yes) to `question`, started by a driver script whose
    first lines are `head`, named `bounded` like the command's entry script."""
    script = tmp_path / "bounded"
    script.write_text(PROBE.format(head=head, question=question))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout.strip()


def test_workers_of_the_bounded_command_do_not_import_the_cli(tmp_path):
    head = "from bounded.cli import main"  # what the installed `bounded` script holds
    assert spawned_answer(tmp_path, head, "'bounded.cli' in sys.modules") == "0"


def test_workers_of_a_users_script_still_load_it(tmp_path):
    head = "def main(): pass"  # its own functions: a worker may need them to unpickle
    question = "not hasattr(sys.modules.get('__mp_main__'), 'main')"
    assert spawned_answer(tmp_path, head, question) == "0"
