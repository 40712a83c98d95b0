"""The `rag` contract's own cost per decision against the number of chunks it holds.

Usage: python bench/rag_retrieval.py [--sizes 100 1000 10000] [--queries 200] [--out-dir DIR]
       [--embed N]

Chunks are real spire decisions: the observations of the spire expert's games (seeds 1,
2, ...; three acts each, as many games as it takes), each with a reply and an action as
the contract stores them. At each size the index is filled through the contract's own
`commit` (so the incremental index is what is measured), then `retrieve` is timed on
`--queries` later observations of the expert's games (BM25 on the text, as every model
without embeddings gets), and, with vectors of the embedded model's dimension (576,
deterministic stand-ins: the cosine's cost does not depend on their values), cosine and
the hybrid score. Also reported: the time to commit one chunk at that size, and the size
of the contract's memory snapshot, and what a checkpoint writes after a decision (the
chunks are a memory log: only the newest is written).

`--embed N` also times N embedding calls of the embedded model on real observations (the
one embedding call a decision makes when the model embeds), to set beside the index's
own time.

Writes `rag_retrieval.json` to `--out-dir` (default bench/results).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from bounded.analysis.provenance import provenance, write_result
from bounded.contracts import make_contract
from bounded.contracts.rag import RagContract
from bounded.core import Action, Completion, Decision, Embeddings, Observation, StepResult
from bounded.envs import make
from bounded.envs.spire import SpireExpert
from bounded.testing import episode

RESULTS = Path(__file__).parent / "results"
DIMENSIONS = 576
"""SmolLM2-135M's embedding size (the embedded model's, `LocalModel.embed`)."""


def expert_observations(count: int) -> list[Observation]:
    """At least `count` observations from the spire expert's games, seed by seed."""
    seen: list[Observation] = []
    seed = 1
    while len(seen) < count:
        env, expert = make("spire", acts=3), SpireExpert()
        obs, _ = env.reset(seed=seed)
        done = False
        while not done and obs.legal:
            seen.append(obs)
            chosen = expert.act(obs)
            obs, _, terminated, truncated, _ = env.step(chosen)
            done = terminated or truncated
        seed += 1
    return seen


class StandIn:
    """A model whose `embed` returns deterministic vectors of `DIMENSIONS` (for timing)."""

    id = "stand-in"
    context_window = None

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def embed(self, texts: list[str]) -> Embeddings:
        vectors = [[self.rng.uniform(-1, 1) for _ in range(DIMENSIONS)] for _ in texts]
        return Embeddings(vectors=vectors, model=self.id)

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def complete(self, *args: object, **kwargs: object) -> Completion:
        raise NotImplementedError


def filled(
    similarity: str, observations: list[Observation], size: int
) -> tuple[RagContract, float]:
    """A contract holding `size` chunks, and the mean seconds one commit took."""
    contract = make_contract("rag", {"similarity": similarity})
    assert isinstance(contract, RagContract)
    model = StandIn() if similarity != "bm25" else None
    contract.reset(episode(model=model))
    reply = Completion(text='{"reasoning": "", "action": {"id": "x"}}')
    seconds = []
    for obs in observations[:size]:
        if model is not None:
            contract._query_vector = model.embed([obs.text]).vectors[0]
        contract.parse(reply, obs)
        started = time.perf_counter()
        contract.commit(obs, Decision(actions=[Action(id=obs.legal[0].id)]), StepResult())
        seconds.append(time.perf_counter() - started)
    return contract, statistics.mean(seconds[-min(100, size) :])


def time_retrieval(contract: RagContract, queries: list[Observation]) -> list[float]:
    seconds = []
    for obs in queries:
        _, spent = contract.retrieve(obs.text)
        seconds.append(spent)
    return seconds


def describe(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        "mean_ms": round(1000 * statistics.mean(ordered), 3),
        "median_ms": round(1000 * statistics.median(ordered), 3),
        "p95_ms": round(1000 * ordered[int(0.95 * (len(ordered) - 1))], 3),
        "max_ms": round(1000 * ordered[-1], 3),
    }


def embed_calls(observations: list[Observation], n: int) -> dict[str, float]:
    from bounded.models.local import LocalModel

    model = LocalModel()
    model.embed(["warm up"])
    seconds = []
    for obs in observations[:n]:
        started = time.perf_counter()
        model.embed([obs.text])
        seconds.append(time.perf_counter() - started)
    return {"calls": n, **describe(seconds)}


def checkpoint_bytes(snapshot: dict, logs: tuple[str, ...]) -> int:
    """What an archive's checkpoint writes after a decision: the snapshot less its memory
    logs, and each log's newest item (`bounded.archive.progress.write_checkpoint`)."""
    rest = {key: value for key, value in snapshot.items() if key not in logs}
    newest = [snapshot[key][-1] for key in logs if snapshot[key]]
    return len(json.dumps(rest)) + sum(len(json.dumps(item)) for item in newest)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--cosine-queries", type=int, default=20)
    parser.add_argument("--embed", type=int, default=0)
    parser.add_argument("--out-dir", type=Path, default=RESULTS)
    args = parser.parse_args()
    started_at = provenance()
    top = max(args.sizes)
    observations = expert_observations(top + args.queries)
    queries = observations[top : top + args.queries]
    results = []
    for size in args.sizes:
        bm25, commit_s = filled("bm25", observations, size)
        snapshot = bm25.memory_snapshot()
        row = {
            "chunks": size,
            "bm25": describe(time_retrieval(bm25, queries)),
            "commit_ms": round(1000 * commit_s, 3),
            "snapshot_bytes": len(json.dumps(snapshot)),
            "checkpoint_bytes": checkpoint_bytes(snapshot, bm25.memory_logs()),
        }
        for similarity in ("embedding", "hybrid"):
            contract, _ = filled(similarity, observations, size)
            row[similarity] = describe(time_retrieval(contract, queries[: args.cosine_queries]))
        results.append(row)
        print(json.dumps(row), flush=True)
    out: dict[str, object] = {
        "settings": {
            "sizes": args.sizes,
            "queries": args.queries,
            "cosine_queries": args.cosine_queries,
            "dimensions": DIMENSIONS,
            "observations_from": "spire expert games, seeds 1..",
        },
        "results": results,
    }
    if args.embed:
        out["embed_call"] = embed_calls(queries, args.embed)
        print(json.dumps(out["embed_call"]))
    args.out_dir.mkdir(parents=True, exist_ok=True)
    write_result(args.out_dir / "rag_retrieval.json", out, started_at, indent=1)


if __name__ == "__main__":
    main()
