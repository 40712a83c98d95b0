"""The NetHack episodic bank: the scripted player's best games.

No scripted game wins NetHack, so EpicStar's "winning games" become the games that
progressed furthest: the explore-and-descend player (`NetHackExpert`) plays `games`
seeded games of at most `max_steps` decisions, and the `keep` best by BALROG's
progression (then deepest level, then in-game score) enter the bank.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer

from bounded.env_records import BankGame, BankPlan, BankRecipe

NETHACK_ENV = "bounded/NetHack-v0"


def _rank(outcome: Mapping[str, Any]) -> tuple[float, float, float]:
    return (
        float(outcome.get("progression", 0.0)),
        float(outcome.get("max_depth", 1)),
        float(outcome.get("score", 0)),
    )


def _expert(seed: int, _env: Any) -> Any:
    from bounded.envs.nethack.expert import NetHackExpert

    return NetHackExpert(seed)


def nethack_bank_plan(
    games: Annotated[int, typer.Option(help="Scripted games to play.")] = 8,
    keep: Annotated[int, typer.Option(help="Best games kept in the bank.")] = 3,
    max_steps: Annotated[int, typer.Option(help="Decisions per game.")] = 1_000,
    seed: Annotated[int, typer.Option(help="First game seed.")] = 0,
) -> BankPlan:
    """Build the NetHack bank from the explore-and-descend player's best games."""
    options = {"max_steps": max_steps}
    played = [
        BankGame(options, seed + n, "explore-descend", partial(_expert, seed + n), max_steps)
        for n in range(games)
    ]
    meta = {"env": NETHACK_ENV, "source": "NetHackExpert", "games": games, "keep": keep}
    meta |= {"max_steps": max_steps, "seed": seed, "kept_by": "progression, depth, score"}
    return BankPlan(played, meta, keep=keep, rank=_rank)


def nethack_bank_report(bank: Any, infos: Sequence[Any], out: Path) -> str:
    lines = [f"{'seed':>5}  {'progression':>11}  {'depth':>5}  {'xl':>3}  {'score':>6}  ended by"]
    for info in infos:
        o = info.outcome
        lines.append(
            f"{info.seed:>5}  {o.get('progression', 0):>11.4f}  {o.get('max_depth', 1):>5}  "
            f"{o.get('max_experience_level', 1):>3}  {o.get('score', 0):>6}  {o.get('ended_by')}"
        )
    keep = bank.meta["keep"]
    lines.append(
        f"kept the best {min(keep, len(infos))} of {len(infos)} games, {len(bank)} entries "
        f"-> {out} (sha256 {bank.content_hash})"
    )
    return "\n".join(lines)


NETHACK_BANK = BankRecipe(plan=nethack_bank_plan, report=nethack_bank_report)

__all__ = ["NETHACK_BANK", "NETHACK_ENV", "nethack_bank_plan"]
