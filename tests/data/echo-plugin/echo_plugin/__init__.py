"""An out-of-tree bounded plugin: a game, a contract and a model that bounded does not ship.

The game: `rounds` rounds; each shows a word and the legal actions `say:<word>` and
`pass`. Saying the shown word scores a point; the game is won with every point.

`EchoEnv` is a complete Gymnasium environment as well: it sets its spaces in `__init__`
(`init_spaces`), seeds Gymnasium's generator in `reset` (`super().reset(seed=seed)`),
passes each action through `resolve_action` before stepping it, and reports the legal
actions' mask in `info` (`with_action_mask`), so `gymnasium.utils.env_checker.check_env`
passes on it.
"""

from __future__ import annotations

import json
from typing import Any

from bounded import (
    Action,
    Completion,
    ContractBase,
    Decision,
    EpisodeContext,
    ModelBase,
    Observation,
    Outcome,
    Prompt,
    StepResult,
    TextEnv,
)
from bounded.contracts import Preset
from bounded.envs.base import Choices, with_action_mask

WORDS = ("apple", "river", "stone", "cloud", "ember")


class EchoEnv(TextEnv):
    instructions = "Repeat the word you are shown."
    version = "1"

    def __init__(self, rounds: int = 4) -> None:
        self.rounds = rounds
        self.seed = 0
        self.turn = 0
        self.points = 0
        self.init_spaces(self.choices, kinds=("echo", "over"))

    def choices(self) -> Choices:
        """What the action space draws from and accepts: this round's legal actions."""
        return Choices(legal=self.observe().legal)

    def word(self) -> str:
        return WORDS[(self.seed + self.turn) % len(WORDS)]

    def observe(self) -> Observation:
        if self.turn >= self.rounds:
            return Observation(kind="over", t=self.turn, text="The game is over.")
        word = self.word()
        return Observation(
            kind="echo",
            t=self.turn,
            state={"turn": self.turn, "word": word, "points": self.points},
            text=f"Round {self.turn + 1}: the word is {word}.",
            legal=[Action(id=f"say:{word}"), Action(id="pass")],
        )

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.seed, self.turn, self.points = seed or 0, 0, 0
        obs = self.observe()
        return obs, with_action_mask({}, obs)

    def step(self, action):
        action = self.resolve_action(action)
        chosen = action[0] if isinstance(action, list | tuple) else action
        self.points += chosen.id == f"say:{self.word()}"
        self.turn += 1
        done = self.turn >= self.rounds
        obs = self.observe()
        return obs, float(chosen.id != "pass"), done, False, with_action_mask({}, obs)

    def metrics(self) -> dict[str, Any]:
        return {"points": self.points, "victory": self.points == self.rounds}

    def outcome(self) -> Outcome:
        return Outcome(
            victory=self.points == self.rounds,
            score=float(self.points),
            progress=self.turn / self.rounds,
            ended_by="over" if self.turn >= self.rounds else "running",
        )

    def save(self) -> dict[str, Any]:
        return {"seed": self.seed, "turn": self.turn, "points": self.points}

    def load(self, data: dict[str, Any]) -> None:
        self.seed, self.turn, self.points = data["seed"], data["turn"], data["points"]


class EchoContract(ContractBase):
    """Shows only the latest observation; reads `{"action": ID}` from the reply."""

    name = "echo"

    def __init__(self, greeting: str = "Hello.") -> None:
        self.greeting = greeting
        self.instructions = ""

    def reset(self, episode: EpisodeContext) -> None:
        self.instructions = episode.instructions

    def assemble(self, obs: Observation) -> Prompt:
        prompt = Prompt().add("instructions", "system", f"{self.greeting} {self.instructions}")
        return prompt.add("observation", "user", obs.text)

    def reply_schema(self, obs: Observation) -> dict[str, Any]:
        ids = [action.id for action in obs.legal]
        return {"type": "object", "properties": {"action": {"enum": ids}}, "required": ["action"]}

    def parse(self, completion: Completion, obs: Observation) -> Decision:
        try:
            chosen = obs.legal_action(json.loads(completion.text)["action"])
        except (ValueError, KeyError, TypeError):
            chosen = None
        if chosen is None:
            return Decision(parse_error=f"no legal action in {completion.text!r}")
        return Decision(actions=[chosen])

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None:
        return None

    def config_dict(self) -> dict[str, Any]:
        return {"greeting": self.greeting}


TERSE = Preset("echo", {"greeting": "Hi."})


class EchoModel(ModelBase):
    """Says the word in the latest message (`mode="echo"`), or always passes."""

    def __init__(self, mode: str = "echo", **options: Any) -> None:
        self.id = f"echo:{mode}"
        self.mode = mode

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def complete(self, messages, *, constraint=None, max_tokens=256, temperature=0.0, seed=None):
        word = messages[-1]["content"].rsplit(" ", 1)[-1].rstrip(".")
        action = f"say:{word}" if self.mode == "echo" else "pass"
        return Completion(text=json.dumps({"action": action}), prompt_tokens=5, model=self.id)


def make_echo_model(rest: str, **options: Any) -> EchoModel:
    return EchoModel(rest or "echo", **options)
