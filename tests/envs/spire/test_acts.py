import pytest

from bounded.core import ConfigError
from bounded.envs import make
from bounded.envs.spire import SpireExpert


def play(env, seed):
    obs, _ = env.reset(seed=seed)
    expert, done = SpireExpert(), False
    while not done:
        obs, _, terminated, truncated, _ = env.step(expert.act(obs))
        done = terminated or truncated
    return env.metrics()


def test_a_one_act_game_ends_at_the_first_boss_and_matches_the_full_game_until_then():
    short = play(make("spire", acts=1), seed=1)
    assert short["act"] == 1 and short["floor"] <= 16
    if short["victory"]:
        assert short["bosses_beaten"] == 1 and short["floor"] == 16
    full = make("spire")
    obs, _ = full.reset(seed=1)
    expert = SpireExpert()
    for _ in range(short["decisions"] - 1):
        obs, *_ = full.step(expert.act(obs))
    assert full.metrics()["floor"] == short["floor"]


@pytest.mark.parametrize("acts", [0, 4])
def test_acts_outside_one_to_three_are_refused(acts):
    with pytest.raises(ConfigError, match="bad options for spire"):
        make("spire", acts=acts)
