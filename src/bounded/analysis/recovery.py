"""The state-recovery table (SKILL.state's Table 3 experiment) from an archive.

One row per perturbed run (a `state` or `transcript` contract with `perturb_at` set):
the environment, the contract, the model, how the memory was damaged and when, the
decisions it took to be rewarded again (`decisions_to_recover`; the perturbations are
`bounded.contracts.perturbation`), the accuracy
from the perturbation on, and the same run's accuracy before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bounded.archive import Archive
from bounded.core import RunRecord


def decisions_to_recover(rewards: Sequence[float], at: int) -> int | None:
    """Decisions from the perturbed one (`at`, counted as 1) to the first rewarded one;
    None when no decision from `at` on is rewarded (or the run never reached `at`)."""
    for offset, reward in enumerate(rewards[at:], start=1):
        if reward > 0:
            return offset
    return None


def accuracy_after(rewards: Sequence[float], at: int) -> float | None:
    """The share of rewarded decisions from `at` on (None when there are none)."""
    after = rewards[at:]
    return sum(r > 0 for r in after) / len(after) if after else None


@dataclass(frozen=True)
class RecoveryRow:
    tag: str
    env: str
    contract: str
    model: str
    perturb: str
    at: int
    decisions: int
    recovered_in: int | None
    accuracy_before: float | None
    accuracy_after: float | None
    victory: bool


def recovery_row(run: RunRecord, rewards: list[float]) -> RecoveryRow | None:
    """The row of a perturbed run; None for a run that was not perturbed."""
    at = run.contract_config.get("perturb_at")
    if not isinstance(at, int):
        return None
    before = rewards[:at]
    return RecoveryRow(
        tag=run.tag,
        env=run.env_id.rsplit("/", 1)[-1],
        contract=run.contract,
        model=run.model,
        perturb=str(run.contract_config.get("perturb", "wipe")),
        at=at,
        decisions=run.decisions,
        recovered_in=decisions_to_recover(rewards, at),
        accuracy_before=sum(r > 0 for r in before) / len(before) if before else None,
        accuracy_after=accuracy_after(rewards, at),
        victory=run.outcome.get("victory") is True,
    )


def recovery_rows(path: Path, experiment: str | None = None) -> list[RecoveryRow]:
    rows = []
    with Archive(path, read_only=True) as archive:
        for run in archive.runs(experiment=experiment):
            if run.status != "completed":
                continue
            decisions = archive.decisions(run.run_id, with_segments=False)
            row = recovery_row(run, [d.reward for d in decisions])
            if row is not None:
                rows.append(row)
    return sorted(rows, key=lambda r: (r.env, r.model, r.contract, r.perturb, r.tag))


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def render_recovery(rows: list[RecoveryRow]) -> str:
    """The table as Markdown."""
    lines = [
        "| env | contract | tag | model | perturbation | decisions to recover "
        "| accuracy before | accuracy after | decisions | victory |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        recovered = "never" if r.recovered_in is None else str(r.recovered_in)
        lines.append(
            f"| {r.env} | {r.contract} | {r.tag} | {r.model} | {r.perturb} at {r.at} "
            f"| {recovered} | {_share(r.accuracy_before)} | {_share(r.accuracy_after)} "
            f"| {r.decisions} | {'yes' if r.victory else 'no'} |"
        )
    return "\n".join(lines)


__all__ = [
    "RecoveryRow",
    "accuracy_after",
    "decisions_to_recover",
    "recovery_row",
    "recovery_rows",
    "render_recovery",
]
