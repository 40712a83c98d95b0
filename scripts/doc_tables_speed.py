"""Renderers of the docs' speed and memory figures: the embedded model against llama.cpp's
own rates, the quick-start game's summary, sweeps at many games in flight, and a game's
peak memory against its length."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from doc_format import count, measured_under, percent, sig3, table

Data = dict[str, Any]


def embedded_rates(data: Data) -> str:
    settings = data["settings"]
    rows = [
        [
            rate["n_threads"], sig3(rate["prompt"]["tokens_per_s"]),
            ", ".join(f"{x:g}" for x in rate["prompt"]["each"]),
            sig3(rate["generation_free"]["tokens_per_s"]),
            sig3(rate["generation_grammar"]["tokens_per_s"]),
            rate["generation_grammar"]["tokens"],
        ]
        for rate in data["rates"]
    ]  # fmt: skip
    header = [
        "threads",
        f"prompt tokens/s ({settings['chunk']} after {settings['prefix']} cached)",
        "each run",
        "generation tokens/s, free",
        "under the reply grammar",
        "tokens under the grammar",
    ]
    return table(header, rows, "rrrrrr") + f"\n{measured_under(data)}\n"


def _game_label(game: Data) -> str:
    if game["threads"] == "default":
        return f"default ({game['n_threads']} at load)"
    return f"`n_threads = {game['threads']}`"


def embedded_games(data: Data) -> str:
    rows = [
        [
            _game_label(game), game["decisions"], f"{game['wall_s']:.1f}",
            f"{game['model_s']:.1f}", f"{game['s_per_decision']:.2f}", count(game["fresh_tokens"]),
            count(game["generated_tokens"]), f"{game['token_cost_s_own_threads']:.1f}",
            f"**{game['ratio_own_threads']:.2f}x**", f"{game['token_cost_s_best_threads']:.1f}",
            f"**{game['ratio_best_threads']:.2f}x**",
        ]
        for game in data["games"]
    ]  # fmt: skip
    header = [
        "game's threads",
        "decisions",
        "wall s",
        "in model calls s",
        "s / decision",
        "fresh prompt tokens",
        "generated tokens",
        "token cost s, its threads' rates",
        "ratio",
        "at the best threads' rates",
        "ratio",
    ]
    same = data["replies_identical_across_games"]
    replies = (
        f"The games' {data['replies_compared']} replies were "
        f"{'identical' if same else 'NOT identical'} across thread counts."
        if same is not None
        else ""
    )
    return table(header, rows, "lrrrrrrrrrr") + f"\n{replies} {measured_under(data)}\n"


def embedded_profile(data: Data) -> str:
    profile = data["profile"]
    wall = profile["wall_s"]
    names = {
        "decode": "llama.cpp decode (prompt and generated tokens)",
        "sample": "sampling (greedy, under the grammar)",
        "sampler_setup": "sampler and grammar set-up",
        "format_tokenize": "chat template and tokenizing",
    }
    calls = profile["group_calls"]
    rows = [
        [names[name], calls.get(name, 0), f"{seconds:.2f}", percent(seconds / wall)]
        for name, seconds in profile["groups_s"].items()
    ]
    rest = profile["bounded_s"]
    rows.append(
        ["the rest (bounded: contract, env, archive)", "", f"{rest:.2f}", percent(rest / wall)]
    )
    header = [f"where {profile['decisions']} decisions' {wall:.1f} s went", "calls", "s", "share"]
    return table(header, rows, "lrrr")


def quickstart_summary(data: Data) -> str:
    run = data["runs"][0]
    spec, outcome = run["spec"], run["outcome"]
    reuse = run["cached_tokens"] / max(1, run["prompt_tokens"])
    per = run["wall_s"] / max(1, run["decisions"])
    return (
        f"The committed quick-start game (`{spec['env']}` Act 1 under `{run['contract']}`, "
        f"seed {run['seed']}, on `{run['model']}`, {run['decisions']} decisions, ended by "
        f"`{outcome.get('ended_by')}` on floor {outcome.get('floor')}): llama.cpp reused "
        f"**{percent(reuse)}** of the prompt tokens ({count(run['cached_tokens'])} cached of "
        f"{count(run['prompt_tokens'])}), and the game took {run['wall_s']:.0f} s, "
        f"**{per:.1f} s per decision** on {data['provenance'].get('cpus')} shared cores "
        f"(played by `bench/embedded_speed.py`, whose file has the load).\n"
    )


def _peak(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def sweep_scale(data: Data) -> str:
    rows = [
        [
            row["games"], f"`--workers {row['workers']}"
            + (f" --concurrency {row['concurrency']}`" if row["concurrency"] > 1 else "`"),
            f"{row['wall_s']:.1f}", f"{row['ideal_s']:.1f}", f"**{row['ratio']:.2f}**",
            sig3(row["cpu_ms_per_decision"]), _peak(row.get("driver_peak_rss_mb")),
            _peak(row.get("worker_peak_rss_mb_max")), f"{row['load_average'][0]:g}",
        ]
        for row in data["rows"]
    ]  # fmt: skip
    header = [
        "games in flight",
        "how",
        "wall s",
        "ideal s",
        "x ideal",
        "CPU ms / decision",
        "driver peak RSS MB",
        "worker peak RSS MB (largest)",
        "load (1 min)",
    ]
    return (
        table(header, rows, "rlrrrrrrr")
        + f"\n{data['decisions_per_game']} decisions a game, {data['latency_s']:g} s a reply. "
        f"{measured_under(data)}\n"
    )


def endpoint_client(data: Data) -> str:
    cpu = data["cpu_us_per_call"]
    plain = cpu["plain"]
    names = {
        "model": "`openai:` model (`OpenAICompatModel.complete`), now",
        "sdk": "the OpenAI SDK's `chat.completions.create` (the path `complete` took before)",
        "plain": "plain `http.client` POST on a kept-alive connection, `json.loads` of the reply",
    }
    rows = [
        [names[key], f"{count(round(cpu[key]))} µs", f"{cpu[key] / plain:.2f}x"]
        for key in ("model", "sdk", "plain")
    ]
    return (
        table(["client", "CPU per call", "vs plain POST"], rows, "lrr")
        + f"\nMedian of {data['rounds']} rounds of {data['calls_per_round']} calls, a "
        f"{count(data['request_bytes'])}-byte request. {measured_under(data)}\n"
    )


def memory_scaling(data: Data) -> str:
    rows = []
    for name, game in data["games"].items():
        for row in game["rows"]:
            rows.append([
                f"`{name}`", count(row["size"]), count(row["decisions"]), row["status"],
                row.get("ended_by") or "-",
                "-" if row.get("turns") is None else count(row["turns"]),
                f"{row['built_rss_mb']:.1f}", f"{row['peak_rss_mb']:.1f}",
                "" if "growth_mb" not in row else f"{row['growth_mb']:+.1f}",
                f"{row['wall_s']:.0f}", f"{row['cpu_s']:.0f}", f"{row['load_average'][0]:g}",
            ])  # fmt: skip
    header = [
        "game",
        "limit",
        "decisions",
        "status",
        "ended by",
        "game turns",
        "RSS built MB",
        "peak RSS MB",
        "growth MB",
        "wall s",
        "CPU s",
        "load (1 min)",
    ]
    bars = "; ".join(
        f"`{name}`: {'within' if game['within_bar'] else 'NOT within'} {game['bar_mb']:g} MB"
        for name, game in data["games"].items()
        if "within_bar" in game
    )
    done = "" if data.get("finished") else " The run was stopped before every game was played."
    return table(header, rows, "lrrllrrrrrrr") + f"\nBars: {bars}.{done} {measured_under(data)}\n"


def textworld_first_game(data: Data) -> str:
    """bench/results/textworld_first_game.json: a fresh process with an empty home to the
    first observation of a game at bounded's presentation, then with the cache present."""
    rows = []
    for r in data["rows"]:
        cold, warm = r["cold"], r.get("warm") or {}
        first = cold.get("first_observation_s")
        rows.append([
            r["task"], r["seed"], "shipped" if r["shipped"] else "generated",
            cold.get("error") or f"**{first:.2f}**",
            "" if "reset_s" not in cold else f"{cold['reset_s']:.2f}",
            "" if "first_observation_s" not in warm else f"{warm['first_observation_s']:.2f}",
        ])  # fmt: skip
    header = [
        "task", "seed", "game", "first observation, empty home (s)",
        "of which reset (unpack or generate + load)", "cache present (s)",
    ]  # fmt: skip
    note = (
        f"{data['shipped_games']} games shipped ({count(data['archive_bytes'])} bytes of xz); "
        f"target under {data['target_s']} s."
    )
    return table(header, rows, "lrlrrr") + f"\n{note}\n\n{measured_under(data)}\n"


def quickstart_demo(data: Data) -> str:
    """bench/results/quickstart_demo.json: the README's first command from a fresh clone,
    and the prompt tokens per decision of its two games."""
    games = data["games"]
    decisions = max(len(game["prompt_tokens"]) for game in games)
    rows = [
        [index + 1, *(_tokens_at(game["prompt_tokens"], index) for game in games)]
        for index in range(decisions)
    ]
    header = ["decision", *(f"`{game['contract']}` prompt tokens" for game in games)]
    wheel = "reused from the wheel cache" if data["wheel_cached"] else "built from source"
    parts = ", ".join(f"`{g['contract']}` {g['wall_s']:.0f} s" for g in games)
    timing = (
        f"From a fresh clone: `scripts/install.sh` {data['install_s']:.0f} s (llama.cpp's wheel "
        f"{wheel}), `.venv/bin/bounded demo` {data['demo_s']:.0f} s ({parts}, the model's "
        f"load and the report besides), **{data['total_s'] / 60:.1f} min** in all "
        f"(the output: `bench/results/{data['log']}`); the processes' CPU time: "
        f"{data['install_cpu_s']:.0f} s for the install, {data['demo_cpu_s']:.0f} s for the "
        f"demo."
    )
    first = data.get("first_install")
    if first:
        timing += (
            f" A first install on the same machine, which built the wheel "
            f"(`scripts/install.sh --test`: the test extras and Debian's packages too; file "
            f"times): the wheel {first['wheel_built_s'] / 60:.1f} min after the venv was made, "
            f"`bounded` installed at {first['installed_s'] / 60:.1f} min."
        )
    return f"{timing}\n\n" + table(header, rows, "r" * len(header)) + (
        f"\n{measured_under(data)}\n"
    )


def _tokens_at(tokens: list[int], index: int) -> str:
    return count(tokens[index]) if index < len(tokens) else "(ended)"


SPEED: dict[str, Callable[..., str]] = {
    "embedded-rates": embedded_rates,
    "embedded-games": embedded_games,
    "embedded-profile": embedded_profile,
    "quickstart-summary": quickstart_summary,
    "quickstart-demo": quickstart_demo,
    "textworld-first-game": textworld_first_game,
    "sweep-scale": sweep_scale,
    "endpoint-client": endpoint_client,
    "memory-scaling": memory_scaling,
}
"""Region name -> its renderer."""

__all__ = ["SPEED"]
