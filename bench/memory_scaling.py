"""Benchmark: a game's peak memory against its length, per contract.

Each game is played in a fresh Python process of its own (so one game's peak is not
another's), with the scripted model (`scripted:minimal`: every reply the minimal instance
of its reply schema), into a fresh SQLite archive as a sweep would play it (each decision
committed with its run row and checkpoint). The process reports its peak resident set
(`VmHWM`, the high-water mark of its own address space: `ru_maxrss` would report the
driver's resident set instead, which a child inherits through fork and keeps across exec),
its resident set once the game is built and before its first decision, and the decisions
it played. A bounded contract's peak must not grow with the game: the bar is
the peak at 100,000 decisions within 25 MB of the peak at 1,000 (`growth_mb`, against the
smallest size), and for NetHack within 50 MB. `transcript` resends every earlier turn by
design: its memory and its time per decision grow with the game; `rag` and `paged` keep
their prompts bounded but search a store of the whole game. Those three are played only up
to `--growing-max` decisions.

    python bench/memory_scaling.py [--sizes 1000 10000 100000]
        [--contracts state,typed,summary,episodic,rag,paged,reflexion,transcript]
        [--growing-max 10000] [--nethack-sizes 1000 10000] [--nethack-contract state]
        [--nethack-player waiting] [--jobs 1]

Warehouse games have `horizon` = size events. A NetHack game (`bounded/NetHack-v0`,
`max_steps` = size) runs until it ends or reaches its size: by default at BALROG's
presentation under the waiting player (`waiting_player`), which reaches BALROG's
100,000-step limit; `--nethack-player first-legal` plays bounded's presentation with the
first legal action each turn, which NLE aborts after 10,000 keys without game time.
Writes bench/results/memory_scaling.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results" / "memory_scaling.json"
CONTRACTS = ("state", "typed", "summary", "episodic", "rag", "paged", "reflexion", "transcript")
GROWS = ("transcript", "rag", "paged")
"""Contracts whose memory grows with the game by design: `transcript` resends every turn;
`rag`'s index holds a chunk of every decision and `paged`'s archive every turn its queue
evicted (their prompts are bounded, their searchable stores are the whole game)."""
WAREHOUSE_BAR_MB = 25.0
NETHACK_BAR_MB = 50.0
WAIT_EVERY = 60
"""The waiting player looks (no game time) until this many decisions have passed without
game time, then searches until the turn counter moves: BALROG's NetHack aborts a game
after 150 keys without game time, and a decision here is two keys."""
NETHACK_PLAYERS = ("waiting", "first-legal")
TURN = re.compile(r"\bT:(\d+)")
PRAYER_TURNS = 1_000
"""Turns the waiting player lets pass between prayers (NetHack's prayer timeout after a
prayer is random, mostly well under this)."""


def hungry(text: str) -> bool:
    return any(word in text for word in ("Hungry", "Weak", "Fainting"))


def resident_mb(field: str = "VmRSS") -> float:
    """This process's resident set now (VmRSS) or its peak (VmHWM), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def preferring(schema: Any, word: str) -> Any:
    """The schema with `word` first in every enum that offers it."""
    if isinstance(schema, list):
        return [preferring(item, word) for item in schema]
    if not isinstance(schema, dict):
        return schema
    shaped = {key: preferring(value, word) for key, value in schema.items()}
    if word in shaped.get("enum", ()):
        shaped["enum"] = [word, *(option for option in shaped["enum"] if option != word)]
    return shaped


class WaitingPlayer:
    """The reply function of a scripted model that keeps a NetHack game going to BALROG's
    step limit while letting game time pass slowly. Every reply is the minimal instance of
    its reply schema with one action chosen: `look` (no game time) until `WAIT_EVERY`
    decisions have passed without the turn counter (`T:` on the status line) moving, then
    `search` until it moves; hungry, it prays (answering `y`) if `PRAYER_TURNS` turns have
    passed since its last prayer, which feeds a character whose prayer timeout has run
    out. It plays nothing: monsters that come find it standing still."""

    def __init__(self) -> None:
        self.turn = ""
        self.still = 0
        self.prayed_at = -PRAYER_TURNS

    def __call__(self, messages: Any, constraint: Any) -> Any:
        from bounded.models.scripted import minimal_instance

        text = messages[-1]["content"] if messages else ""
        turns = TURN.findall(text)
        turn = turns[-1] if turns else ""
        self.still = self.still + 1 if turn == self.turn else 0
        self.turn = turn
        if "want to pray?" in text:
            word = "y"
        elif hungry(text) and int(turn or 0) - self.prayed_at >= PRAYER_TURNS:
            word, self.prayed_at = "pray", int(turn or 0)
        else:
            word = "search" if self.still >= WAIT_EVERY else "look"
        return minimal_instance(preferring(constraint or {}, word))


def waiting_player() -> Any:
    """A scripted model playing `WaitingPlayer`."""
    from bounded.models.scripted import ScriptedModel

    return ScriptedModel(WaitingPlayer(), id="scripted:waiting")


def play_one(env: str, contract: str, size: int, player: str) -> dict[str, Any]:
    """Play one game in this process and report its memory (the child's work)."""
    from bounded.archive import Archive
    from bounded.runner.build import build_game, runner_for
    from bounded.runner.spec import GameSpec

    options: dict[str, Any] = {"horizon": size} if env == "warehouse" else {"max_steps": size}
    waiting = env == "nethack" and player == "waiting"
    if waiting:
        options["presentation"] = "balrog"
    spec = GameSpec(
        env=env, env_options=options, contract=contract, model="scripted:minimal",
        max_decisions=size,
    )  # fmt: skip
    game = build_game(spec, model=waiting_player() if waiting else None)
    built_mb = resident_mb()
    wall, cpu = time.perf_counter(), time.process_time()
    with tempfile.TemporaryDirectory() as folder, Archive(Path(folder) / "a.sqlite") as archive:
        try:
            run = runner_for(game, archive=archive).execute()
        finally:
            game.env.close()
    return {
        "decisions": run.decisions,
        "status": run.status,
        "ended_by": run.outcome.get("ended_by", ""),
        "turns": run.outcome.get("time"),
        "built_rss_mb": round(built_mb, 1),
        "peak_rss_mb": round(resident_mb("VmHWM"), 1),
        "wall_s": round(time.perf_counter() - wall, 1),
        "cpu_s": round(time.process_time() - cpu, 1),
    }


def measure(env: str, contract: str, size: int, player: str) -> dict[str, Any]:
    """One game in a fresh process."""
    done = subprocess.run(
        [sys.executable, __file__, "--child", env, contract, str(size), player],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"{env}/{contract} at {size} failed: {done.stderr[-2000:]}")
    row: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    row["size"] = size
    row["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return row


def series(rows: list[dict[str, Any]], smallest: int, bar_mb: float | None) -> dict[str, Any]:
    """One game's rows by size, and the growth of each peak over the smallest size's (once
    that game is played)."""
    rows = sorted(rows, key=lambda row: row["size"])
    result: dict[str, Any] = {"rows": rows}
    if rows[0]["size"] != smallest:
        return result
    first = rows[0]["peak_rss_mb"]
    for row in rows:
        row["growth_mb"] = round(row["peak_rss_mb"] - first, 1)
    if bar_mb is not None:
        result["bar_mb"] = bar_mb
        result["within_bar"] = all(row["growth_mb"] <= bar_mb for row in rows)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--contracts", default=",".join(CONTRACTS))
    parser.add_argument(
        "--growing-max", "--transcript-max", dest="growing_max", type=int, default=10_000,
        help=f"the longest game of a contract that grows by design ({', '.join(GROWS)})",
    )  # fmt: skip
    parser.add_argument(
        "--nethack-sizes", type=int, nargs="*", default=[1_000, 10_000],
        help="decision limits of the NetHack games (none: no NetHack)",
    )  # fmt: skip
    parser.add_argument("--nethack-contract", default="state")
    parser.add_argument(
        "--nethack-player", choices=NETHACK_PLAYERS, default="waiting",
        help="waiting: BALROG's presentation, look and now and then search (game time "
        "passes, so the game reaches its step limit); first-legal: bounded's presentation, "
        "the first legal action (NLE ends it after 10,000 keys without game time)",
    )  # fmt: skip
    parser.add_argument(
        "--jobs", type=int, default=1,
        help="games played at once, each in its own process (a peak is one process's)",
    )  # fmt: skip
    parser.add_argument(
        "--child", nargs=4, metavar=("ENV", "CONTRACT", "SIZE", "PLAYER"), help=argparse.SUPPRESS
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    if args.child:
        env, contract, size, player = args.child
        print(json.dumps(play_one(env, contract, int(size), player)))
        return
    sizes = sorted(args.sizes)
    from bounded.analysis.provenance import provenance

    result: dict[str, Any] = {
        "provenance": provenance(),
        "command": " ".join(["python", "bench/memory_scaling.py", *sys.argv[1:]]),
        "machine": f"{platform.machine()} {os.cpu_count()} cores",
        "python": platform.python_version(),
        "load_average_before": [round(x, 2) for x in os.getloadavg()],
        "nethack_player": args.nethack_player,
        "games": {},
    }
    games: dict[tuple[str, str], tuple[list[int], float | None]] = {}
    for contract in filter(None, args.contracts.split(",")):
        grows = contract in GROWS
        played = [s for s in sizes if not grows or s <= args.growing_max] or sizes[:1]
        games["warehouse", contract] = (played, None if grows else WAREHOUSE_BAR_MB)
    if args.nethack_sizes:
        games["nethack", args.nethack_contract] = (sorted(args.nethack_sizes), NETHACK_BAR_MB)
    plays = [(env, contract, size) for (env, contract), (sizes_, _) in games.items()
             for size in sizes_]  # fmt: skip
    plays.sort(key=lambda play: play[2])  # the shortest first: a run stopped early has them
    rows: dict[tuple[str, str], list[dict[str, Any]]] = {game: [] for game in games}

    lock = threading.Lock()

    def one(play: tuple[str, str, int]) -> None:
        env, contract, size = play
        row = measure(env, contract, size, args.nethack_player)
        with lock:
            rows[env, contract].append(row)
            print(f"{env}/{contract}: {json.dumps(row)}", flush=True)
            write(args.out, result, games, rows, finished=False)

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(one, plays))
    write(args.out, result, games, rows, finished=True)
    print(f"wrote {args.out}")


def write(
    out: Path,
    result: dict[str, Any],
    games: dict[tuple[str, str], tuple[list[int], float | None]],
    rows: dict[tuple[str, str], list[dict[str, Any]]],
    *,
    finished: bool,
) -> None:
    """The results so far (after every game, so that a run stopped early keeps them)."""
    result["games"] = {
        f"{env}/{contract}": series(rows[env, contract], min(sizes), bar)
        for (env, contract), (sizes, bar) in games.items()
        if rows[env, contract]
    }
    result["finished"] = finished
    from bounded.analysis.provenance import write_result

    measured = {key: value for key, value in result.items() if key != "provenance"}
    write_result(out, measured, result["provenance"])


if __name__ == "__main__":
    main()
