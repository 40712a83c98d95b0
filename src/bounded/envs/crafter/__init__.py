"""`bounded/Crafter-v0`: Crafter as text, with BALROG's settings, actions and progression
(achievements unlocked / 22), and a tech-tree scripted player."""

from bounded.envs.crafter.env import ACHIEVEMENTS, ACTIONS, CrafterConfig, CrafterEnv
from bounded.envs.crafter.expert import CrafterExpert

__all__ = ["ACHIEVEMENTS", "ACTIONS", "CrafterConfig", "CrafterEnv", "CrafterExpert"]
