"""The memory designs' prompt and cost, their small protocol's games and recovery after a
perturbation, from small files."""

from __future__ import annotations

from bounded.docgen.memory_designs import (
    memory_designs_small_games,
    prompt_and_cost_by_design,
    recovery_of_embedded_games,
    recovery_of_scripted_games,
)


def test_prompt_reuse_and_cost_against_typed():
    runs = {
        "typed": [
            {"total": 1000, "decisions": 10, "max": 120, "cached": 500, "cost": 0.5},
            {"total": 3000, "decisions": 10, "max": 200, "cached": 1500, "cost": 1.5},
        ],
        "transcript": [
            {"total": 10000, "decisions": 20, "max": 900, "cached": 9000, "cost": 6.0},
        ],
    }
    assert prompt_and_cost_by_design({"runs": runs}).split("\n")[2:4] == [
        "| `typed` | 20 | 4,000 | 200 | 200 | 50.0% | 2.00 | 1.00x |",
        "| `transcript` (8k window) | 20 | 10,000 | 500 | 900 | 90.0% | 6.00 | 3.00x |",
    ]


def test_a_phase_is_marked_and_a_game_without_decisions_has_no_mean():
    phase = {
        "cell": "learn-typed", "contract": "typed", "status": "completed", "decisions": 4,
        "outcome": {"reports": 2, "correct": 1}, "model_calls": 4, "prompt_tokens": 4000,
        "last_prompt_tokens": 1100, "fallbacks": 0, "parse_errors": 1, "wall_s": 12.4,
    }  # fmt: skip
    failed = {
        "cell": "spire-typed", "contract": "typed", "status": "failed", "decisions": None,
        "outcome": {"floor": 3, "hp": 20, "max_hp": 80}, "model_calls": 0, "prompt_tokens": 0,
        "last_prompt_tokens": 0, "fallbacks": 0, "parse_errors": 0, "wall_s": 0.6,
    }  # fmt: skip
    assert memory_designs_small_games({"runs": [phase, failed]}).split("\n")[1:4] == [
        "|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|",
        "| `learn-typed` (phase) | `typed` | completed | 4 | 1/2 right | 4 | 1,000 | 1,100 | 0 "
        "| 1 | 12 |",
        "| `spire-typed` | `typed` | failed | 0 | floor 3, HP 20/80 | 0 | - | 0 | 0 | 0 | 1 |",
    ]


def perturbed(env: str, contract: str, model: str, config: dict[str, object],
              rewards: list[float], **rest: object) -> dict[str, object]:  # fmt: skip
    return {
        "env_id": f"bounded/{env}-v0", "contract": contract, "model": model,
        "contract_config": config, "rewards": rewards, "status": "completed",
        "outcome": {}, "wall_s": 5.0, **rest,
    }  # fmt: skip


RECOVERY = {
    "runs": [
        perturbed("Workbench", "state", "scripted:expert", {"perturb_at": 1, "perturb": "corrupt"},
                  [0, 0], outcome={"victory": True}),
        perturbed("Warehouse", "typed", "scripted:expert", {"perturb_at": 2}, [1, 0, 0, 1, 1],
                  wall_s=10.0),
        perturbed("Warehouse", "typed", "local", {"perturb_at": 1}, [1, 1], wall_s=3.0),
        perturbed("Warehouse", "typed", "scripted:expert", {"perturb_at": 1}, [1], status="failed"),
        perturbed("Warehouse", "typed", "scripted:expert", {}, [1]),
    ]
}  # fmt: skip


def test_recovery_of_the_scripted_games_warehouse_first():
    # warehouse: rewarded again at the 2nd decision from 2 on; 1 of 2 before, 2 of 3 after.
    # workbench: never rewarded from 1 on, the task passed; 0 of 1 before, 0 of 1 after
    assert recovery_of_scripted_games(RECOVERY).split("\n")[2:] == [
        "| warehouse | typed | wipe at 2 | 2 | 0.50 | 0.67 |",
        "| workbench | state | corrupt at 1 | never (passed) | 0.00 | 0.00 |",
        "",
        "2 games, 15 s of wall time in all. Summary written: not recorded (the file predates it).",
        "",
    ]


def test_recovery_of_the_embedded_games():
    assert recovery_of_embedded_games(RECOVERY).split("\n")[2:4] == [
        "| warehouse | typed | wipe at 1 | 1 | 1.00 | 1.00 |",
        "",
    ]
    assert "\n1 game, 3 s of wall time in all." in recovery_of_embedded_games(RECOVERY)
