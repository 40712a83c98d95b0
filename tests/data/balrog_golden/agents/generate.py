"""Record what BALROG's own agents send and execute on a 20-reply BabyAI game (golden
fixture for `tests/contracts/test_balrog_agents.py`).

Not run by the tests: it needs BALROG's source and the packages its agents, client and
evaluator import (README.md here says which). Run it with that environment's Python:

    PYTHONPATH=/path/to/BALROG python generate.py --config /path/to/BALROG/balrog/config/config.yaml

For each of BALROG's four agents (`naive`, `cot`, `robust_naive`, `robust_cot`) it runs
BALROG's `Evaluator.run_episode` as BALROG's `config.yaml` sets it up (the agent made by
BALROG's `AgentFactory`, its `HistoryPromptBuilder`, BALROG's `OpenAIWrapper`), with two
stand-ins: the OpenAI SDK's client inside `OpenAIWrapper` answers each request with the
next reply of `REPLIES` and records the request, and the environment replays a BabyAI
episode recorded from BALROG's own BabyAI wrapper (`../babyai/episodes.json.gz`, task goto,
seed 4): each step returns that episode's next observation, after checking that the action
BALROG's `check_action_validity` let through is the one the recording played (the replies
are written so that it is). It writes `agents.json.gz`: per agent the replies, every
request's messages (role and text, as BALROG's client sends them), the executed actions,
and the episode file BALROG's evaluator wrote with its path under the results folder.
"""

from __future__ import annotations

import argparse
import copy
import gzip
import json
import os
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import balrog.evaluator as evaluator_module
import gymnasium
from balrog.agents import AgentFactory
from balrog.environments.env_wrapper import EnvWrapper
from omegaconf import OmegaConf

HERE = Path(__file__).parent
TASK = "BabyAI-MixedTrainLocal-v0/goto"
SEED = 4
STEPS = 20
VOCABULARY = ("turn left", "turn right", "go forward", "pick up", "drop", "toggle")

# The recording's played actions at steps 0-19 (goto, seed 4):
# turn left, pick up, turn left, go forward, turn left, drop, turn right, go forward,
# turn left, go forward, turn right, go forward, toggle, go forward, drop, pick up,
# turn right, go forward, drop, turn left. At the `go forward` steps (3, 7, 9, 11, 13, 17)
# a reply may name no valid action (BALROG's default action is `go forward`).
REPLIES: dict[str, list[str]] = {
    "naive": [
        "turn left", "pick up\n", "  turn left", "take one step forward",  # a label
        "turn left.", "drop", "turn right\n\n", "turn to the left",  # a label
        "turn left", "...", "turn right!", "go forward\n",  # "..." names nothing
        "toggle", "42", "drop", "pick up.", "turn right", "go forward", "drop", "turn left",
    ],
    "cot": [
        "The key is to my left.\nACTION: turn left",
        "Something may be below me.\nACTION: pick up",
        "Turn back.\nACTION: turn left\n",
        "Step ahead.\nACTION: take one step forward",  # a label
        "ACTION: turn left",
        "I hold nothing, but try.\nACTION: drop",
        "Face right.\n\nACTION: turn right",
        "ACTION: turn to the left",  # a label
        "Left again.\nACTION: turn left",
        "I am not sure.\nACTION: 3",  # names nothing
        "ACTION: turn right",
        "  The path is clear.\nACTION: go forward  ",
        "Something is in front of me.\nACTION: toggle",
        "ACTION: ???",  # names nothing
        "ACTION: drop",
        "Maybe an object here.\nACTION: pick up",
        "ACTION: turn right",
        "Forward now.\nACTION: go forward",
        "ACTION: drop.",
        "Back to the left.\nACTION: turn left",
    ],
    "robust_naive": [
        "<|ACTION|>turn left<|END|>", "<|ACTION|> pick up <|END|>\n", "turn left\n",
        "<|ACTION|>take one step forward<|END|>",  # a label
        "<|ACTION|>turn left<|END|>", "drop", "<|ACTION|>turn right<|END|>",
        "<|ACTION|>turn to the left<|END|>",  # a label
        "<|ACTION|>turn left<|END|>", "<|ACTION|> <|END|>",  # names nothing
        "<|ACTION|>turn right<|END|>", "<|ACTION|>go forward<|END|>", "toggle",
        "<|ACTION|>\n<|END|>",  # names nothing
        "<|ACTION|>drop<|END|>", "<|ACTION|>pick up<|END|> then drop",
        "  <|ACTION|>turn right<|END|>", "go forward", "<|ACTION|>drop<|END|>",
        "<|ACTION|>turn left<|END|>",
    ],
    "robust_cot": [
        "The key is left.\n<|ACTION|>turn left<|END|>",
        "Check below.\n<|ACTION|>pick up<|END|>",
        "<|ACTION|>turn left<|END|>\n",
        "Step ahead: take one step forward",  # no tag: BALROG's placeholder
        "Turn.\n<|ACTION|>turn left<|END|>",
        "Drop it.\n<|ACTION|> drop <|END|>",
        "<|ACTION|>turn right<|END|>",
        "Left.\n<|ACTION|>turn to the left<|END|>",  # a label
        "<|ACTION|>turn left<|END|>",
        "Unsure.\n<|ACTION|><|END|>",  # names nothing
        "<|ACTION|>turn right<|END|>",
        "Clear path.\n<|ACTION|>go forward<|END|>",
        "<|ACTION|>toggle<|END|>",
        "Hmm.\n<|ACTION|>\n<|END|>",  # names nothing
        "<|ACTION|>drop<|END|>",
        "<|ACTION|>pick up<|END|>",
        "<|ACTION|>turn right<|END|>",
        "Forward.\n<|ACTION|>go forward<|END|>",
        "<|ACTION|>drop<|END|>",
        "<|ACTION|>turn left<|END|>",
    ],
}  # fmt: skip


def recorded_episode() -> dict[str, Any]:
    recorded = (HERE.parent / "babyai" / "episodes.json.gz").read_bytes()
    episodes = json.loads(gzip.decompress(recorded))
    return next(e for e in episodes if e["task"] == TASK and e["seed"] == SEED)


class ReplayedBabyAI(gymnasium.Env):
    """BALROG's BabyAI episode as recorded: the next observation at each step, after
    checking that the action let through is the recorded one."""

    def __init__(self, episode: dict[str, Any]) -> None:
        self.episode = episode
        self.language_action_space = list(VOCABULARY)
        self.default_action = "go forward"
        self.max_steps = episode["max_steps"]
        self.played: list[str] = []

    def _obs(self, record: dict[str, Any]) -> dict[str, Any]:
        text = {"long_term_context": record["long_term_context"],
                "short_term_context": record["short_term_context"]}  # fmt: skip
        return {"text": text, "image": None, "mission": self.episode["mission"]}

    def reset(self, *, seed=None, options=None):
        self.played = []
        return self._obs(self.episode["reset"]), {}

    def step(self, action):
        index = len(self.played)
        step = self.episode["steps"][index]
        if action != step["played"]:
            wanted = step["played"]
            raise AssertionError(f"step {index}: BALROG ran {action!r}, the recording {wanted!r}")
        self.played.append(action)
        return self._obs(step), step["reward"], step["terminated"], step["truncated"], {}

    def get_stats(self) -> dict[str, Any]:
        return dict(self.episode["reset"]["stats"])


class RecordedEnv(EnvWrapper):
    def get_instruction_prompt(self, instructions=None):
        return self.env.episode["instruction"]


class ScriptedSDK:
    """The OpenAI SDK's client as `OpenAIWrapper` calls it: `chat.completions.create`."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.requests: list[list[dict[str, str]]] = []
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self.create))

    def create(self, *, messages, model, max_tokens, temperature=None):
        sent = [{"role": m["role"], "content": "".join(p["text"] for p in m["content"])}
                for m in messages]  # fmt: skip
        self.requests.append(copy.deepcopy(sent))
        reply = self.replies[len(self.requests) - 1]
        message = SimpleNamespace(content=reply)
        usage = SimpleNamespace(prompt_tokens=100, completion_tokens=10)
        return SimpleNamespace(choices=[SimpleNamespace(message=message, finish_reason="stop")],
                               usage=usage)  # fmt: skip


def play(config_path: Path, agent_type: str) -> dict[str, Any]:
    config = OmegaConf.load(config_path)
    config.agent.type = agent_type
    config.envs.names = "babyai"
    config.envs.env_kwargs.seed = SEED
    config.eval.max_steps_per_episode = STEPS
    config.eval.num_workers = 1
    episode = recorded_episode()
    env = ReplayedBabyAI(episode)
    evaluator_module.make_env = lambda env_name, task, cfg: RecordedEnv(env, env_name, task)
    agent = AgentFactory(config).create_agent()
    sdk = ScriptedSDK(REPLIES[agent_type])
    agent.client._initialized, agent.client.client = True, sdk
    with tempfile.TemporaryDirectory() as out:
        evaluator = evaluator_module.Evaluator("babyai", config, output_dir=out)
        evaluator.run_episode(TASK, agent, episode_idx=0)
        [path] = [p for p in Path(out).rglob("*.json")]
        written = json.loads(path.read_text())
        where = path.relative_to(out).as_posix()
    return {"replies": REPLIES[agent_type], "requests": sdk.requests, "played": env.played,
            "episode_file": written, "episode_path": where}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=HERE)
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "unused")
    record = {
        "task": TASK, "seed": SEED, "steps": STEPS,
        "agents": {agent: play(args.config, agent) for agent in REPLIES},
    }  # fmt: skip
    data = json.dumps(record, indent=1, sort_keys=True).encode()
    (args.out / "agents.json.gz").write_bytes(gzip.compress(data, mtime=0))


if __name__ == "__main__":
    main()
