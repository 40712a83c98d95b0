"""`bounded/Craft-v0`: a text real-time-strategy macro game (Protoss vs a Zerg-like built-in AI)."""

from bounded.envs.craft.actions import ACTION_DICTIONARY, ACTION_NAMES
from bounded.envs.craft.env import CraftConfig, CraftEnv
from bounded.envs.craft.expert import CraftExpert
from bounded.envs.craft.maps import MAPS
from bounded.envs.craft.zerg import LEVELS, STYLES

__all__ = [
    "ACTION_DICTIONARY",
    "ACTION_NAMES",
    "LEVELS",
    "MAPS",
    "STYLES",
    "CraftConfig",
    "CraftEnv",
    "CraftExpert",
]
