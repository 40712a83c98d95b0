"""`BabyAIExpert`: minigrid's BabyAI bot as a scripted player, in BALROG's action words."""

from __future__ import annotations

from minigrid.utils.baby_ai_bot import BabyAIBot

from bounded.core import Action, Observation
from bounded.envs.babyai.env import ACTIONS, BabyAIEnv


class BabyAIExpert:
    """Plans with minigrid's `BabyAIBot` on the environment's level (it needs the level
    itself, not only the text: a bot for calibration, banks and tests)."""

    def __init__(self, env: BabyAIEnv) -> None:
        self.env = env
        self._bot: BabyAIBot | None = None
        self._episode: tuple[int | None, str] | None = None

    def act(self, obs: Observation) -> Action:
        episode = (self.env.save()["seed"], obs.state["mission"])
        if self._bot is None or self._episode != episode or obs.t == 0:
            self._bot, self._episode = BabyAIBot(self.env.minigrid), episode
        index = int(self._bot.replan())
        action_id = list(ACTIONS)[index] if index < len(ACTIONS) else "go forward"
        return next(a for a in obs.legal if a.id == action_id)


__all__ = ["BabyAIExpert"]
