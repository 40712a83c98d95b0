"""The fake OpenAI-compatible endpoint, as the tests and benchmarks use it: in a thread of
this process (scripted replies, latency, counts) and as a process of its own."""

import json
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from bounded.testing.endpoint import USAGE, Endpoint

SOURCE = Path(__file__).parents[2] / "src"


def chat(url: str, model: str = "m", **body: object) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"{url}/chat/completions",
        data=json.dumps({"model": model, "messages": [], **body}).encode(),
        headers={"Content-Type": "application/json"},
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_a_good_reply_carries_the_content_and_usage_and_is_counted():
    with Endpoint(content="hello") as endpoint:
        code, body = chat(endpoint.url, model="named")
        assert code == 200 and body["model"] == "named"
        assert body["choices"][0]["message"]["content"] == "hello"
        assert body["usage"] == dict(USAGE)
        assert endpoint.calls == endpoint.attempts == 1 and endpoint.requests[0].body["model"]


def test_the_script_is_played_in_order_then_the_default():
    with Endpoint() as endpoint:
        endpoint.play(endpoint.status(429, retry_after="1"), endpoint.ok(usage=False))
        assert chat(endpoint.url)[0] == 429
        assert "usage" not in chat(endpoint.url)[1]
        assert "usage" in chat(endpoint.url)[1]
        assert len(endpoint.gaps()) == 2


def test_a_reasoning_reply_counts_its_tokens_in_the_completion():
    with Endpoint() as endpoint:
        endpoint.play(then=endpoint.thinking("hmm", tokens=4))
        body = chat(endpoint.url)[1]
        assert body["choices"][0]["message"]["reasoning_content"] == "hmm"
        assert body["usage"]["completion_tokens"] == USAGE["completion_tokens"] + 4


def test_latency_holds_every_reply_and_concurrent_calls_are_in_flight_together():
    with Endpoint(latency_s=0.2, record=False) as endpoint:
        threads = [threading.Thread(target=chat, args=(endpoint.url,)) for _ in range(3)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert time.monotonic() - started >= 0.2
        assert endpoint.calls == 3 and endpoint.most_in_flight == 3
        assert endpoint.requests == [] and endpoint.in_flight == 0


def test_closing_ends_a_hang_at_once():
    endpoint = Endpoint()
    endpoint.play(endpoint.hang(30))
    errors = []

    def call() -> None:
        try:
            chat(endpoint.url)
        except OSError as error:  # the connection closes with no reply
            errors.append(error)

    thread = threading.Thread(target=call)
    thread.start()
    while endpoint.calls == 0:
        time.sleep(0.01)
    started = time.monotonic()
    endpoint.close()
    thread.join(timeout=10)
    assert not thread.is_alive() and time.monotonic() - started < 5 and errors


def test_as_a_process_of_its_own_it_prints_its_url_and_serves():
    process = subprocess.Popen(
        [sys.executable, "-m", "bounded.testing.endpoint", "--content", "hi", "--latency", "0"],
        stdout=subprocess.PIPE,
        text=True,
        env={"PYTHONPATH": str(SOURCE), "PATH": ""},
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        assert chat(url)[1]["choices"][0]["message"]["content"] == "hi"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_bad_option_is_refused():
    result = subprocess.run(
        [sys.executable, "-m", "bounded.testing.endpoint", "--latency", "soon"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(SOURCE), "PATH": ""},
    )
    assert result.returncode == 2 and "--latency" in result.stderr


def test_refused_formats_are_refused_without_reading_the_script():
    with Endpoint(refuses=frozenset({"json_object"}), content="plain") as endpoint:
        endpoint.play(endpoint.ok(content="scripted"))
        code, body = chat(endpoint.url, response_format={"type": "json_object"})
        assert code == 400 and "'json_object' is not supported" in body["error"]["message"]
        code, body = chat(endpoint.url, response_format={"type": "json_schema"})
        assert code == 200 and body["choices"][0]["message"]["content"] == "scripted"
        code, body = chat(endpoint.url)
        assert code == 200 and body["choices"][0]["message"]["content"] == "plain"
        assert endpoint.forms() == ["json_object", "json_schema", None]
        assert endpoint.in_flight == 0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_as_a_process_it_plays_on_the_port_asked_and_reports_the_usage_asked():
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "bounded.testing.endpoint", "--port", str(port),
         "--usage", "none"],
        stdout=subprocess.PIPE, text=True, env={"PYTHONPATH": str(SOURCE), "PATH": ""},
    )  # fmt: skip
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == f"http://127.0.0.1:{port}/v1"
        listing = "Legal actions:\n- noop: Noop\n- left: Move Left\n\nAction:"
        code, body = chat(
            f"http://127.0.0.1:{port}/v1", messages=[{"role": "user", "content": listing}]
        )
        assert code == 200 and "usage" not in body
        assert body["choices"][0]["message"]["content"] == "noop"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_bad_usage_or_a_taken_port_ends_in_one_line_and_a_nonzero_exit():
    with Endpoint() as taken:
        port = taken.url.split(":")[2].split("/")[0]
        for args in (["--usage", "ten"], ["--port", port]):
            result = subprocess.run(
                [sys.executable, "-m", "bounded.testing.endpoint", *args],
                capture_output=True, text=True, env={"PYTHONPATH": str(SOURCE), "PATH": ""},
            )  # fmt: skip
            last = result.stderr.strip().splitlines()[-1]
            assert result.returncode != 0 and "Traceback" not in result.stderr
            assert "argument --usage: 'ten'" in last or f"cannot serve on port {port}" in last


def request(url: str, method: str, body: dict | None = None, key: str | None = None):
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    sent = urllib.request.Request(url, data=data, headers=headers, method=method)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(sent, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_what_it_does_not_serve_is_answered_404_and_never_played():
    with Endpoint(content="hello") as endpoint:
        for method, path in (("POST", "/responses"), ("POST", "/completions"), ("GET", "/x")):
            code, body = request(f"{endpoint.url}{path}", method, {"model": "m", "input": "hi"})
            assert code == 404 and body["error"]["type"] == "not_found", path
        assert endpoint.calls == 0
        assert request(f"{endpoint.url}/models", "GET")[0] == 200
        assert chat(endpoint.url)[0] == 200 and endpoint.calls == 1


def test_with_a_key_it_refuses_every_request_without_it():
    with Endpoint(content="hello", api_key="right") as endpoint:
        for key in (None, "wrong"):
            code, body = request(f"{endpoint.url}/models", "GET", key=key)
            assert code == 401 and body["error"]["code"] == "invalid_api_key"
            message = {"model": "m", "messages": []}
            assert request(f"{endpoint.url}/chat/completions", "POST", message, key)[0] == 401
        assert request(f"{endpoint.url}/models", "GET", key="right")[0] == 200
        assert endpoint.calls == 0
