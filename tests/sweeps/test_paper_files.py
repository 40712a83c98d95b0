"""The paper files' cells differ in their memory alone: each file, cut to one game a cell and
a few decisions, is swept against the fake endpoint that plays (every reply names a legal
action in the format its request asks for), and the parity report of the games played
(`bounded.analysis.parity`, cells compared within each environment and matrix point) must
find no difference beyond the memory contract but the ones listed here, each with the
reason it is the paper's, and every cell must act (a cell whose replies can never name an
action, as CoS's on the warehouse before its arguments could be written, idles whatever
its memory)."""

from __future__ import annotations

import json
import tomllib
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from bounded.analysis.parity import ParityReport, parity_of_runs
from bounded.archive import Archive
from bounded.sweeps.experiment import load_experiment, parse_experiment
from bounded.sweeps.sweep import run_sweep
from bounded.testing.endpoint import Endpoint

ROOT = Path(__file__).parents[2]
EXPERIMENTS = ROOT / "experiments"
CRAFT_BANK = ROOT / "bench" / "results" / "epicstar_calibration.bank.npz"
"""The committed five-win bank, built at the paper file's step (2 s, one action)."""
DECISIONS = 8

KEPT_CELLS: dict[str, set[str]] = {
    "balrog.toml": {"babyai-goto"},
    "balrog_small.toml": {"babyai-goto"},
}
"""Files too large to sweep whole here: the cells of these environment tasks (every agent)."""
DROPPED_CELLS: dict[str, set[str]] = {"nethack.toml": {"episodic"}}
"""Cells left out: nethack's episodic cell needs a NetHack bank, which is not committed."""

OWN_REPLIES = {"fallback", "contract_config.text_rule"}
"""Where a file sets several papers' methods side by side, each reads its reply by its own
rule (SKILL.state's JSON block, AgenticSTS's decision tag; CoS, EpicStar and BALROG's
agents have a rule of their own that is no configuration key) and runs its own fallback
(SKILL.state's no-op; the game's default for CoS, EpicStar, BALROG and, as set in the
files, the contracts without a paper)."""

PAPER_DIFFERENCES: dict[str, set[str]] = {
    "epicstar_paper.toml": {"acting rate"},
    "epicstar_paper_small.toml": {"acting rate"},
    "babyai.toml": OWN_REPLIES,
    "nethack.toml": OWN_REPLIES,
    "balrog.toml": {"reasoning", *OWN_REPLIES},
    "balrog_small.toml": {"reasoning", *OWN_REPLIES},
    "memory_designs.toml": OWN_REPLIES,
    "memory_designs_small.toml": OWN_REPLIES,
}
"""Differences a file keeps, as its papers': `OWN_REPLIES`; EpicStar's no-exploration
ablation idles where the bank has nothing executable (docs/episodic.md), so its acting
rate is its mechanism, not a setting (it calls no model: the format it would reply in is
no difference either, issue 51 item 4); BALROG's naive agents reply with the
action alone, no reasoning (BALROG's), where its cot agents, SKILL.state and AgenticSTS
reason first. Every other setting (the reply mode, temperature, reply limit, decision
budget, a contract's own call settings) is the same in every cell of an environment, and
every model-asking cell plays in `text` (checked beside the report)."""

PAPER_FILES = (
    "epicstar_paper.toml",
    "epicstar_paper_small.toml",
    "babyai.toml",
    "nethack.toml",
    "balrog.toml",
    "balrog_small.toml",
    "memory_designs.toml",
    "memory_designs_small.toml",
)


def reduced(data: dict[str, Any], name: str, url: str, tmp_path: Path) -> dict[str, Any]:
    """The file cut to one game a cell, `DECISIONS` decisions, the first matrix point, the
    fake endpoint as its model and the committed craft bank as its bank."""
    data["experiment"]["archive"] = str(tmp_path / "paper.sqlite")
    defaults = data.setdefault("defaults", {})
    for entry in [defaults, *data.get("cells", []), *data.get("phases", [])]:
        entry.pop("model", None)
        if "games" in entry:
            entry["games"] = 1
        config = entry.get("contract_config") or {}
        if "bank" in config:
            config["bank"] = str(CRAFT_BANK)
    defaults.update(model="openai:m", base_url=url, games=1, max_decisions=DECISIONS)
    kept, dropped = KEPT_CELLS.get(name), DROPPED_CELLS.get(name, set())
    data["cells"] = [
        cell
        for cell in data["cells"]
        if cell["tag"] not in dropped
        and (kept is None or cell.get("name", "").split(".", 1)[-1] in kept)
    ]
    data["matrix"] = {key: values[:1] for key, values in data.get("matrix", {}).items()}
    if not data["matrix"]:
        data.pop("matrix")
    return data


def played_parity(archive_path: Path) -> ParityReport:
    """The parity report of the sweep's cell games, by tag within each environment and
    options (a matrix point, a BALROG task)."""
    cells: dict[tuple[str, str, str], list[Any]] = defaultdict(list)
    with Archive(archive_path, read_only=True) as archive:
        for run in archive.runs(status="completed"):
            if run.cell.startswith("learn-"):
                continue  # a learning phase, not a compared cell
            options = str(sorted((run.spec.get("env_options") or {}).items()))
            cells[(run.tag, run.env_id, options)].append(run)
    return parity_of_runs(
        (tag, {"environment": env, "options": options}, runs)
        for (tag, env, options), runs in sorted(cells.items())
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", PAPER_FILES)
def test_the_cells_of_a_paper_file_differ_in_their_memory_alone(name, tmp_path) -> None:
    data = tomllib.loads((EXPERIMENTS / name).read_text())
    with Endpoint(plays="first") as endpoint:
        experiment = parse_experiment(
            reduced(data, name, endpoint.url, tmp_path), source=EXPERIMENTS / name
        )
        summary = run_sweep(experiment)
    assert not summary.failed, summary.failed
    report = played_parity(tmp_path / "paper.sqlite")
    assert report.compared
    found = {difference.setting for difference in report.differences}
    assert found <= PAPER_DIFFERENCES.get(name, set()), report.lines()
    idle = [cell.label for cell in report.cells if not cell.acting_rate]
    assert not idle, f"cells that never act, so compare nothing: {idle}"
    with Archive(tmp_path / "paper.sqlite", read_only=True) as archive:
        modes = {
            run.cell: run.model_params["reply"]["mode"]
            for run in archive.runs(status="completed")
            if run.model_calls
        }
    assert modes and set(modes.values()) == {"text"}, modes


MEASURED = json.loads((ROOT / "bench" / "results" / "paper_reply_tokens.json").read_text())
"""The reply each paper's prompt asks for, measured with the embedded model's tokenizer
(`bench/paper_reply_tokens.py`): CoS's Appendix B reply, SKILL.state's per environment."""


def measured_limit(contract: str, env: str) -> int | None:
    """The measured reply limit of the paper a cell's contract reproduces (None: its paper
    asks for no length, AgenticSTS's and BALROG's agents')."""
    if contract == "summary" or contract.startswith("episodic"):
        return int(MEASURED["cos_epicstar"]["limit"])
    if contract == "state":
        return int(MEASURED["skill_state"]["environments"][env]["limit"])
    return None


@pytest.mark.parametrize("name", PAPER_FILES)
def test_a_paper_files_reply_limit_fits_the_reply_each_cells_paper_asks_for(name) -> None:
    """Every game's `max_tokens` is at least the measured reply of its cell's paper on its
    environment (so no paper's reply is cut), and is one of the measured limits of the
    file's papers: the longest of them, shared by the cells it is compared with."""
    games = load_experiment(EXPERIMENTS / name).plan()
    limits = {measured_limit(game.contract, game.env) for game in games} - {None}
    for game in games:
        own = measured_limit(game.contract, game.env) or 0
        assert game.max_tokens >= own, (game.cell, game.env, game.max_tokens, own)
        assert game.max_tokens in limits, (game.cell, game.max_tokens, sorted(limits))
