"""Benchmark: the CPU an `openai:` model spends per call, beside a plain HTTP POST.

Against the local fake endpoint (`bounded.testing.endpoint`, a process of its own, no
latency, so its CPU is not counted), the same request is sent, in rounds that alternate
between the clients so that the machine's other work falls on all of them alike:

- `model`: `OpenAICompatModel.complete` (retry policy, deadline, usage, the completion);
- `sdk`: the OpenAI SDK's `client.chat.completions.create` on the same client (the path
  `complete` took before `bounded.models._http`);
- `plain`: `http.client` on a kept-alive connection, `json.dumps` of the body and
  `json.loads` of the reply, and nothing else (reconnecting when the endpoint closed an
  idle connection).

The request is a state-contract warehouse decision's: its messages and reply schema, as
`json_schema` response format. Reports the median over rounds of CPU (user + system of
this process) per call, and `model / plain`: the bar is 2.

    python bench/endpoint_client.py [--calls 200] [--rounds 7]

Writes bench/results/endpoint_client.json.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import provenance, write_result
from bounded.contracts import make_contract
from bounded.envs import make
from bounded.models.openai_compat import OpenAICompatModel
from bounded.protocols import EpisodeContext

RESULTS = Path(__file__).parent / "results" / "endpoint_client.json"
REPLY = json.dumps(
    {
        "reasoning": "",
        "state_patch": {},
        "action": {"id": "report", "args": {"occupied": 0, "shipped": 0}},
    }
)


def warehouse_request() -> tuple[list[dict[str, str]], dict[str, Any]]:
    """The messages and reply schema of a state contract's decision on the warehouse."""
    env = make("warehouse", horizon=100)
    obs, _ = env.reset(seed=0)
    contract = make_contract("state")
    contract.reset(
        EpisodeContext(
            env_id="bounded/Warehouse-v0", seed=0, instructions=env.instructions,
            state_schema=env.state_schema, initial_state=env.initial_state,
        )
    )  # fmt: skip
    return contract.assemble(obs).messages(), contract.reply_schema(obs)


class PlainPost:
    """A kept-alive `http.client` POST of a ready JSON body."""

    def __init__(self, url: str, body: bytes) -> None:
        parts = urllib.parse.urlsplit(url)
        self.host, self.port = parts.hostname or "", parts.port or 80
        self.path = parts.path.rstrip("/") + "/chat/completions"
        self.body = body
        self.headers = {"Content-Type": "application/json", "Authorization": "Bearer unused"}
        self.connection = http.client.HTTPConnection(self.host, self.port)

    def __call__(self) -> None:
        try:
            reply = self._post()
        except (http.client.RemoteDisconnected, ConnectionError):  # closed while idle
            self.connection.close()
            reply = self._post()
        json.loads(reply)

    def _post(self) -> bytes:
        self.connection.request("POST", self.path, self.body, self.headers)
        return self.connection.getresponse().read()


def cpu_per_call(call: Callable[[], Any], calls: int) -> float:
    started = time.process_time()
    for _ in range(calls):
        call()
    return (time.process_time() - started) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="calls per client per round")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    started_at = provenance()
    server = subprocess.Popen(
        [sys.executable, "-m", "bounded.testing.endpoint", "--content", REPLY],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        result = measure(url, args.calls, args.rounds)
    finally:
        server.terminate()
        server.wait()
    result["command"] = " ".join(["python", "bench/endpoint_client.py", *sys.argv[1:]])
    write_result(args.out, result, started_at)
    print(json.dumps(result["cpu_us_per_call"]), f"model/plain {result['ratio_model_plain']}")
    print(f"wrote {args.out}")


def measure(url: str, calls: int, rounds: int) -> dict[str, Any]:
    messages, schema = warehouse_request()
    model = OpenAICompatModel("bench", base_url=url)
    params = {"max_tokens": 512, "temperature": 0.0, "seed": 0}
    form = {
        "type": "json_schema",
        "json_schema": {"name": "reply", "schema": schema, "strict": True},
    }
    body = {"model": "bench", "messages": messages, **params, "response_format": form}
    create: Any = model.client.chat.completions.create
    clients: dict[str, Callable[[], Any]] = {
        "model": lambda: model.complete(messages, constraint=schema, seed=0),
        "sdk": lambda: create(**body),
        "plain": PlainPost(url, json.dumps(body).encode()),
    }
    model.complete(messages, constraint=schema, seed=0)  # the schema form settled
    assert model.last_response_format == "json_schema"
    load_before = [round(x, 2) for x in os.getloadavg()]
    samples: dict[str, list[float]] = {name: [] for name in clients}
    for call in clients.values():
        cpu_per_call(call, 10)  # warm
    for _ in range(rounds):
        for name, call in clients.items():
            samples[name].append(cpu_per_call(call, calls))
    cpu = {name: round(1e6 * statistics.median(values), 1) for name, values in samples.items()}
    return {
        "machine": f"{platform.machine()} {os.cpu_count()} cores",
        "python": platform.python_version(),
        "calls_per_round": calls,
        "rounds": rounds,
        "request_bytes": len(json.dumps(body)),
        "cpu_us_per_call": cpu,
        "ratio_model_plain": round(cpu["model"] / cpu["plain"], 2),
        "ratio_sdk_plain": round(cpu["sdk"] / cpu["plain"], 2),
        "load_average_before": load_before,
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }


if __name__ == "__main__":
    main()
