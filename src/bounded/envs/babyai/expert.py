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
        self._taken: int | None = None
        """The action played instead of the bot's last suggestion, if any (`played`)."""

    def act(self, obs: Observation) -> Action:
        episode = (self.env.save()["seed"], obs.state["mission"])
        if self._bot is None or self._episode != episode or obs.t == 0:
            self._bot, self._episode, self._taken = BabyAIBot(self.env.minigrid), episode, None
        index = self._suggest()
        self._taken = None
        action_id = list(ACTIONS)[index] if index < len(ACTIONS) else "go forward"
        return next(a for a in obs.legal if a.id == action_id)

    def _suggest(self) -> int:
        """The bot's action; where a played action left its plan behind (minigrid's bot
        follows only some deviations), a fresh bot plans from where the game is, and one
        that cannot (it carries what its plan must pick up) drops what it carries."""
        assert self._bot is not None
        try:
            return int(self._bot.replan(self._taken))
        except AssertionError:
            self._bot = BabyAIBot(self.env.minigrid)
        try:
            return int(self._bot.replan())
        except AssertionError:
            return list(ACTIONS).index("drop")

    def played(self, actions: list[Action]) -> None:
        """The action the game played at the bot's last decision: where it is not the
        bot's suggestion (a player of lesser skill slipped), the bot replans from it
        (`BabyAIBot.replan(action_taken)`) instead of assuming its plan was followed."""
        ids = list(ACTIONS)
        chosen = actions[0].id if actions else None
        self._taken = ids.index(chosen) if chosen in ids else None


__all__ = ["BabyAIExpert"]
