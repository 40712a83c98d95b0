"""`bounded/NetHack-v0`: NetHack through NLE (`NetHackChallenge-v0`'s settings, seeded), as
text, with BALROG's action vocabulary and progression metric and an explore-and-descend
scripted player."""

from bounded.envs.nethack.env import NetHackConfig, NetHackEnv
from bounded.envs.nethack.expert import NetHackExpert

__all__ = ["NetHackConfig", "NetHackEnv", "NetHackExpert"]
