"""`bounded/TextWorld-v0`: BALROG's three TextWorld games generated offline from a seed,
as text, with BALROG's observation options, step limit and progression (score / max
score), and a walkthrough-following scripted player."""

from bounded.envs.textworld.env import FREE_TEXT, TextWorldConfig, TextWorldEnv
from bounded.envs.textworld.expert import TextWorldExpert
from bounded.envs.textworld.games import BALROG_SETTINGS, CHALLENGES

__all__ = [
    "BALROG_SETTINGS",
    "CHALLENGES",
    "FREE_TEXT",
    "TextWorldConfig",
    "TextWorldEnv",
    "TextWorldExpert",
]
