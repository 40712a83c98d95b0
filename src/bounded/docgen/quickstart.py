"""The quick start: the README's first command timed from a fresh clone with the prompt
tokens of its two games (`bench/quickstart_demo.py`), and the summary of the committed
game of `bounded demo --full`'s kind (`bench/embedded_speed.py`'s `quickstart_summary.json`)."""

from __future__ import annotations

from bounded.docgen.format import Data, count, measured_under, percent, table


def quickstart_game_sentence(data: Data) -> str:
    """One sentence on the committed game of `bounded demo --full`'s kind (the quick start
    before it became the comparison): its prompt reuse and time per decision."""
    run = data["runs"][0]
    spec, outcome = run["spec"], run["outcome"]
    reuse = run["cached_tokens"] / max(1, run["prompt_tokens"])
    per = run["wall_s"] / max(1, run["decisions"])
    return (
        f"The committed game of `bounded demo --full`'s kind (`{spec['env']}` Act 1 under "
        f"`{run['contract']}`, "
        f"seed {run['seed']}, on `{run['model']}`, {run['decisions']} decisions, ended by "
        f"`{outcome.get('ended_by')}` on floor {outcome.get('floor')}): llama.cpp reused "
        f"**{percent(reuse)}** of the prompt tokens ({count(run['cached_tokens'])} cached of "
        f"{count(run['prompt_tokens'])}), and the game took {run['wall_s']:.0f} s, "
        f"**{per:.1f} s per decision** on {data['provenance'].get('cpus')} shared cores "
        f"(played by `bench/embedded_speed.py`, whose file has the load).\n"
    )


def _tokens_at(tokens: list[int], index: int) -> str:
    return count(tokens[index]) if index < len(tokens) else "(ended)"


def _demo_timing(data: Data) -> str:
    games = data["games"]
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
    return timing


def quickstart_demo_timing_and_tokens(data: Data) -> str:
    """The README's first command from a fresh clone, timed, and the prompt tokens per
    decision of its two games."""
    games = data["games"]
    decisions = max(len(game["prompt_tokens"]) for game in games)
    rows = [
        [index + 1, *(_tokens_at(game["prompt_tokens"], index) for game in games)]
        for index in range(decisions)
    ]
    header = ["decision", *(f"`{game['contract']}` prompt tokens" for game in games)]
    return (
        f"{_demo_timing(data)}\n\n"
        + table(header, rows, "r" * len(header))
        + f"\n{measured_under(data)}\n"
    )
