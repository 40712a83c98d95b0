"""Benchmark: the embedded model's decision against llama.cpp's own speed, in one run.

First llama.cpp's rates, through llama-cpp-python directly on the embedded model
(SmolLM2-135M, the settings `LocalModel` loads it with), at each thread count of
`--threads`: prompt processing (tokens/s of a fresh chunk of `--chunk` tokens evaluated
after a cached prefix of `--prefix` tokens, the median of `--reps`) and generation
(tokens/s of greedy decoding, one token at a time: free, and under the reply grammar of
the game's first decision on that decision's prompt, as bounded decodes it).

Then the quick-start game (`bounded demo`: spire Act 1, `typed`, seed 1, 640 reply
tokens) for `--decisions` decisions, once per entry of `--games` (`default`: the model's
own thread count; a number: `model_options = {n_threads: N}`; `:D` after either plays D
decisions instead). Per decision: its wall
time, the prompt tokens llama.cpp evaluated fresh (not served from its prefix cache) and
the tokens it generated. A decision's token cost is its fresh tokens at the prompt rate
plus its generated tokens at the grammar's generation rate, both measured above at the
thread count the game ran with and at the best thread count; the ratio is the game's
wall time over its decisions' token cost (with `--bracket` the rates are measured again
after the games and the cost uses the mean of both, so that a load that changes during
the run skews it less). The games' replies are compared: the same
seed must give the same replies whatever the thread count.

With `--profile N`, the first N decisions of the last game are played under cProfile and
the time is split into llama.cpp's decode, sampling, sampler and grammar set-up, prompt
formatting and tokenizing, and the rest (bounded's own).

    python bench/embedded_speed.py [--decisions 25] [--games 2:5 default] [--profile 5]
        [--archive A.sqlite]   # then: bounded export A.sqlite --format summary -o FILE

Writes bench/results/embedded_speed.json.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import provenance, write_result
from bounded.archive import Archive
from bounded.models.local import LocalModel
from bounded.runner.build import play
from bounded.runner.spec import GameSpec

RESULTS = Path(__file__).parent / "results" / "embedded_speed.json"
TEXT = Path(__file__).parents[1] / "README.md"
"""Prompt-processing text: the cost of a token does not depend on which token it is."""

PROFILE_GROUPS = {
    "decode": ("_internals.py", "decode"),
    "sample": ("_internals.py", "sample"),
    "sampler_setup": ("llama.py", "_init_sampler"),
    "format_tokenize": ("local.py", "prompt_tokens"),
}
"""Profile group -> (file suffix, function) whose cumulative time it is."""


def prompt_rate(model: LocalModel, prefix: int, chunk: int, reps: int) -> dict[str, Any]:
    """Tokens/s of `chunk` fresh tokens evaluated after a cached `prefix`."""
    llama = model._llama
    tokens = llama.tokenize(TEXT.read_text().encode())
    if len(tokens) < prefix + chunk:
        raise SystemExit(f"{TEXT} has {len(tokens)} tokens, fewer than {prefix + chunk}")
    rates = []
    for _ in range(reps):
        llama.reset()
        llama.eval(tokens[:prefix])
        started = time.perf_counter()
        llama.eval(tokens[prefix : prefix + chunk])
        rates.append(chunk / (time.perf_counter() - started))
    llama.reset()
    return {"tokens_per_s": round(statistics.median(rates), 1),
            "each": [round(rate, 1) for rate in rates]}  # fmt: skip


def generation_rate(
    model: LocalModel, prompt: list[int], grammar: Any, limit: int
) -> dict[str, Any]:
    """Tokens/s of greedy decoding after `prompt` (each token: a decode and a sample),
    under `grammar` (None: free), until the end of the text or `limit` tokens."""
    llama = model._llama
    llama.reset()
    eos = llama.token_eos()
    stamps = []
    for token in llama.generate(prompt, temp=0.0, grammar=grammar):
        stamps.append(time.perf_counter())
        if token == eos or len(stamps) > limit:
            break
    llama.reset()
    tokens = len(stamps) - 1  # the first stamp ends the prompt's evaluation
    return {"tokens": tokens, "tokens_per_s": round(tokens / (stamps[-1] - stamps[0]), 1)}


class Recorder:
    """The model calls of each decision, and each decision's wall time."""

    def __init__(self, model: LocalModel) -> None:
        self.model = model
        self.calls: list[dict[str, Any]] = []
        self.first: dict[str, Any] | None = None
        self.decisions: list[dict[str, Any]] = []
        self.replies: list[str] = []
        self.mark = time.perf_counter()
        complete = model.complete

        def recorded(messages: list[dict[str, str]], **options: Any) -> Any:
            if self.first is None:
                self.first = {"messages": messages, "constraint": options.get("constraint")}
            completion = complete(messages, **options)
            self.calls.append({
                "fresh": completion.prompt_tokens - completion.cached_tokens,
                "prompt": completion.prompt_tokens,
                "generated": completion.completion_tokens,
                "model_s": completion.latency_s,
            })  # fmt: skip
            self.replies.append(completion.text)
            return completion

        model.complete = recorded  # type: ignore[method-assign]

    def observe(self, record: Any, obs: Any) -> None:
        now = time.perf_counter()
        calls, self.calls = self.calls, []
        self.decisions.append({
            "wall_s": round(now - self.mark, 3),
            "calls": len(calls),
            "prompt_tokens": sum(c["prompt"] for c in calls),
            "fresh_tokens": sum(c["fresh"] for c in calls),
            "generated_tokens": sum(c["generated"] for c in calls),
            "model_s": round(sum(c["model_s"] for c in calls), 3),
        })  # fmt: skip
        self.mark = now


def game_spec(decisions: int, threads: str) -> GameSpec:
    options = {} if threads == "default" else {"n_threads": int(threads)}
    return GameSpec(
        env="spire", env_options={"acts": 1, "ascension": 0}, contract="typed", seed=1,
        tag="demo-typed", max_tokens=640, max_decisions=decisions, model="local",
        model_options=options,
    )  # fmt: skip


def play_game(
    model: LocalModel, decisions: int, threads: str, profile: int, archive: Path | None
) -> tuple[Recorder, dict[str, Any] | None]:
    """The quick-start game's first `decisions` decisions (the first `profile` of them
    under cProfile, then the rest without), into `archive` when given."""
    model._llama.reset()
    recorder = Recorder(model)
    profiler = cProfile.Profile() if profile else None

    def observe(record: Any, obs: Any) -> None:
        recorder.observe(record, obs)
        if profiler is not None and len(recorder.decisions) == profile:
            profiler.disable()

    recorder.mark = time.perf_counter()
    if profiler is not None:
        profiler.enable()
    with Archive(archive) if archive is not None else nullcontext() as store:
        play(game_spec(decisions, threads), archive=store, model=model, observer=observe)
    if profiler is not None:
        profiler.disable()
    return recorder, None if profiler is None else profile_split(profiler, recorder, profile)


def profile_split(profiler: cProfile.Profile, recorder: Recorder, decisions: int) -> dict[str, Any]:
    """The profiled decisions' time by group; `bounded` is what no group holds."""
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = sum(d["wall_s"] for d in recorder.decisions[:decisions])
    groups: dict[str, float] = {}
    counts: dict[str, int] = {}
    for name, (suffix, function) in PROFILE_GROUPS.items():
        for (path, _, func), (_, calls, _, cumulative, _) in stats.items():
            if path.endswith(suffix) and func == function:
                groups[name] = groups.get(name, 0.0) + cumulative
                counts[name] = counts.get(name, 0) + calls
    top = sorted(stats.items(), key=lambda item: -item[1][2])[:15]
    return {
        "decisions": decisions,
        "wall_s": round(total, 3),
        "groups_s": {name: round(seconds, 3) for name, seconds in groups.items()},
        "group_calls": counts,
        "bounded_s": round(total - sum(groups.values()), 3),
        "top_tottime": [
            {
                "function": f"{Path(path).name}:{line}({func})",
                "calls": calls,
                "tottime_s": round(tottime, 3),
            }
            for (path, line, func), (_, calls, tottime, _, _) in top
        ],
    }


def token_cost(decisions: list[dict[str, Any]], rates: dict[str, Any]) -> float:
    prompt = rates["prompt"]["tokens_per_s"]
    generate = rates["generation_grammar"]["tokens_per_s"]
    return sum(d["fresh_tokens"] / prompt + d["generated_tokens"] / generate for d in decisions)


def game_row(
    threads: str, model: LocalModel, recorder: Recorder, rates: dict[int, dict[str, Any]]
) -> dict[str, Any]:
    decisions = recorder.decisions
    wall = sum(d["wall_s"] for d in decisions)
    model_s = sum(d["model_s"] for d in decisions)
    own, best = rates[model._threads], max(rates.values(), key=lambda r: r["cost_index"])
    row: dict[str, Any] = {
        "threads": threads,
        "n_threads": model._threads,
        "decisions": len(decisions),
        "wall_s": round(wall, 2),
        "s_per_decision": round(wall / len(decisions), 3),
        "model_s": round(model_s, 2),
        "fresh_tokens": sum(d["fresh_tokens"] for d in decisions),
        "prompt_tokens": sum(d["prompt_tokens"] for d in decisions),
        "generated_tokens": sum(d["generated_tokens"] for d in decisions),
    }
    for label, at in (("own_threads", own), ("best_threads", best)):
        cost = token_cost(decisions, at)
        row[f"token_cost_s_{label}"] = round(cost, 2)
        row[f"ratio_{label}"] = round(wall / cost, 3)
        row[f"model_ratio_{label}"] = round(model_s / cost, 3)
    row["best_threads"] = best["n_threads"]
    row["per_decision"] = decisions
    return row


def measure_rates(
    threads: int, args: argparse.Namespace, prompt: list[int], constraint: Any
) -> dict[str, Any]:
    model = LocalModel(n_threads=threads)
    grammar = model._grammar(constraint) if constraint is not None else None
    rates: dict[str, Any] = {
        "n_threads": threads,
        "prompt": prompt_rate(model, args.prefix, args.chunk, args.reps),
        "generation_free": generation_rate(model, prompt, None, args.generate),
        "generation_grammar": generation_rate(model, prompt, grammar, args.generate),
    }
    # one index to pick the best thread count by: the cost of a typical decision
    rates["cost_index"] = round(
        1 / (args.chunk / rates["prompt"]["tokens_per_s"]
             + 60 / rates["generation_grammar"]["tokens_per_s"]), 5,
    )  # fmt: skip
    del model
    return rates


def mean_rates(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The rates measured before and after the games, averaged (each run kept)."""
    merged: dict[str, Any] = {"n_threads": before["n_threads"]}
    for key in ("prompt", "generation_free", "generation_grammar"):
        mean = (before[key]["tokens_per_s"] + after[key]["tokens_per_s"]) / 2
        merged[key] = {**before[key], "tokens_per_s": round(mean, 1)}
    merged["prompt"]["each"] = before["prompt"]["each"] + after["prompt"]["each"]
    merged["cost_index"] = round((before["cost_index"] + after["cost_index"]) / 2, 5)
    return merged


def first_prompt(threads: int) -> tuple[list[int], Any]:
    """The quick-start game's first prompt (token ids) and reply constraint."""
    model = LocalModel(n_threads=threads)
    recorder = Recorder(model)
    play(game_spec(1, str(threads)), model=model, observer=recorder.observe)
    assert recorder.first is not None
    tokens, _ = model.prompt_tokens(recorder.first["messages"])
    return tokens, recorder.first["constraint"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=25)
    parser.add_argument("--games", nargs="+", default=["2", "default"])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--prefix", type=int, default=800)
    parser.add_argument("--chunk", type=int, default=500)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--generate", type=int, default=64)
    parser.add_argument("--profile", type=int, default=5)
    parser.add_argument("--archive", type=Path, default=None,
                        help="archive of the last game (for `bounded export`)")  # fmt: skip
    parser.add_argument(
        "--bracket", action="store_true",
        help="measure the rates again after the games; the ratios use the mean of both",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    started = provenance()
    prompt, constraint = first_prompt(min(args.threads))
    rates = {n: measure_rates(n, args, prompt, constraint) for n in args.threads}
    for n, rate in rates.items():
        print(f"threads {n}: {rate}", flush=True)
    played_games, replies, profile = [], {}, None
    for index, game in enumerate(args.games):
        threads, _, played = game.partition(":")
        decisions = int(played) if played else args.decisions
        model = LocalModel(n_threads=None if threads == "default" else int(threads))
        last = index == len(args.games) - 1
        recorder, split = play_game(
            model, decisions, threads, args.profile if last else 0,
            args.archive if last else None,
        )  # fmt: skip
        profile = split or profile
        played_games.append((threads, model, recorder))
        replies[threads] = recorder.replies
    before = rates
    if args.bracket:
        after = {n: measure_rates(n, args, prompt, constraint) for n in args.threads}
        rates = {n: mean_rates(before[n], after[n]) for n in args.threads}
    games = [game_row(threads, model, recorder, rates) for threads, model, recorder in played_games]
    for row in games:
        print({k: v for k, v in row.items() if k != "per_decision"}, flush=True)
    same = [a == b for a, b in zip(*replies.values(), strict=False)] if len(replies) > 1 else []
    write_result(args.out, {
        "settings": {k: v for k, v in vars(args).items() if k not in ("out", "archive")},
        "rates": list(rates.values()),
        **({"rates_before": list(before.values()), "rates_after": list(after.values())}
           if args.bracket else {}),
        "games": games,
        "replies_identical_across_games": all(same) if same else None,
        "replies_compared": len(same),
        "profile": profile,
    }, started)  # fmt: skip
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
