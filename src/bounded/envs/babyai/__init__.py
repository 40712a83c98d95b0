"""`bounded/BabyAI-v0`: minigrid's BabyAI levels as text, with BALROG's actions and success
metric, and minigrid's bot as a scripted player."""

from bounded.envs.babyai.env import ACTIONS, TASKS, BabyAIConfig, BabyAIEnv
from bounded.envs.babyai.expert import BabyAIExpert

__all__ = ["ACTIONS", "TASKS", "BabyAIConfig", "BabyAIEnv", "BabyAIExpert"]
