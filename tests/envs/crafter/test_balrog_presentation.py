"""`presentation="balrog"`: bounded's Crafter replays the golden episodes recorded from
BALROG's own Crafter wrapper (`tests/data/balrog_golden/crafter/`) and must show the same
instruction prompt, texts and vocabulary, and give the same rewards, progression and
episode end, at every step.

Each seed was recorded twice. `creation` ran Crafter with its despawn draw in creation
order, as bounded does: equal throughout. `shipped` ran Crafter as it ships, whose draw
follows memory addresses: equal up to the step before `despawn_differs_at`, the first
step at which that draw removed another creature than creation order would have.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from bounded.core import Action, ConfigError
from bounded.envs import make
from bounded.envs.crafter import CrafterEnv

GOLDEN = Path(__file__).parents[2] / "data" / "balrog_golden" / "crafter" / "episodes.json.gz"
EPISODES: list[dict[str, Any]] = json.loads(gzip.decompress(GOLDEN.read_bytes()))


def seen(env: CrafterEnv, obs: Any, reward: float, terminated: bool, truncated: bool) -> dict:
    """One step as the golden record holds it, read from bounded's env."""
    metrics = env.metrics()
    return {
        "long_term_context": obs.history_text,
        "short_term_context": obs.current_only_text.removesuffix("\n"),
        "reward": reward,
        "terminated": terminated,
        "truncated": truncated,
        "score": float(metrics["score"]),
        "progression": metrics["progression"],
        "unlocked": sorted(metrics["achievements"]),
    }


def recorded(step: dict) -> dict:
    stats = step["stats"]
    counts = stats["achievements"] or {}
    return {
        "long_term_context": step["long_term_context"],
        "short_term_context": step["short_term_context"],
        "reward": step.get("reward", 0.0),
        "terminated": step.get("terminated", False),
        "truncated": step.get("truncated", False),
        "score": stats["score"],
        "progression": stats["progression"],
        "unlocked": sorted(name for name, count in counts.items() if count > 0),
    }


def play(record: dict) -> tuple[CrafterEnv, list[dict]]:
    """bounded's run of the recorded actions: the reset, then one entry per step."""
    env = make("crafter", presentation="balrog")
    assert isinstance(env, CrafterEnv)
    obs, _ = env.reset(seed=record["seed"])
    steps = [seen(env, obs, 0.0, False, False)]
    vocabulary = record["creation"]["legal"]
    assert [a.id for a in obs.legal] == vocabulary
    for step in record["creation"]["steps"]:
        obs, reward, terminated, truncated, _ = env.step(Action(id=step["played"]))
        steps.append(seen(env, obs, reward, terminated, truncated))
        if not (terminated or truncated):
            assert [a.id for a in obs.legal] == vocabulary
    return env, steps


@pytest.mark.parametrize("record", EPISODES, ids=lambda r: f"seed{r['seed']}")
def test_the_golden_episode_step_by_step(record: dict) -> None:
    env, steps = play(record)
    creation, shipped = record["creation"], record["shipped"]
    assert env.instructions == creation["instruction"] == shipped["instruction"]
    assert env.config.max_steps == creation["max_steps"]
    expected = [recorded(s) for s in [creation["reset"], *creation["steps"]]]
    for index, (ours, theirs) in enumerate(zip(steps, expected, strict=True)):
        assert ours == theirs, f"step {index}"
    differs_at = shipped["despawn_differs_at"] or len(shipped["steps"]) + 1
    same = [recorded(s) for s in [shipped["reset"], *shipped["steps"]][:differs_at]]
    assert steps[: len(same)] == same


def test_the_records_cover_long_episodes_and_the_despawn_difference() -> None:
    lengths = [len(r["creation"]["steps"]) for r in EPISODES]
    assert len(EPISODES) >= 5 and max(lengths) == 200
    assert all(r["shipped"]["despawn_differs_at"] for r in EPISODES)
    assert any(s["played"] != s["action"] for r in EPISODES for s in r["creation"]["steps"])


def test_an_unknown_presentation_is_refused_in_one_line() -> None:
    with pytest.raises(ConfigError, match="presentation: one of bounded, balrog") as info:
        make("crafter", presentation="smartplay")
    assert "\n" not in str(info.value)


def test_the_balrog_presentation_survives_save_and_load() -> None:
    env = make("crafter", presentation="balrog")
    env.reset(seed=2)
    for name in ("Move East", "Do", "Move North", "Noop"):
        obs, *_ = env.step(Action(id=name))
    saved = env.save()
    again = make("crafter")
    again.load(saved)
    assert isinstance(again, CrafterEnv) and again.presentation == "balrog"
    assert again.save() == saved and again._observe() == env._observe() and obs.text
    assert again.instructions == env.instructions
    assert make("crafter").presentation == "bounded"
