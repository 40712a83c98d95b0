"""Random legal play (hypothesis): never crashes, never breaks an invariant."""

from hypothesis import given, settings
from hypothesis import strategies as st

from bounded.envs.craft import STYLES, CraftEnv


def _check(state: dict, previous_used: int) -> None:
    assert state["minerals"] >= 0 and state["gas"] >= 0
    assert 0 <= state["supply_cap"] <= 200
    assert state["supply_used"] <= max(state["supply_cap"], previous_used)
    assert state["supply_used"] >= state["worker_supply"] >= 0
    assert state["mineral_workers"] + state["gas_workers"] <= state["worker_supply"]
    counts = [
        v
        for k, v in state.items()
        if k.endswith("_count") or (k.startswith("enemy_") and k != "enemy_seen_at")
    ]
    assert all(v >= 0 for v in counts if isinstance(v, int))
    for key in [k for k in state if k.endswith("_done")]:
        assert state[key] in (0, 1)
        assert not (state[key] and state[key.replace("_done", "_researching")])


@settings(max_examples=20)
@given(
    seed=st.integers(0, 2**31 - 1),
    level=st.integers(1, 10),
    style=st.sampled_from(STYLES),
    picks=st.lists(
        st.lists(st.integers(0, 10_000), min_size=1, max_size=5), min_size=10, max_size=40
    ),
)
def test_random_legal_play_keeps_invariants(seed, level, style, picks):
    env = CraftEnv(level=level, style=style, decision_interval=15.0)
    obs, _ = env.reset(seed=seed)
    used = obs.state["supply_used"]
    for choice in picks:
        if not obs.legal:
            break
        plan = [obs.legal[i % len(obs.legal)] for i in choice]
        obs, _, terminated, truncated, info = env.step(plan)
        assert len(info["actions"]) == len(plan)
        assert all(a["ok"] or a["reason"] for a in info["actions"])
        _check(obs.state, used)
        used = obs.state["supply_used"]
        assert obs.t == obs.state["game_time"] or obs.t - obs.state["game_time"] < 1
        if terminated or truncated:
            assert not obs.legal
            break
