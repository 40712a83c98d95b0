"""Context audit on spire: the typed contract against an accumulating transcript, same seeds.

Usage: python bench/context_audit.py [--seeds 1 2 3] [--preset typed] [--acts 3] [--out-dir DIR]
       [--orders paper legacy cache] [--price MODEL=IN,CACHED,OUT] [--measure-embedded N]
       python bench/context_audit.py --replay ARCHIVE [--orders paper legacy cache]

Every game is played by the spire expert answering through a scripted model, so on one seed
all three runs below see the same game, decision for decision, and only the memory contract
differs. Prompt tokens are counted with the embedded model's tokenizer and chat template
(SmolLM2), exactly as `bounded run --model local` would send them:

- `typed`: the typed contract (`--preset`, default `typed`: L1-L3, L5 with the hand-written
  skills, the combat container);
- `transcript (8k window)`: the transcript contract against the embedded model's 8,192-token
  context window; it drops the oldest turns once the window is full, and records how many.
  Measured: this is what a transcript agent on the embedded model sends;
- `transcript (unbounded)`: the same contract with no window, the counterfactual of a model
  whose window never fills; computed, since no model here could take those prompts.

Reports per seed the cumulative prompt tokens of each, the ratios, the typed prompt's
maximum (and its own token estimate's maximum against the bound it records, which is in
that estimate's units), and its least-squares slope per 100 decisions in percent of its
mean, the part of it due to the decision's state alone (L2 and the combat container), and
the slope of each layer in tokens. The criterion restated (issue: the state segments show
the state as it is, so they are reported, not bounded): every other layer (L1, L3, L4, L5)
has a slope within 1% of its own mean per 100 decisions; the table says whether it holds.
Under prefix caching (issue 19): every prompt's cached tokens are computed as a prefix
cache serves them, the longest prefix it shares with the previous prompt (llama.cpp
and the providers' caches both reuse the previous call's prefix): typed token by token
with the embedded model's tokenizer, the transcripts message by message (a transcript's
previous prompt is a prefix of the next until its window drops a turn). Fresh tokens
are prompt - cached + completion; cost prices them (`bounded.analysis.cost`, the shipped
`list-2025` prices unless `--price`). `--measure-embedded N` also sends the windowed transcript's
first N prompts (those that fit the window) to the embedded model and records the
cached tokens llama.cpp reports (measured) and its prompt rate, beside the computed
ones. `--orders` also plays the typed contract under each named layer order and
reports the prefix each reuses (same seeds; the expert's moves, so the same game).

`--replay ARCHIVE` replays a typed spire run of an archive (the embedded model's own game:
its recorded replies, answered again in order, so every decision is the same) under each
layer order of `--orders`, and reports the prefix each would reuse, computed as above;
under the order the run had, that computation reproduces llama.cpp's recorded cached
tokens (checked on the two runs of the README's "Layer order" paragraph).

Writes `context_audit.json` and a plot of tokens against the decision index
(`context_audit.png`) to `--out-dir` (default bench/results).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from bounded.analysis.audit import segment_tokens
from bounded.analysis.cost import CostModel, cached_by_layer, cost_model
from bounded.analysis.provenance import provenance, write_result
from bounded.analysis.stats import linear_slope
from bounded.archive import Archive
from bounded.core import JSON, Completion, DecisionRecord, Observation, Prompt, approx_tokens
from bounded.envs.spire import SpireExpert
from bounded.models.local import LocalModel, common_prefix
from bounded.models.scripted import minimal_instance
from bounded.protocols import ModelBase
from bounded.runner.build import build_game, runner_for
from bounded.runner.spec import GameSpec

RESULTS = Path(__file__).parent / "results"
LAYERS = ("L1", "combat", "L2", "L3", "L4", "L5")
STATE_LAYERS = ("L2", "combat")
"""The current state: the decision (L2) and the fight's start (the combat container)."""
FLAT_WITHIN = 1.0
"""The restated criterion: every other layer's slope is within this % of its mean per 100
decisions."""


class ExpertModel(ModelBase):
    """The spire expert's moves as a model's replies; prompts counted by a real tokenizer."""

    def __init__(
        self, tokenizer: LocalModel, context_window: int | None, *, token_prefix: bool = False
    ) -> None:
        self.id = "spire-expert"
        self.tokenizer = tokenizer
        self.context_window = context_window
        self.expert = SpireExpert()
        self.observation: Observation | None = None
        self.token_prefix = token_prefix
        """Compute the cached prefix token by token (typed's short prompts), else message
        by message (a transcript's, whose tokenization would cost O(n^2))."""
        self._previous_tokens: list[int] = []
        self._previous_messages: list[dict[str, str]] = []

        self._counts: dict[str, int] = {}
        self._message_counts: dict[tuple[str, str, str], int] = {}

    def count_tokens(self, text: str) -> int:
        if text not in self._counts:
            self._counts[text] = self.tokenizer.count_tokens(text)
        return self._counts[text]

    def prompt_length(self, messages: list[dict[str, str]]) -> int:
        """Tokens of the formatted chat prompt, summed message by message (each message is
        delimited by special tokens, so the sum is exact), so that a transcript of n
        decisions costs O(n) tokenizer work, not O(n^2)."""
        head = messages[0]
        return self._length([head]) + sum(self._added(head, m) for m in messages[1:])

    def _length(self, messages: list[dict[str, str]]) -> int:
        return len(self.tokenizer.prompt_tokens(messages)[0])

    def _added(self, head: dict[str, str], message: dict[str, str]) -> int:
        key = (head["content"], message["role"], message["content"])
        if key not in self._message_counts:
            self._message_counts[key] = self._length([head, message]) - self._length([head])
        return self._message_counts[key]

    def reply(self, constraint: JSON) -> JSON:
        assert self.observation is not None
        obs = self.observation
        chosen = self.expert.act(obs)
        plan = chosen if isinstance(chosen, list) else [chosen]
        moves = [{"id": a.id, "args": a.args} if a.args else {"id": a.id} for a in plan]
        reply: JSON = {}
        for key in constraint.get("required", []):
            if key == "actions":
                reply[key] = moves[: obs.max_actions]
            elif key == "action":
                reply[key] = moves[0]
            else:
                reply[key] = minimal_instance(constraint["properties"][key])
        return reply

    def cached(self, messages: list[dict[str, str]]) -> int:
        """The prefix this prompt shares with the previous one, in tokens."""
        if self.token_prefix:
            tokens = self.tokenizer.prompt_tokens(messages)[0]
            shared = common_prefix(self._previous_tokens, tokens)
            self._previous_tokens = tokens
            return shared
        previous, self._previous_messages = self._previous_messages, list(messages)
        if not previous:
            return 0
        same = 0
        for old, new in zip(previous, messages, strict=False):
            if old != new:
                break
            same += 1
        if same == len(previous):
            return self.prompt_length(previous)
        # the shared messages, counted with the template's assistant header (a few tokens)
        return self.prompt_length(messages[:same]) if same else 0

    def complete(
        self, messages: list[dict[str, str]], *, constraint: JSON | None = None, **_: Any
    ) -> Completion:
        assert constraint is not None
        text = json.dumps(self.reply(constraint))
        return Completion(
            text=text,
            prompt_tokens=self.prompt_length(messages),
            cached_tokens=self.cached(messages),
            completion_tokens=self.count_tokens(text),
            model=self.id,
            finish_reason="stop",
        )


def play(
    seed: int, contract: str, settings: JSON | None, model: ExpertModel, acts: int
) -> tuple[Sequence[DecisionRecord], JSON, list[int]]:
    """The game's decisions, its outcome, and the act of each decision."""
    spec = GameSpec(
        env="spire", env_options={"acts": acts}, contract=contract,
        contract_config=settings or {}, seed=seed,
    )  # fmt: skip
    game = build_game(spec, model=model)

    seen: list[int] = []

    def observe(_: DecisionRecord, obs: Observation) -> None:
        model.observation = obs
        seen.append(int(obs.state.get("act", 0)))

    runner = runner_for(game, observer=observe, keep_decisions=None)  # read whole
    model.observation = game.env.reset(seed=seed)[0]
    first_act = int(model.observation.state.get("act", 0))
    runner.execute()
    return runner.trajectory, runner.run.outcome, [first_act, *seen][: len(runner.trajectory)]


class ReplayModel(ExpertModel):
    """A recorded run's replies, in order, as a model's; prompts counted as above."""

    def __init__(self, tokenizer: LocalModel, replies: list[str]) -> None:
        super().__init__(tokenizer, None, token_prefix=True)
        self.replies = replies
        self.calls = 0

    def complete(
        self, messages: list[dict[str, str]], *, constraint: JSON | None = None, **_: Any
    ) -> Completion:
        text = self.replies[self.calls] if self.calls < len(self.replies) else "{}"
        self.calls += 1
        return Completion(
            text=text,
            prompt_tokens=self.prompt_length(messages),
            cached_tokens=self.cached(messages),
            completion_tokens=self.count_tokens(text),
            model=self.id,
            finish_reason="stop",
        )


def replay(path: Path, orders: list[str], tokenizer: LocalModel, costs: CostModel) -> JSON:
    """The archive's first typed run replayed under each layer order (see the docstring)."""
    with Archive(path, read_only=True) as archive:
        run = next((r for r in archive.runs() if r.contract == "typed"), None)
        if run is None:
            raise SystemExit(f"{path}: no typed run to replay")
        decisions = archive.decisions(run.run_id, with_segments=False)
    replies = [d.completion.text for d in decisions if d.completion]
    played = [[a.id for a in d.actions] for d in decisions]
    result: JSON = {
        "archive": str(path), "run_id": run.run_id, "decisions": len(decisions),
        "recorded": {"prompt": run.prompt_tokens, "cached": run.cached_tokens},
        "orders": {},
    }  # fmt: skip
    for order in orders:
        spec = GameSpec(
            env="spire", env_options=run.spec.get("env_options", {}), contract="typed",
            contract_config={**run.contract_config, "order": order}, seed=run.seed,
            max_decisions=len(decisions),
        )  # fmt: skip
        game = build_game(spec, model=ReplayModel(tokenizer, replies))
        runner = runner_for(game, keep_decisions=None)  # read whole
        runner.execute()
        trajectory = runner.trajectory
        same = sum([a.id for a in d.actions] == p for d, p in zip(trajectory, played, strict=False))
        total = sum(d.prompt_tokens for d in trajectory)
        summary = caching_summary(trajectory, costs, tokenizer.id)
        result["orders"][order] = {"total": total, "same_actions": same, **summary}
    return result


def print_replay(result: JSON) -> None:
    recorded = result["recorded"]
    share = recorded["cached"] / max(1, recorded["prompt"])
    print(
        f"{result['archive']} ({result['decisions']} decisions): recorded {recorded['cached']:,}"
        f" cached of {recorded['prompt']:,} prompt tokens ({100 * share:.1f}%)"
    )
    for order, r in result["orders"].items():
        print(
            f"  {order}: {r['cached']:,} of {r['total']:,} ({100 * r['reused_share']:.1f}%), "
            f"{r['same_actions']} of {result['decisions']} decisions the same; "
            f"by layer {r['cached_by_layer']}"
        )


def slope_share(values: list[int]) -> float:
    """Least-squares slope per 100 decisions, in percent of the mean (0 for an empty series)."""
    mean = sum(values) / len(values) if len(values) > 1 else 0
    return 100 * per_100(values) / mean if mean else 0.0


def within_act_share(values: list[int], acts: list[int]) -> float:
    """The slope share within each act, averaged with the acts' lengths as weights: growth
    that comes from the decision count rather than from what a later act puts in play."""
    shares, weights = [], []
    for act in sorted(set(acts)):
        part = [v for v, a in zip(values, acts, strict=True) if a == act]
        if len(part) > 1:
            shares.append(slope_share(part) * len(part))
            weights.append(len(part))
    return sum(shares) / sum(weights) if weights else 0.0


def per_100(values: list[int]) -> float:
    """Least-squares slope per 100 decisions, in tokens."""
    return 100 * linear_slope([float(i) for i in range(len(values))], [float(v) for v in values])[0]


def typed_summary(trajectory: Sequence[DecisionRecord], acts: list[int]) -> JSON:
    """The contract's bound is in its own token estimate (`approx_tokens`), so the bound
    check compares that estimate; everything else is in model tokens."""
    prompts = [d.prompt_tokens for d in trajectory]
    layers = {
        layer: [d.tokens_by_layer.get(layer, 0) for d in trajectory]
        for layer in LAYERS
        if any(layer in d.tokens_by_layer for d in trajectory)
    }
    state = [sum(d.tokens_by_layer.get(layer, 0) for layer in STATE_LAYERS) for d in trajectory]
    others = {layer: v for layer, v in layers.items() if layer not in STATE_LAYERS}
    other_total = [sum(column) for column in zip(*others.values(), strict=True)]
    shares = {layer: round(slope_share(v), 2) for layer, v in others.items()}
    estimates = [sum(approx_tokens(s.text) for s in d.segments) for d in trajectory]
    bounds = [int(d.info["prompt_bound"]) for d in trajectory]
    return {
        "decisions": len(trajectory),
        "total": sum(prompts),
        "mean": round(sum(prompts) / len(prompts), 1),
        "max": max(prompts),
        "max_estimate": max(estimates),
        "max_bound": max(bounds),
        "over_bound": sum(e > b for e, b in zip(estimates, bounds, strict=True)),
        "slope_per_100_share": round(slope_share(prompts), 2),
        "state_slope_per_100_share": round(100 * per_100(state) / (sum(prompts) / len(prompts)), 2),
        "layer_slope_per_100_tokens": {layer: round(per_100(v), 1) for layer, v in layers.items()},
        "non_state_slope_per_100_share": round(slope_share(other_total), 2),
        "non_state_layer_slope_per_100_share": shares,
        "non_state_flat": all(abs(share) <= FLAT_WITHIN for share in shares.values()),
        "non_state_within_act_slope_per_100_share": {
            layer: round(within_act_share(v, acts), 2) for layer, v in others.items()
        },
        "prompts": prompts,
        "layers": layers,
    }


def caching_summary(trajectory: Sequence[DecisionRecord], costs: CostModel, model: str) -> JSON:
    """Cached (computed) and fresh tokens, their cost at `model`'s prices, per layer."""
    prompt = sum(d.prompt_tokens for d in trajectory)
    cached = sum(d.completion.cached_tokens for d in trajectory if d.completion)
    output = sum(d.completion.completion_tokens for d in trajectory if d.completion)
    layers: dict[str, int] = {}
    for d in trajectory:
        if d.completion and d.segments:
            for layer, n in cached_by_layer(segment_tokens(d), d.completion.cached_tokens).items():
                layers[layer] = layers.get(layer, 0) + n
    cost = costs.cost(model, prompt, cached, output)
    return {
        "cached": cached,
        "reused_share": round(cached / prompt, 4) if prompt else 0.0,
        "fresh": prompt - cached + output,
        "completion": output,
        "cost": None if cost is None else round(cost, 6),
        "cached_by_layer": layers,
    }


def transcript_summary(trajectory: Sequence[DecisionRecord], window: int | None) -> JSON:
    prompts = [d.prompt_tokens for d in trajectory]
    dropped = [int(d.info.get("history_dropped", 0)) for d in trajectory]
    first_cut = next((i for i, n in enumerate(dropped) if n), None)
    return {
        "window": window,
        "decisions": len(trajectory),
        "total": sum(prompts),
        "max": max(prompts),
        "first_truncated_decision": first_cut,
        "prompts": prompts,
    }


def order_summary(
    seed: int, preset: str, order: str, acts: int, tokenizer: LocalModel, costs: CostModel
) -> JSON:
    """The typed contract under one layer order: its prompt tokens and the prefix reused."""
    model = ExpertModel(tokenizer, None, token_prefix=True)
    trajectory, _, _ = play(seed, preset, {"order": order}, model, acts)
    total = sum(d.prompt_tokens for d in trajectory)
    return {"total": total, **caching_summary(trajectory, costs, tokenizer.id)}


def audit_seed(
    seed: int, preset: str, acts: int, tokenizer: LocalModel, costs: CostModel, orders: list[str]
) -> JSON:
    started = time.perf_counter()
    window = tokenizer.context_window
    typed_model = ExpertModel(tokenizer, None, token_prefix=True)
    typed, outcome, acts_of = play(seed, preset, None, typed_model, acts)
    as_run, _, _ = play(seed, "transcript", None, ExpertModel(tokenizer, window), acts)
    unbounded, _, _ = play(seed, "transcript", None, ExpertModel(tokenizer, None), acts)
    assert len(typed) == len(as_run) == len(unbounded), "the three runs must be one game"
    model = tokenizer.id  # priced as the embedded model (list-2025 unless --price)
    result: dict[str, Any] = {
        "seed": seed,
        "outcome": {k: outcome.get(k) for k in ("victory", "floor", "act", "score")},
        "typed": {**typed_summary(typed, acts_of), **caching_summary(typed, costs, model)},
        "transcript_window": {
            **transcript_summary(as_run, window),
            **caching_summary(as_run, costs, model),
        },
        "transcript_unbounded": {
            **transcript_summary(unbounded, None),
            **caching_summary(unbounded, costs, model),
        },
        "orders": {
            order: order_summary(seed, preset, order, acts, tokenizer, costs) for order in orders
        },
        "seconds": round(time.perf_counter() - started, 1),
    }
    cut = result["transcript_window"]["first_truncated_decision"]
    fits = cut if cut is not None else len(typed)
    typed_prompts = result["typed"]["prompts"]
    t, w, u = result["typed"], result["transcript_window"], result["transcript_unbounded"]
    result["ratios"] = {
        "unbounded_over_typed": round(u["total"] / t["total"], 2),
        "window_over_typed": round(w["total"] / t["total"], 2),
        "unbounded_over_typed_cost": round(u["cost"] / t["cost"], 2),
        "window_over_typed_cost": round(w["cost"] / t["cost"], 2),
        "unbounded_over_typed_fresh": round(u["fresh"] / t["fresh"], 2),
        "decisions_before_window_full": fits,
        "measured_over_typed_while_it_fits": round(
            sum(w["prompts"][:fits]) / max(1, sum(typed_prompts[:fits])),
            2,
        ),
    }
    return result


def plot(results: list[JSON], path: Path) -> None:
    first = results[0]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8))
    layers = first["typed"]["layers"]
    xs = range(first["typed"]["decisions"])
    left.stackplot(xs, *layers.values(), labels=list(layers), alpha=0.85)
    left.set_title(f"typed, seed {first['seed']}: prompt tokens per decision, by layer")
    left.set_xlabel("decision index")
    left.set_ylabel("prompt tokens")
    left.legend(loc="upper left", fontsize=8, ncols=3)
    seeds = ", ".join(str(r["seed"]) for r in results)
    for n, result in enumerate(results):
        for key, label, color in (
            ("typed", "typed", "C0"),
            ("transcript_window", "transcript, 8k window (measured)", "C1"),
            ("transcript_unbounded", "transcript, no window (counterfactual)", "C2"),
        ):
            prompts = result[key]["prompts"]
            cumulative = [sum(prompts[: i + 1]) for i in range(len(prompts))]
            name = f"{label}, seeds {seeds}" if n == 0 else None
            right.plot(cumulative, color=color, alpha=0.8, label=name)
    right.set_yscale("log")
    right.set_title("cumulative prompt tokens")
    right.set_xlabel("decision index")
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


COLUMNS = (
    "seed", "outcome", "decisions", "typed total", "typed max", "estimate max / bound",
    "typed slope per 100 (% of mean)", "of which the state (L2 + combat)",
    "other layers: slope (% of their mean)", "each within 1%", "transcript 8k total",
    "transcript unbounded total", "unbounded/typed", "window full at",
)  # fmt: skip


def table_row(r: JSON) -> list[str]:
    t, w, u = r["typed"], r["transcript_window"], r["transcript_unbounded"]
    outcome = "victory" if r["outcome"]["victory"] else f"death, floor {r['outcome']['floor']}"
    return [
        str(r["seed"]), outcome, str(t["decisions"]), f"{t['total']:,}",
        f"{t['max']:,}", f"{t['max_estimate']:,} / {t['max_bound']:,}",
        f"{t['slope_per_100_share']:+.2f}", f"{t['state_slope_per_100_share']:+.2f}",
        f"{t['non_state_slope_per_100_share']:+.2f}", "yes" if t["non_state_flat"] else "no",
        f"{w['total']:,}", f"{u['total']:,}", f"{r['ratios']['unbounded_over_typed']:.1f}x",
        str(r["ratios"]["decisions_before_window_full"]),
    ]  # fmt: skip


CACHE_COLUMNS = (
    "seed", "typed reused", "typed fresh", "typed cost", "unbounded reused", "unbounded fresh",
    "unbounded cost", "8k reused", "8k cost", "raw ratio", "fresh ratio", "cost ratio",
)  # fmt: skip


def cache_row(r: JSON) -> list[str]:
    t, w, u, q = r["typed"], r["transcript_window"], r["transcript_unbounded"], r["ratios"]
    return [
        str(r["seed"]), f"{100 * t['reused_share']:.1f}%", f"{t['fresh']:,}", f"{t['cost']:.3f}",
        f"{100 * u['reused_share']:.1f}%", f"{u['fresh']:,}", f"{u['cost']:.3f}",
        f"{100 * w['reused_share']:.1f}%", f"{w['cost']:.3f}",
        f"{q['unbounded_over_typed']:.1f}x", f"{q['unbounded_over_typed_fresh']:.2f}x",
        f"{q['unbounded_over_typed_cost']:.2f}x",
    ]  # fmt: skip


def print_markdown(columns: tuple[str, ...], rows: list[list[str]]) -> None:
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(row) + " |")


def print_orders(results: list[JSON]) -> None:
    orders = list(results[0]["orders"])
    if not orders:
        return
    columns = ("seed", *(f"{o}: reused (prompt tokens)" for o in orders))
    rows = [
        [str(r["seed"])]
        + [
            f"{100 * r['orders'][o]['reused_share']:.1f}% ({r['orders'][o]['total']:,})"
            for o in orders
        ]
        for r in results
    ]
    print_markdown(columns, rows)


def measure_embedded(seed: int, acts: int, model: LocalModel, limit: int) -> JSON:
    """The windowed transcript's first `limit` prompts sent to the embedded model (one
    reply token each; the next prompt carries the expert's reply, as in the audit), with
    the cached tokens llama.cpp reports and the seconds each took."""
    replay = ExpertModel(model, model.context_window)
    trajectory, _, _ = play(seed, "transcript", None, replay, acts)
    calls = []
    for record in trajectory[:limit]:
        prompt = Prompt(segments=record.segments).messages()
        if len(model.prompt_tokens(prompt)[0]) + 1 > (model.context_window or 0):
            break
        done = model.complete(prompt, max_tokens=1)
        computed = record.completion.cached_tokens if record.completion else 0
        calls.append(
            {
                "prompt": done.prompt_tokens,
                "cached_measured": done.cached_tokens,
                "cached_computed": computed,
                "seconds": round(done.latency_s, 3),
            }
        )
    return {"seed": seed, "calls": calls}


def print_table(results: list[JSON]) -> None:
    print_markdown(COLUMNS, [table_row(r) for r in results])
    print()
    print_markdown(CACHE_COLUMNS, [cache_row(r) for r in results])
    print()
    print_orders(results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--preset", default="typed", help="typed contract or preset name")
    parser.add_argument("--acts", type=int, default=3)
    parser.add_argument("--out-dir", type=Path, default=RESULTS)
    parser.add_argument("--orders", nargs="*", default=[], help="typed layer orders to compare")
    parser.add_argument("--price", action="append", default=[], help="MODEL=IN,CACHED,OUT")
    parser.add_argument("--measure-embedded", type=int, default=0, metavar="N")
    parser.add_argument("--replay", type=Path, help="archive with a typed spire run to replay")
    args = parser.parse_args()
    started_at = provenance()
    tokenizer = LocalModel()
    costs = cost_model(args.price, ["list-2025"])
    if args.replay is not None:
        replayed = replay(
            args.replay, args.orders or ["paper", "legacy", "cache"], tokenizer, costs
        )
        print_replay(replayed)
        args.out_dir.mkdir(parents=True, exist_ok=True)
        target = args.out_dir / f"context_audit_replay_{args.replay.stem}.json"
        write_result(target, replayed, started_at, indent=1)
        return
    results = [
        audit_seed(seed, args.preset, args.acts, tokenizer, costs, args.orders)
        for seed in args.seeds
    ]
    print_table(results)
    measured = [
        measure_embedded(seed, args.acts, tokenizer, args.measure_embedded)
        for seed in (args.seeds[:1] if args.measure_embedded else [])
    ]
    for m in measured:
        calls = m["calls"]
        fresh = sum(c["prompt"] - c["cached_measured"] for c in calls)
        seconds = sum(c["seconds"] for c in calls)
        print(
            f"seed {m['seed']}, transcript (8k window), first {len(calls)} prompts on the "
            f"embedded model: cached {sum(c['cached_measured'] for c in calls):,} measured, "
            f"{sum(c['cached_computed'] for c in calls):,} computed, of "
            f"{sum(c['prompt'] for c in calls):,}; {fresh:,} fresh prompt tokens in "
            f"{seconds:.1f} s ({fresh / max(seconds, 1e-9):,.0f} tokens/s)"
        )
    args.out_dir.mkdir(parents=True, exist_ok=True)
    plot(results, args.out_dir / "context_audit.png")
    slim = [
        {
            **r,
            **{
                k: {kk: vv for kk, vv in r[k].items() if kk not in ("prompts", "layers")}
                for k in ("typed", "transcript_window", "transcript_unbounded")
            },
        }
        for r in results
    ]
    payload = {
        "settings": {
            "seeds": args.seeds,
            "preset": args.preset,
            "acts": args.acts,
            "orders": args.orders,
            "prices": costs.model_dump(mode="json"),
        },
        "measured_embedded": measured,
        "results": slim,
        "series": {
            r["seed"]: {
                k: r[k]["prompts"] for k in ("typed", "transcript_window", "transcript_unbounded")
            }
            for r in results
        },
    }
    write_result(args.out_dir / "context_audit.json", payload, started_at, indent=1)


if __name__ == "__main__":
    main()
