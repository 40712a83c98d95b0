"""The sentence on the committed game of `bounded demo --full`'s kind, from a small summary."""

from __future__ import annotations

from bounded.docgen.quickstart import quickstart_game_sentence


def test_reuse_and_time_per_decision_of_the_committed_whole_game():
    run = {
        "spec": {"env": "spire"}, "contract": "typed", "seed": 1, "model": "local",
        "decisions": 10, "outcome": {"ended_by": "death", "floor": 3},
        "cached_tokens": 900, "prompt_tokens": 1000, "wall_s": 25.0,
    }  # fmt: skip
    assert quickstart_game_sentence({"runs": [run], "provenance": {"cpus": 2}}) == (
        "The committed game of `bounded demo --full`'s kind (`spire` Act 1 under `typed`, "
        "seed 1, on `local`, "
        "10 decisions, ended by `death` on floor 3): llama.cpp reused **90.0%** of the prompt "
        "tokens (900 cached of 1,000), and the game took 25 s, **2.5 s per decision** on 2 "
        "shared cores (played by `bench/embedded_speed.py`, whose file has the load).\n"
    )
