"""The spire's context audit (`bench/context_audit.py`): per seed, the prompt of `typed`
against the transcript's with and without a window, the share of each prompt a cache could
reuse under each layer order, and the replays of embedded games under those orders."""

from __future__ import annotations

from bounded.docgen.format import Data, count, percent, table

LAYER_ORDERS = ("paper", "legacy", "cache")


def _outcome(result: Data) -> str:
    outcome = result["outcome"]
    return "victory" if outcome["victory"] else f"death, floor {outcome['floor']}"


def _ratios(result: Data) -> list[str]:
    ratios = result["ratios"]
    return [f"{ratios['unbounded_over_typed']:.1f}x", f"{ratios['unbounded_over_typed_cost']:.2f}x"]


def reuse_and_cost(data: Data) -> str:
    """Per seed: the share of `typed`'s and the unwindowed transcript's prompts reused,
    their costs, and the ratios."""
    rows = []
    for r in data["results"]:
        typed, unbounded = r["typed"], r["transcript_unbounded"]
        rows.append([
            f"{r['seed']} ({_outcome(r)}, {r['typed']['decisions']} decisions)",
            f"{percent(typed['reused_share'])}, {typed['cost']:.3f}",
            f"{percent(unbounded['reused_share'])}, {unbounded['cost']:.3f}",
            *_ratios(r),
        ])  # fmt: skip
    header = [
        "seed", "typed: reused, cost", "transcript (no window): reused, cost", "raw ratio",
        "cost ratio",
    ]  # fmt: skip
    return table(header, rows)


def reuse_fresh_tokens_and_cost(data: Data) -> str:
    """Per seed: reuse, fresh tokens and cost of `typed` and the unwindowed transcript."""
    rows = []
    for r in data["results"]:
        typed, unbounded = r["typed"], r["transcript_unbounded"]
        rows.append([
            f"{r['seed']} ({_outcome(r)})", typed["decisions"],
            percent(typed["reused_share"]), count(typed["fresh"]), f"{typed['cost']:.3f}",
            percent(unbounded["reused_share"]), count(unbounded["fresh"]),
            f"{unbounded['cost']:.3f}", *_ratios(r),
        ])  # fmt: skip
    header = [
        "seed", "decisions", "typed: prompt reused", "typed fresh", "typed cost",
        "transcript: reused", "transcript fresh", "transcript cost", "raw ratio", "cost ratio",
    ]  # fmt: skip
    return table(header, rows)


def reuse_by_layer_order(data: Data) -> str:
    """Per seed: the share of `typed`'s prompt tokens reused under each layer order."""

    def reuse(order: Data) -> str:
        return f"{percent(order['reused_share'])} of {count(order['total'])}"

    rows = [[r["seed"], *(reuse(r["orders"][o]) for o in LAYER_ORDERS)] for r in data["results"]]
    return table(["seed", *(f"`{o}`" for o in LAYER_ORDERS)], rows)


def typed_against_transcripts(data: Data) -> str:
    """Per seed: `typed`'s prompt total, peak and slopes against both transcripts'."""
    rows = []
    for r in data["results"]:
        typed, window = r["typed"], r["transcript_window"]
        rows.append([
            r["seed"], _outcome(r), typed["decisions"], count(typed["total"]), count(typed["max"]),
            f"{typed['slope_per_100_share']:+.2f}%", f"{typed['state_slope_per_100_share']:+.2f}%",
            count(window["total"]), count(r["transcript_unbounded"]["total"]),
            f"{r['ratios']['unbounded_over_typed']:.1f}x", window["first_truncated_decision"],
        ])  # fmt: skip
    header = [
        "seed", "outcome", "decisions", "typed total", "typed max",
        "typed slope per 100 decisions", "of which the state (L2 + combat)",
        "transcript, 8k window", "transcript, no window", "no window / typed",
        "window full at decision",
    ]  # fmt: skip
    return table(header, rows)


def prompt_totals(data: Data) -> str:
    """Per seed: the prompt tokens of `typed` and of both transcripts, summed."""
    rows = [
        [
            f"{r['seed']} ({_outcome(r)})", r["typed"]["decisions"], count(r["typed"]["total"]),
            count(r["transcript_window"]["total"]), count(r["transcript_unbounded"]["total"]),
            f"{r['ratios']['unbounded_over_typed']:.1f}x",
        ]
        for r in data["results"]
    ]  # fmt: skip
    header = [
        "seed", "decisions", "typed", "transcript, 8k window", "transcript, no window",
        "no window / typed",
    ]  # fmt: skip
    return table(header, rows)


def layer_slopes(data: Data) -> str:
    """Per seed: the slope of `typed`'s layers other than the state, over the game and
    within each act."""
    rows = []
    for r in data["results"]:
        whole = r["typed"]["non_state_layer_slope_per_100_share"]
        within = r["typed"]["non_state_within_act_slope_per_100_share"]
        rows.append([
            r["seed"], *(f"{whole[layer]:+.2f}%" for layer in ("L1", "L3", "L5")),
            f"{within['L3']:+.1f}%, {within['L5']:+.1f}%",
        ])  # fmt: skip
    header = ["seed", "L1", "L3 (rules in play)", "L5 (skills whose triggers hold)",
              "L3, L5 within each act"]  # fmt: skip
    return table(header, rows)


def layer_order_replays(demo: Data, paper: Data) -> str:
    """Two embedded games replayed under each layer order, against llama.cpp's recorded
    cached tokens."""

    def row(label: str, data: Data) -> list[str]:
        orders, recorded = data["orders"], data["recorded"]
        return [
            label, *(percent(orders[o]["reused_share"]) for o in ("paper", "legacy")),
            f"**{percent(orders['cache']['reused_share'])}**",
            f"{count(recorded['cached'])} of {count(recorded['prompt'])}",
        ]  # fmt: skip

    header = ["game (seed 1, Act 1, embedded model)", "`paper`", "`legacy`", "`cache`",
              "llama.cpp's recorded cached tokens"]  # fmt: skip
    return table(header, [
        row(f"the demo's, {demo['decisions']} decisions", demo),
        row(f"the paper-order run's, first {paper['decisions']} decisions", paper),
    ])  # fmt: skip
