"""How long the embedded weights reason behind a real OpenAI-compatible server (llama.cpp's,
`python -m llama_cpp.server`) under each reasoning cap: the cap is the schema's
`maxLength`, which the server's grammar enforces.

Usage: python bench/reasoning_budget.py [--caps 24,120,none] [--max-tokens 160] [--out PATH]
Writes bench/results/reasoning_budget.json: per contract and cap, the characters of
reasoning the model wrote, its completion tokens and why it stopped. One decision each,
greedy (temperature 0), on a two-door question that asks it to explain at length.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import provenance, write_result
from bounded.contracts import make_contract
from bounded.core import Action, Observation
from bounded.models import make_model
from bounded.models.local import EMBEDDED
from bounded.testing import episode

RESULTS = Path(__file__).parent / "results" / "reasoning_budget.json"
QUESTION = Observation(
    kind="choice",
    text="Explain at length, in many sentences, every consideration before you choose a door.",
    legal=[Action(id="left", label="the left door"), Action(id="right", label="the right door")],
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(EMBEDDED["smollm2"].path()),
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--n_threads", "2",
        "--model_alias", "smollm2",
    ]  # fmt: skip
    with log.open("wb") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    for _ in range(480):
        try:
            urllib.request.urlopen(f"{url}/models", timeout=2)
            return server, url
        except OSError:
            time.sleep(0.5)
    server.terminate()
    raise RuntimeError(f"llama server did not start: {log.read_text()[-2000:]}")


def measure(url: str, contract_name: str, cap: int | None, max_tokens: int) -> dict[str, Any]:
    model = make_model("openai:smollm2", base_url=url)
    contract = make_contract(contract_name, {"reasoning_chars": cap})
    contract.reset(episode(instructions="Think it through.", model=model))
    completion = model.complete(
        contract.assemble(QUESTION).messages(), constraint=contract.reply_schema(QUESTION),
        max_tokens=max_tokens,
    )  # fmt: skip
    decision = contract.parse(completion, QUESTION)  # a reply cut by the limit is a row too
    return {
        "contract": contract_name, "cap": cap, "reasoning_chars": len(decision.reasoning),
        "completion_tokens": completion.completion_tokens,
        "finish_reason": completion.finish_reason, "parse_error": decision.parse_error,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--caps", default="24,120,none")
    parser.add_argument("--max-tokens", type=int, default=160)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    started_at = provenance()
    caps = [None if c == "none" else int(c) for c in args.caps.split(",")]
    server, url = serve(Path(tempfile.mkdtemp()) / "server.log")
    try:
        rows = [measure(url, name, cap, args.max_tokens) for name in ("transcript", "state")
                for cap in caps]  # fmt: skip
    finally:
        server.terminate()
        server.wait(timeout=30)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, {"max_tokens": args.max_tokens, "rows": rows}, started_at, indent=1)
    for row in rows:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
