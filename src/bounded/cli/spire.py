"""`bounded spire`: play Spire runs with a scripted player (no model) and print the outcome (a
command Spire's record declares, `EnvRecord.commands`)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from bounded.cli._output import console
from bounded.core import Action, ConfigError, Observation
from bounded.protocols import Expert

PLAYERS = ("expert", "random")


def spire_command(
    player: Annotated[str, typer.Option(help="Scripted player: expert or random.")] = "expert",
    seed: Annotated[int, typer.Option(help="First seed.")] = 1,
    runs: Annotated[int, typer.Option(help="Number of runs (seeds seed .. seed+runs-1).")] = 1,
    ascension: Annotated[int, typer.Option(help="Ascension level 0-10.")] = 0,
    show: Annotated[bool, typer.Option(help="Print every observation's text and action.")] = False,
) -> None:
    """Play Spire runs with the expert or the random player and print their metrics."""
    from bounded.envs.spire import RandomPlayer, SpireEnv, SpireExpert
    from bounded.runner.build import play_expert

    if player not in PLAYERS:
        raise ConfigError(f"unknown player {player!r} (known: {', '.join(PLAYERS)})")
    if not 0 <= ascension <= 10:
        raise ConfigError(f"ascension must be 0-10, got {ascension}")
    table = Table("seed", "victory", "floor", "act", "bosses", "hp", "deck", "decisions", "score")
    for run_seed in range(seed, seed + runs):
        agent: Expert = SpireExpert() if player == "expert" else RandomPlayer(run_seed)
        env = SpireEnv(ascension=ascension)
        play_expert(env, Shown(agent) if show else agent, seed=run_seed)
        m = env.metrics()
        table.add_row(
            str(run_seed),
            "yes" if m["victory"] else "no",
            str(m["floor"]),
            str(m["act"]),
            str(m["bosses_beaten"]),
            f"{m['hp']}/{m['max_hp']}",
            str(m["deck_size"]),
            str(m["decisions"]),
            f"{m['score']:.1f}",
        )
    console.print(table)


class Shown:
    """A player whose every observation and choice is printed."""

    def __init__(self, player: Expert) -> None:
        self.player = player

    def act(self, obs: Observation) -> Action | list[Action]:
        action = self.player.act(obs)
        ids = [a.id for a in action] if isinstance(action, list) else [action.id]
        console.print(obs.text, markup=False)
        console.print(f"-> {ids}\n", markup=False)
        return action
