"""Every `bench/` script runs: each at its smallest size, in a process of its own, writing
its JSON to a temporary folder (never to bench/results/). A script added to bench/ without
a size here fails until it gets one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
BENCH = ROOT / "bench"
RESULTS = BENCH / "results"

Arguments = Callable[[Path, dict[str, Path]], list[str]]
"""(the test's folder, the shared inputs) -> the script's arguments at its smallest size."""

OTHERS_THAN_BABYAI = ["--skip", "nethack", "--skip", "minihack", "--skip", "crafter"]

TINY: dict[str, Arguments] = {
    "balrog_calibration": lambda d, _: [
        "--nethack-seeds", "1", "--steps", "20", "--babyai-seeds", "1", "--out", f"{d}/out.json",
    ],
    "balrog_experts": lambda d, _: [
        "--archive", f"{d}/a.sqlite", "--episodes", "1", *OTHERS_THAN_BABYAI,
        "--skip", "textworld", "--out", f"{d}/out.json",
    ],
    "context_audit": lambda d, _: ["--seeds", "1", "--acts", "1", "--out-dir", str(d)],
    "craft_calibration": lambda d, _: [
        "--games", "1", "--levels", "3-3", "--out", f"{d}/out.json",
    ],
    "craft_throughput": lambda d, _: ["--games", "1", "--out", f"{d}/out.json"],
    "epicstar_calibration": lambda d, _: [
        "--seeds", "1", "--levels", "5", "--styles", "rush", "--steps", "2", "--quick",
        "--agents", "summary", "episodic-no-exploration", "--out", f"{d}/out.json",
    ],
    "epicstar_paper_scripted": lambda d, shared: [
        "--bank", str(shared["bank"]), "--games", "1", "--limit", "2", "--out", f"{d}/out.json",
    ],
    "epicstar_replay": lambda d, _: [
        "--seeds", "1", "--styles", "rush", "--bank-wins", "1", "--out", f"{d}/out.json",
    ],
    "endpoint_client": lambda d, _: ["--calls", "2", "--rounds", "1", "--out", f"{d}/out.json"],
    "textworld_first_game": lambda d, _: [
        "--tasks", "coin_collector", "--seeds", "1", "--out", f"{d}/out.json",
    ],
    "episodic_retrieval": lambda d, _: [
        "--sizes", "1000", "--queries", "5", "--out", f"{d}/out.json",
    ],
    "episodic_tokens": lambda d, shared: [
        "--bank", str(shared["bank"]), "--model", "first-legal", "--styles", "timing",
        "--seeds", "1", "--out", f"{d}/out.json",
    ],
    "harness_scaling": lambda d, _: [
        "--decisions", "50", "--runs", "1", "--window", "10", "--points", "10",
        "--contracts", "state", "--nethack-decisions", "0", "--spire-contracts", "",
        "--out", f"{d}/out.json",
    ],
    "reply_modes": lambda d, _: [
        "--decisions", "1", "--contracts", "balrog-naive", "--envs", "babyai", "--modes",
        "constrained", "--archive", f"{d}/a.sqlite", "--out", f"{d}/out.json",
    ],
    "paper_reply_tokens": lambda d, shared: [
        "--cos-prompts", str(shared["cos_prompts"]), "--envs", "warehouse",
        "--out", f"{d}/out.json",
    ],
    "rehearsal": lambda d, _: [
        "--games", "1", "--steps", "1", "--latency", "0", "--out", f"{d}/out.json",
    ],
    "textworld_first_use": lambda d, _: [
        "--tasks", "coin_collector", "--seeds", "1", "--settings", '{"level": 3}',
        "--out", f"{d}/out.json",
    ],
    "textworld_balrog_pool": lambda d, _: ["--tasks", "coin_collector", "--out", f"{d}/out.json"],
    "sequential_example": lambda d, _: [
        "--replicates", "1", "--seeds", "10", "--calibration", "30", "--out", f"{d}/out.json",
    ],
    "report_scale": lambda d, _: [
        "--games", "4", "--game-decisions", "3", "--grow", "2", "--out", f"{d}/out.json",
    ],
    "archive_scale": lambda d, _: [
        "--sizes", "90", "--game-decisions", "10", "--fill", "replay", "--long", "20",
        "--before", str(ROOT / "src"), "--reader-timeout", "300",
        "--write-rounds", "1", "--write-decisions", "5", "--out", f"{d}/out.json",
    ],
    "kill_trials": lambda d, _: [
        "--trials", "1", "--games", "1", "--horizon", "3", "--out", f"{d}/out.json",
    ],
    "embedded_speed": lambda d, _: [
        "--decisions", "1", "--games", "1", "--threads", "1", "--reps", "1", "--prefix", "40",
        "--chunk", "40", "--generate", "4", "--profile", "1", "--bracket",
        "--out", f"{d}/out.json",
    ],
    "memory_scaling": lambda d, _: [
        "--sizes", "5", "20", "--contracts", "state", "--nethack-sizes", "--out", f"{d}/out.json",
    ],
    "memory_designs_audit": lambda d, _: [
        "--seeds", "1", "--acts", "1", "--contracts", "rag", "--out-dir", str(d),
    ],
    "nethack_context_audit": lambda d, _: ["--steps", "5", "--out", f"{d}/out.json"],
    "nethack_tokens": lambda d, shared: [str(shared["nethack_archive"])],
    "reasoning_budget": lambda d, _: [
        "--caps", "24", "--max-tokens", "48", "--out", f"{d}/out.json",
    ],
    "rag_retrieval": lambda d, _: [
        "--sizes", "10", "--queries", "3", "--cosine-queries", "2", "--out-dir", str(d),
    ],
    "sandbox_attempts": lambda d, _: [
        "--attempts", "1", "--episode-seconds", "5", "--out", f"{d}/out.json",
    ],
    "spire_calibration": lambda d, _: [
        "--seeds", "1", "--ascensions", "0", "--out", f"{d}/out.json",
    ],
    "spire_throughput": lambda d, _: [
        "--runs", "1", "--random-games", "1", "--decapitate-games", "0",
        "--out", f"{d}/out.json",
    ],
    "sweep_estimates": lambda d, _: [
        "--files", "warehouse_contracts.toml", "--games", "1", "--out", f"{d}/out.json",
    ],
    "sweep_throughput": lambda d, _: [
        "--games", "1", "--decisions", "3", "--latency", "0.01", "--no-baseline",
        "--one-process", "--startup-workers", "1", "--out", f"{d}/out.json",
    ],
    "warehouse_tokens": lambda d, _: [
        "--model", "scripted:minimal", "--horizons", "5", "--out", f"{d}/out.json",
    ],
    "workbench_suite": lambda d, _: [
        "--model", "expert", "--tasks", "count_files", "--contracts", "state",
        "--modes", "multi", "--out", f"{d}/out.json",
    ],
}  # fmt: skip

PRINTS_ONLY = {"nethack_tokens"}
"""Scripts that print their table and write no file."""


def results_folder() -> dict[str, float]:
    return {str(p): p.stat().st_mtime for p in RESULTS.rglob("*") if p.is_file()}


NEEDS = {
    "epicstar_paper_scripted": ("bank",),
    "episodic_tokens": ("bank",),
    "nethack_tokens": ("nethack_archive",),
    "paper_reply_tokens": ("cos_prompts",),
}
"""The inputs (fixtures of this module) a script reads."""


@pytest.fixture(scope="module")
def bank(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A craft bank of one win (the smallest `bounded bank craft` makes)."""
    from bounded.jobs.craft_bank import bootstrap_craft_bank

    path = tmp_path_factory.mktemp("bank") / "bank.npz"
    bootstrap_craft_bank(keep=1)[0].save(path)
    return path


@pytest.fixture(scope="module")
def cos_prompts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A prompt file in the shape of CoS's reference one (its `StarCraftIIPrompt_V4` sets an
    example reply), the example written here."""
    path = tmp_path_factory.mktemp("cos") / "prompt.py"
    example = (
        "1. Game Overview: early game, one base.\\n\\nSuggestions:\\n1. Our Strategy: expand."
        "\\n2. Economy: more workers.\\n\\nDecisions:\\n0: <TRAIN PROBE>\\n1: <BUILD PYLON>"
    )
    path.write_text(
        "class StarCraftIIPrompt_V4:\n"
        "    def generate_prompts(self):\n"
        f'        self.example_output_prompt = "{example}"\n'
    )
    return path


@pytest.fixture(scope="module")
def nethack_archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An archive holding one five-step NetHack run."""
    from bounded.archive import Archive
    from bounded.contracts import make_contract
    from bounded.envs import make
    from bounded.models import make_model
    from bounded.runner import run_episode

    path = tmp_path_factory.mktemp("nethack") / "nethack.sqlite"
    env = make("nethack", max_steps=5)
    with Archive(path) as archive:
        run_episode(
            env, make_contract("state"), make_model("scripted:minimal"), seed=0, archive=archive
        )
    env.close()
    return path


NOT_RUN = {
    "quickstart_demo": "clones the repository and runs the README's first command: an "
    "install and the embedded model's games, minutes at any size",
}
"""Scripts with no smallest size, and why."""


def test_every_script_has_a_size():
    assert {path.stem for path in BENCH.glob("*.py")} == set(TINY) | set(NOT_RUN)


@pytest.mark.parametrize(
    "script", sorted(p.stem for p in BENCH.glob("*.py") if p.stem not in NOT_RUN)
)
def test_the_script_runs_at_its_smallest_size(script, tmp_path, request):
    shared = {name: request.getfixturevalue(name) for name in NEEDS.get(script, ())}
    before = results_folder()
    source = os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))
    result = subprocess.run(
        [sys.executable, str(BENCH / f"{script}.py"), *TINY[script](tmp_path, shared)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": source},
        capture_output=True,
        text=True,
        timeout=600,  # a bound for a hang, not a speed check: a loaded machine is slow
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert results_folder() == before, "the script wrote to bench/results/"
    written = [p for p in tmp_path.rglob("*.json")]
    if script in PRINTS_ONLY:
        printed = json.loads(result.stdout)
        assert printed["rows"], "it printed no rows"
        assert_provenance(printed)
    else:
        assert written, "it wrote no JSON"
        for path in written:
            assert_provenance(json.loads(path.read_text()))


PROVENANCE = {"commit", "dirty", "command", "date", "cpus", "load_start", "load_end", "kind"}


def assert_provenance(data: dict) -> None:
    """Where, when, under what load and of what kind a file's figures are
    (`bounded.analysis.provenance`)."""
    given = data["provenance"]
    assert set(given) >= PROVENANCE, PROVENANCE - set(given)
    assert given["kind"] in ("measured", "floor", "estimate")
    assert len(given["load_start"]) == len(given["load_end"]) == 3
    assert given["cpus"] >= 1
    assert given["command"].split()[0].endswith(".py"), given["command"]


def test_archive_scale_replays_a_played_game_under_fresh_runs(tmp_path):
    """`--fill replay`: the played game's decisions written again, whole, as other runs;
    `--readers-on` reads that archive without filling it."""
    import importlib.util

    from bounded.analysis.provenance import provenance
    from bounded.archive import Archive

    spec = importlib.util.spec_from_file_location("archive_scale", BENCH / "archive_scale.py")
    assert spec is not None and spec.loader is not None
    archive_scale = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(archive_scale)
    path = tmp_path / "a.sqlite"
    measured = archive_scale.fill(path, ["transcript"], 35, 10, replay_games=1)["transcript"]
    assert (measured["decisions"], measured["games_played"], measured["games_replayed"]) == (
        35, 2, 2,
    )  # fmt: skip
    with Archive(path) as archive:
        runs = archive.runs()
        assert sorted(run.seed for run in runs) == [1, 2, 3, 4]
        assert {run.status for run in runs} == {"completed"}
        assert len({run.run_id for run in runs}) == 4
        played, *replayed = [archive.decisions(run.run_id) for run in runs if run.seed != 4]
        for copy in replayed:
            assert len(copy) == len(played) == 10
            for mine, theirs in zip(copy, played, strict=True):
                assert mine.run_id != theirs.run_id
                assert mine.model_dump(exclude={"run_id"}) == theirs.model_dump(exclude={"run_id"})

    out = tmp_path / "readers.json"
    archive_scale.readers_only(path, ["analyze"], 300, out, provenance())
    ((size, measured_readers),) = json.loads(out.read_text())["sizes"].items()
    assert size == "35"
    assert set(measured_readers["readers"]["analyze"]) == {"s", "peak_rss_mb"}


def test_harness_scaling_plays_two_trees_side_by_side(tmp_path):
    """`--before-src`: every game played by both trees, each in a process of its own, the
    trees' order alternating from one game to the next and from one round to the next; each
    decision's write is part of the harness's CPU, so its median cannot exceed the
    decision's."""
    source = str(ROOT / "src")
    out = tmp_path / "out.json"
    result = subprocess.run(
        [
            sys.executable, str(BENCH / "harness_scaling.py"), "--before-src", source,
            "--after-src", source, "--decisions", "30", "--short", "10", "--window", "8",
            "--points", "10", "--runs", "2", "--contracts", "state", "--out", str(out),
        ],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": source}, capture_output=True,
        text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    trees = [line.split()[2] for line in result.stdout.splitlines() if line.startswith("round")]
    assert trees == [
        "before", "after", "after", "before",  # round 1: the short game, then the long one
        "after", "before", "before", "after",  # round 2
    ]  # fmt: skip
    data = json.loads(out.read_text())
    assert_provenance(data)
    assert data["plan"] == [["state", 10], ["state", 30]]
    for name, points in (("warehouse/state/10", ["10"]), ("warehouse/state/30", ["10", "30"])):
        game = data["games"][name]
        assert sorted(game["after_over_before"]) == sorted(["game", *points])
        for tree in ("before", "after"):
            assert game[tree]["decisions"] == int(name.rsplit("/", 1)[1])
            assert sorted(game[tree]["at"]) == points
            for part in [game[tree]["game"], *game[tree]["at"].values()]:
                assert len(part["cpu_ms_rounds"]) == len(part["write_ms_rounds"]) == 2
                assert 0 < part["write_cpu_ms"] <= part["cpu_ms"]
                assert part["peak_rss_kb"] > 0
