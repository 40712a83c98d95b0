"""Speed and memory use: the harness's CPU per decision as a game grows
(`bench/harness_scaling.py`), the embedded model against llama.cpp's own rates
(`bench/embedded_speed.py`), the endpoint client's CPU per call (`bench/endpoint_client.py`)
and a game's peak memory against its length (`bench/memory_scaling.py`)."""

from __future__ import annotations

import statistics

from bounded.docgen.format import Data, count, measured_under, percent, sig3, table

HARNESS_CONTRACTS = ("state", "typed", "summary", "episodic", "transcript")


def newest_games(*files: Data) -> dict[str, Data]:
    """Every game of the harness files, each from the file that measured it last (`when`)."""
    games: dict[str, Data] = {}
    for data in sorted(files, key=lambda data: data["when"]):
        games.update(data["games"])
    return games


def _cpu_at(game: Data, points: list[int]) -> str:
    return " / ".join(sig3(game["at"][str(p)]["cpu_ms"]) for p in points)


def _cpu_growth(game: Data, points: list[int]) -> str:
    at = game["at"]
    return f"{at[str(points[-1])]['cpu_ms'] / at[str(points[0])]['cpu_ms']:.2f}"


def _points(game: Data) -> list[int]:
    return sorted(int(p) for p in game["at"])


def harness_cpu_before_and_after_fixes(before: Data, *after: Data) -> str:
    """Warehouse CPU ms per decision before the harness fixes (2,000 decisions) and after
    (10,000; each game from the newest of the `after` files; the transcript at 2,000 both
    times), with the growth from the first point to the last."""
    now = newest_games(*after)
    rows = []
    for contract in HARNESS_CONTRACTS:
        old, new = before["games"][f"warehouse/{contract}"], now[f"warehouse/{contract}"]
        name = f"`{contract}`" + (" (2,000, both)" if contract == "transcript" else "")
        rows.append([
            name, _cpu_at(old, _points(old)), _cpu_growth(old, _points(old)),
            _cpu_at(new, _points(new)), _cpu_growth(new, _points(new)),
        ])  # fmt: skip
    header = [
        "contract",
        "before (fec874f), 100 / 1,000 / 2,000",
        "ratio",
        "after, 100 / 1,000 / 10,000",
        "ratio",
    ]
    labels = ("before", "after", "rerun", "transcript")
    notes = "".join(
        f"- `{label}` ({data['when']}): {measured_under(data)}\n"
        for label, data in zip(labels, (before, *after), strict=True)
    )
    return table(header, rows) + "\n" + notes


def harness_cpu_of_episodic(data: Data) -> str:
    """`episodic`'s CPU ms per decision at 100, 200, 1,000 and 10,000 decisions."""
    at = {int(p): v["cpu_ms"] for p, v in data["games"]["warehouse/episodic"]["at"].items()}
    header = ["contract", "100", "200", "1,000", "10,000", "10,000 / 100", "10,000 / 200"]
    row = [
        "`episodic`", *(sig3(at[p]) for p in (100, 200, 1000, 10000)),
        f"{at[10000] / at[100]:.2f}", f"{at[10000] / at[200]:.2f}",
    ]  # fmt: skip
    return table(header, [row]) + f"\n{data['when']}. {measured_under(data)}\n"


def harness_cpu_before_and_after_episodic_fix(*files: Data) -> str:
    """Warehouse CPU ms per decision at 100 / 1,000 / 10,000 before the second round of fixes
    (each game from the newest of all files but the last) and after (the last file)."""
    *earlier, after = files
    before = newest_games(*earlier)
    points = [100, 1000, 10000]
    rows = []
    for contract in ("episodic", "state", "typed", "summary"):
        old, new = before[f"warehouse/{contract}"], after["games"][f"warehouse/{contract}"]
        rows.append([
            f"`{contract}`", _cpu_at(old, points), _cpu_growth(old, points),
            _cpu_at(new, points), _cpu_growth(new, points),
        ])  # fmt: skip
    header = [
        "contract",
        "before, 100 / 1,000 / 10,000",
        "ratio",
        "after, 100 / 1,000 / 10,000",
        "ratio",
    ]
    return table(header, rows) + f"\nAfter: {after['when']}. {measured_under(after)}\n"


def embedded_token_rates(data: Data) -> str:
    """llama.cpp's prompt and generation tokens per second at each thread count."""
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


def _threads_label(game: Data) -> str:
    if game["threads"] == "default":
        return f"default ({game['n_threads']} at load)"
    return f"`n_threads = {game['threads']}`"


def embedded_games_against_token_cost(data: Data) -> str:
    """Each embedded game's time against what its tokens cost at llama.cpp's own rates."""
    rows = [
        [
            _threads_label(game), game["decisions"], f"{game['wall_s']:.1f}",
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


PROFILE_GROUPS = {
    "decode": "llama.cpp decode (prompt and generated tokens)",
    "sample": "sampling (greedy, under the grammar)",
    "sampler_setup": "sampler and grammar set-up",
    "format_tokenize": "chat template and tokenizing",
}


def embedded_game_profile(data: Data) -> str:
    """Where a profiled embedded game's wall time went: llama.cpp's parts and the rest."""
    profile = data["profile"]
    wall = profile["wall_s"]
    calls = profile["group_calls"]
    rows = [
        [PROFILE_GROUPS[name], calls.get(name, 0), f"{seconds:.2f}", percent(seconds / wall)]
        for name, seconds in profile["groups_s"].items()
    ]
    rest = profile["bounded_s"]
    rows.append(
        ["the rest (bounded: contract, env, archive)", "", f"{rest:.2f}", percent(rest / wall)]
    )
    header = [f"where {profile['decisions']} decisions' {wall:.1f} s went", "calls", "s", "share"]
    return table(header, rows, "lrrr")


ENDPOINT_CLIENTS = {
    "model": "`openai:` model (`OpenAICompatModel.complete`), now",
    "sdk": "the OpenAI SDK's `chat.completions.create` (the path `complete` took before)",
    "plain": "plain `http.client` POST on a kept-alive connection, `json.loads` of the reply",
}


def endpoint_client_cpu(data: Data) -> str:
    """CPU per call of the `openai:` model, the OpenAI SDK and a plain POST."""
    cpu = data["cpu_us_per_call"]
    rows = [
        [label, f"{count(round(cpu[key]))} µs", f"{cpu[key] / cpu['plain']:.2f}x"]
        for key, label in ENDPOINT_CLIENTS.items()
    ]
    return (
        table(["client", "CPU per call", "vs plain POST"], rows, "lrr")
        + f"\nMedian of {data['rounds']} rounds of {data['calls_per_round']} calls, a "
        f"{count(data['request_bytes'])}-byte request. {measured_under(data)}\n"
    )


def game_memory_by_length(data: Data) -> str:
    """Each game's resident memory as built and at its peak, per length limit, and whether
    it stayed within its bar."""
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


def _rounds(part: Data, key: str) -> str:
    """A measurement's median of rounds with their range: 0.412 (0.401-0.450)."""
    values = part[f"{key}_rounds"]
    return f"{sig3(part[key])} ({sig3(min(values))}-{sig3(max(values))})"


def _after_over_before(before: Data, after: Data, key: str) -> str:
    """After over before, round by round (the two plays of a round ran next to each other,
    so a change in the machine's load hits both): the median ratio and the range, in bold
    with "every round" when every round's ratio lies on the same side of 1 (a difference
    beyond the rounds' noise)."""
    ratios = sorted(
        new / old for old, new in zip(before[f"{key}_rounds"], after[f"{key}_rounds"], strict=True)
    )
    cell = f"{statistics.median(ratios):.2f} ({ratios[0]:.2f}-{ratios[-1]:.2f})"
    return f"**{cell}**, every round" if ratios[0] > 1 or ratios[-1] < 1 else cell


def _game_name(name: str) -> str:
    _, contract, decisions = name.split("/")
    return f"`{contract}`, {count(int(decisions))}"


def harness_before_and_after_side_by_side(data: Data) -> str:
    """Per game (contract, decisions): the harness's CPU ms and the write's ms per decision
    (median decision of the game, its first left out; median of the rounds, their range)
    before and after, and the peak RSS of each game's process."""
    rows = []
    for name, game in data["games"].items():
        before, after = game["before"]["game"], game["after"]["game"]
        rows.append([
            _game_name(name),
            _rounds(before, "cpu_ms"), _rounds(after, "cpu_ms"),
            _after_over_before(before, after, "cpu_ms"),
            _rounds(before, "write_ms"), _rounds(after, "write_ms"),
            _after_over_before(before, after, "write_ms"),
            f"{before['peak_rss_kb'] / 1024:.0f} / {after['peak_rss_kb'] / 1024:.0f}",
        ])  # fmt: skip
    header = [
        "game (contract, decisions)",
        "harness CPU ms, before",
        "after",
        "after / before, per round",
        "write ms, before",
        "after",
        "after / before, per round",
        "peak RSS MB, before / after",
    ]
    trees = data["trees"]
    return (
        table(header, rows, "lrrrrrrr")
        + f"\nBefore: {trees['before']['commit'][:7]}; after: {trees['after']['commit'][:7]}; "
        f"{data['rounds']} rounds. {measured_under(data)}\n"
    )


def harness_flatness_before_and_after(data: Data) -> str:
    """The long games: the harness's CPU ms per decision at each point (the window ending
    there) and the peak RSS at each point, before and after, with the peak's growth per
    decision between the last two points (where the contracts' bounded windows, such as
    the state journal, are full)."""
    rows = []
    for name, game in data["games"].items():
        points = sorted(int(p) for p in game["after"]["at"])
        if len(points) < 2:
            continue
        cells = []
        for tree in ("before", "after"):
            at = [game[tree]["at"][str(p)] for p in points]
            growth = (at[-1]["peak_rss_kb"] - at[-2]["peak_rss_kb"]) / (points[-1] - points[-2])
            cells += [
                " / ".join(sig3(a["cpu_ms"]) for a in at),
                f"{at[-1]['cpu_ms'] / at[0]['cpu_ms']:.2f}",
                " / ".join(f"{a['peak_rss_kb'] / 1024:.0f}" for a in at),
                f"{growth:.2f}",
            ]
        labels = " / ".join(count(p) for p in points)
        rows.append([_game_name(name), labels, *cells])
    header = [
        "game",
        "at decisions",
        "CPU ms before",
        "last / first",
        "peak RSS MB before",
        "KB per decision",
        "CPU ms after",
        "last / first",
        "peak RSS MB after",
        "KB per decision",
    ]
    return table(header, rows, "llrrrrrrrr")
