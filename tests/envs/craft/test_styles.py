"""The five AI styles produce visibly different compositions and timings (seen in `state`)."""

import pytest

from bounded.envs.craft import STYLES, CraftEnv, CraftExpert

WATCHED = ("mutalisk", "corruptor", "base_count", "zergling", "roach", "hydralisk", "drone")


def _watch(style: str, seed: int) -> tuple[float | None, dict[str, int]]:
    env = CraftEnv(level=5, style=style)
    expert = CraftExpert()
    obs, _ = env.reset(seed=seed)
    first_attack: float | None = None
    peak = dict.fromkeys(WATCHED, 0)
    while obs.t < 540 and env.world.outcome is None:
        obs, *_ = env.step(expert.act(obs))
        if first_attack is None and "The enemy attacks" in obs.text:
            first_attack = obs.t
        for key in WATCHED:
            peak[key] = max(peak[key], obs.state[f"enemy_{key}"])
    return first_attack, peak


@pytest.mark.parametrize("seed", [0, 1])
def test_styles_differ_in_timing_and_composition(seed):
    seen = {style: _watch(style, seed) for style in STYLES}
    attack = {style: first for style, (first, _) in seen.items() if first is not None}
    peak = {style: p for style, (_, p) in seen.items()}
    assert set(attack) == set(STYLES)
    assert attack["rush"] < attack["power"] and attack["rush"] < attack["air"]
    assert peak["air"]["mutalisk"] > 0
    assert all(peak[s]["mutalisk"] + peak[s]["corruptor"] == 0 for s in ("rush", "timing", "macro"))
    assert peak["power"]["base_count"] >= 3 and peak["macro"]["base_count"] >= 3
    assert peak["rush"]["base_count"] <= 2
    assert peak["macro"]["hydralisk"] > 0 and peak["rush"]["hydralisk"] <= 2
    assert peak["macro"]["drone"] > peak["rush"]["drone"]
