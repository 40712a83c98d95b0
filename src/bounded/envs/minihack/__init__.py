"""`bounded/MiniHack-v0`: BALROG's offline MiniHack tasks (MazeWalk, Corridor,
CorridorBattle, Quest) as NetHack text, with BALROG's step limit and success metric, and
NetHack's explorer as a scripted player."""

from bounded.envs.minihack.env import NEEDS_DOWNLOAD, TASKS, MiniHackConfig, MiniHackEnv
from bounded.envs.minihack.expert import MiniHackExpert

__all__ = ["NEEDS_DOWNLOAD", "TASKS", "MiniHackConfig", "MiniHackEnv", "MiniHackExpert"]
