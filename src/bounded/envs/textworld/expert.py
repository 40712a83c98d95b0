"""`TextWorldExpert`: a scripted TextWorld player, for calibration, banks and tests.

It types TextWorld's own winning commands from the current state where TextWorld tracks
them (`policy_commands`), else the next command of the generator's walkthrough while it
has followed the walkthrough so far, else `look`. It needs the environment (the game's
solution is not in the text).
"""

from __future__ import annotations

from bounded.core import Action, Observation
from bounded.envs.textworld.env import FREE_TEXT, TextWorldEnv


class TextWorldExpert:
    """See the module docstring."""

    def __init__(self, env: TextWorldEnv) -> None:
        self.env = env
        self._typed: list[str] = []

    def act(self, obs: Observation) -> Action:
        if obs.t == 0:
            self._typed = []
        command = self._next()
        self._typed.append(command)
        listed = obs.legal_action(command)
        if listed is not None:
            return listed
        return Action(id=FREE_TEXT, args={"text": command})

    def _next(self) -> str:
        policy = self.env.policy()
        if policy:
            return policy[0]
        walkthrough = self.env.walkthrough
        done = len(self._typed)
        if done < len(walkthrough) and self._typed == walkthrough[:done]:
            return walkthrough[done]
        return "look"


__all__ = ["TextWorldExpert"]
