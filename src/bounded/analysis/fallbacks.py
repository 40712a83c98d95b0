"""What a game's agent really did, decision by decision: how many of its decisions fell
back (`DecisionRecord.fallback`: the executed action was not the model's, its reply being
unusable), how many replies the contract could not parse (`parse_error`), and how many
actions its replies named outside the legal set (`invalid_actions`, as BALROG counts them).

Counted from the archive's decisions (`decision_tallies`: one query, any archive that
recorded decisions; imported runs have none and read "not recorded"). A game **won on
fallbacks** is a victory in which at least one decision executed a fallback: the game's
own default action, not the model's, moved it (a free-text reply without JSON that falls
back to BabyAI's `go forward` can win a corridor). The tables count such wins per cell,
and `--exclude-fallback-wins` leaves them out of the rows (a check of how much of a rate
rests on them; it is not an estimate of the model's rate, which the games as played are).
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from bounded.archive import Archive
from bounded.archive.queries import decision_counts, infos_naming
from bounded.core import INVALID_KEY, invalid_count


class DecisionTally(BaseModel):
    """One run's recorded decisions and what went wrong in them."""

    decisions: int = 0
    fallbacks: int = 0
    """Decisions whose executed actions were a fallback, not the model's."""
    parse_errors: int = 0
    """Decisions whose reply the contract could not read (`parse_error` recorded)."""
    invalid_actions: int = 0
    """Actions the replies named that were not legal then."""


def decision_tallies(archive: Archive) -> dict[str, DecisionTally]:
    """Run id -> its tally, for every run with recorded decisions."""
    tallies = {
        counts.run_id: DecisionTally(
            decisions=counts.decisions,
            fallbacks=counts.fallbacks,
            parse_errors=counts.parse_errors,
        )
        for counts in decision_counts(archive)
    }
    for run_id, info in infos_naming(archive, INVALID_KEY):
        tally = tallies.get(run_id)
        if tally is not None:
            tally.invalid_actions += invalid_count(info)
    return tallies


def rate(count: int, total: int) -> float | None:
    return count / total if total else None


Tallies = Mapping[str, DecisionTally]
"""Run id -> its decisions' tally."""


__all__ = ["DecisionTally", "Tallies", "decision_tallies", "rate"]
