"""A test server (`llama_server`'s, `bounded.testing.serving`) ends with the pytest run that
started it, however that run ends: normally, by SIGTERM, by SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

SOURCE = Path(__file__).parents[2] / "src"

SESSION = textwrap.dedent(
    """
    import os
    import socket
    import sys
    import time

    import pytest

    from bounded.testing.serving import serving


    @pytest.fixture(scope="session")
    def server(tmp_path_factory):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        command = [sys.executable, "-m", "bounded.testing.endpoint", "--port", str(port)]
        log = tmp_path_factory.mktemp("server") / "server.log"
        with serving(command, f"http://127.0.0.1:{port}/v1", log) as served:
            yield served


    def test_waits_to_be_ended(server):
        with open(os.environ["SERVER_PID"], "w") as handle:
            handle.write(str(server.process.pid))
        time.sleep(300)
    """
)


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, ended and not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def ended_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.1)
    return False


def signal_masks(pid: int) -> str:
    """The process's blocked, ignored and caught signals (/proc), to tell why it lived on."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except FileNotFoundError:
        return "gone"
    return "; ".join(line for line in lines if line.startswith(("SigBlk", "SigIgn", "SigCgt")))


def ended_output(run: subprocess.Popen[bytes], ending: int, timeout_s: float = 120) -> str:
    """What the pytest run printed once it ended; a failure naming its signal masks if it
    has not ended within `timeout_s` of the signal (seen once, at 60 s, on a loaded machine)."""
    try:
        return run.communicate(timeout=timeout_s)[0].decode()
    except subprocess.TimeoutExpired:
        masks = signal_masks(run.pid)
        run.kill()
        output = run.communicate()[0].decode()
        pytest.fail(
            f"pytest lived {timeout_s:.0f} s past {signal.Signals(ending).name} "
            f"({masks}):\n{output}"
        )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("ending", [signal.SIGTERM, signal.SIGKILL])
def test_the_server_ends_when_the_pytest_run_is_ended_by(tmp_path, ending):
    (tmp_path / "test_session.py").write_text(SESSION)
    pid_file = tmp_path / "server.pid"
    env = {
        **os.environ,
        "SERVER_PID": str(pid_file),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(SOURCE), os.environ.get("PYTHONPATH")])),
    }
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        env.pop(name, None)
    run = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_session.py"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not pid_file.exists() or not pid_file.read_text():
            assert run.poll() is None, run.stdout.read().decode() if run.stdout else ""
            assert time.monotonic() < deadline, "the session's server did not start"
            time.sleep(0.1)
        server = int(pid_file.read_text())
        assert alive(server)
        run.send_signal(ending)
        output = ended_output(run, ending)
        assert ended_within(server, 30), f"server {server} outlived pytest:\n{output}"
        if ending == signal.SIGTERM:  # taken as Ctrl-C: pytest tears its fixtures down
            assert "KeyboardInterrupt" in output and "interrupted by SIGTERM" in output, output
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        if pid_file.exists() and pid_file.read_text() and alive(int(pid_file.read_text())):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
