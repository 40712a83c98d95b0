"""`bounded/TextWorld-v0`: BALROG's three TextWorld games generated offline from a seed,
as text, with BALROG's observation options, step limit and progression (score / max
score), and a walkthrough-following scripted player; `presentation="balrog"` plays
BALROG's own game pool (shipped) with BALROG's text, prompt and free commands."""

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
