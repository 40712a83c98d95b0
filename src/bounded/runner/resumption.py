"""A run to continue: what `claim` hands the episode runner (`Resumption`), and the checks a
resume passes before the runner plays on (`bounded.runner.resume` finds and claims such
runs; `bounded.runner.episode` replays and continues them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bounded.archive.progress import Checkpoint
from bounded.core import BoundedError, DecisionRecord, RunRecord
from bounded.runner.identity import changed_inputs


class ResumeError(BoundedError):
    """A run that cannot be continued (no snapshot, a diverging replay, changed stores)."""


@dataclass
class Resumption:
    """An archived run to continue: its row, its decisions and its checkpoint."""

    run: RunRecord
    decisions: list[DecisionRecord]
    checkpoint: Checkpoint


def check_inputs(then: RunRecord, now: Mapping[str, str]) -> None:
    """Refuse to resume a run under inputs other than those it was played with (a new
    content version of the environment, another contract configuration): its first
    decisions and the rest would be two games. Store hashes are the checkpoint's to check
    (`check_stores`); a run of an older bounded records no inputs."""
    changed = changed_inputs(then.inputs, now, stores=False)
    if then.inputs and changed:
        raise ResumeError(
            f"run {then.run_id[:12]} was played with other inputs ({', '.join(changed)} "
            "changed since): replay it from the start instead"
        )


def check_stores(point: Checkpoint, now: Mapping[str, str]) -> None:
    """Refuse a resume whose contract reads stores (`now`: their hashes) other than those
    it had at the checkpoint."""
    then = point.store_hashes
    changed = sorted(key for key in {*now, *then} if now.get(key) != then.get(key))
    if changed:
        raise ResumeError(
            f"the contract's stores changed since decision {point.decisions} "
            f"({', '.join(changed)}): another run, or postrun learning, wrote them"
        )


__all__ = ["ResumeError", "Resumption", "check_inputs", "check_stores"]
