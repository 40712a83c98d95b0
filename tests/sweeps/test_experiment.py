import pytest

from bounded.core import ConfigError
from bounded.sweeps.experiment import load_experiment, parse_experiment

BASE = {
    "experiment": {"name": "e"},
    "defaults": {"env": "warehouse", "model": "local", "games": 2},
    "cells": [
        {"tag": "state", "contract": "state"},
        {"tag": "transcript", "contract": "transcript"},
    ],
}


def test_plan_crosses_cells_matrix_and_seeds():
    data = BASE | {"matrix": {"horizon": [5, 10]}}
    plan = parse_experiment(data).plan()
    assert len(plan) == 2 * 2 * 2
    cells = {spec.cell for spec in plan}
    assert cells == {
        "state[horizon=5]",
        "state[horizon=10]",
        "transcript[horizon=5]",
        "transcript[horizon=10]",
    }
    first = plan[0]
    assert (first.tag, first.contract, first.env_options, first.seed) == (
        "state",
        "state",
        {"horizon": 5},
        1,
    )
    assert len({spec.key for spec in plan}) == len(plan)


def test_cell_settings_override_defaults_and_seeds_replace_games():
    data = BASE | {
        "defaults": BASE["defaults"] | {"env_options": {"horizon": 7}, "max_tokens": 64},
        "cells": [
            {"tag": "s", "contract": "state", "seeds": [11, 12, 13], "env_options": {"horizon": 3}}
        ],
    }
    plan = parse_experiment(data).plan()
    assert [spec.seed for spec in plan] == [11, 12, 13]
    assert plan[0].env_options == {"horizon": 3} and plan[0].max_tokens == 64


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"cells": [{"contract": "state"}]}, "cells.0.tag"),
        ({"defaults": {"env": "warehouse", "model": "local", "gmaes": 2}}, "defaults.gmaes"),
        ({"defaults": {"games": 0}}, "defaults.games"),
        ({"experiment": {}}, "experiment.name"),
        ({"cells": []}, "cells"),
        (
            {"prices": {"local": {"input": -1, "cached_input": 0, "output": 0}}},
            "prices.local.input",
        ),
        ({"prices": {"local": {"input": 1, "cached_input": 0}}}, "prices.local.output"),
    ],
)
def test_errors_name_the_field(change, field):
    with pytest.raises(ConfigError, match=rf"x\.toml: {field}\b"):
        parse_experiment(BASE | change, source="x.toml")


def test_duplicate_cells_and_missing_model_are_refused():
    with pytest.raises(ConfigError, match="repeated: state"):
        parse_experiment(BASE | {"cells": [{"tag": "state"}, {"tag": "state"}]})
    data = BASE | {"defaults": {"env": "warehouse"}}
    with pytest.raises(ConfigError, match="no contract, model"):
        parse_experiment(data | {"cells": [{"tag": "x"}]}).plan()


def test_toml_file_resolves_scripted_model_beside_it(tmp_path):
    (tmp_path / "replies.jsonl").write_text("{}\n")
    path = tmp_path / "exp.toml"
    path.write_text(
        '[experiment]\nname = "t"\n[defaults]\nenv = "warehouse"\n'
        'model = "scripted:replies.jsonl"\n'
        '[[cells]]\ntag = "a"\ncontract = "state"\n'
    )
    experiment = load_experiment(path)
    assert experiment.plan()[0].model == f"scripted:{tmp_path / 'replies.jsonl'}"
    assert str(experiment.archive) == "runs/t.sqlite"


def test_bad_toml_and_missing_file_are_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_experiment(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[experiment\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_experiment(bad)


def test_shipped_example_experiments_validate():
    from pathlib import Path

    files = sorted((Path(__file__).parents[2] / "experiments").glob("*.toml"))
    assert files
    for path in files:
        assert load_experiment(path).plan(), path


def test_an_experiment_file_carries_prices_for_the_analysis(tmp_path):
    from bounded.analysis.cost import cost_model

    path = tmp_path / "priced.toml"
    path.write_text(
        '[experiment]\nname = "p"\n[defaults]\nenv = "warehouse"\nmodel = "local"\n'
        '[[cells]]\ntag = "state"\ncontract = "state"\n'
        "[prices.local]\ninput = 0.5\ncached_input = 0.05\noutput = 2\n"
    )
    experiment = load_experiment(path)
    assert experiment.spec.prices["local"].cached_input == 0.05
    assert cost_model(files=[path]).prices("local") == experiment.spec.prices["local"]


def test_a_cells_reasoning_cap_becomes_its_contracts_setting():
    data = BASE | {
        "defaults": BASE["defaults"] | {"reasoning_chars": 300},
        "cells": [
            {"tag": "capped", "contract": "state"},
            {"tag": "free", "contract": "state", "reasoning_chars": "none"},
            {"tag": "own", "contract": "state", "reasoning_chars": "model"},
        ],
    }
    caps = {
        spec.tag: spec.contract_config["reasoning_chars"] for spec in parse_experiment(data).plan()
    }
    assert caps == {"capped": 300, "free": None, "own": "model"}
    plain = {spec.tag: spec.contract_config for spec in parse_experiment(BASE).plan()}
    assert all("reasoning_chars" not in config for config in plain.values())


def test_a_cells_reply_mode_becomes_its_contracts_setting():
    data = BASE | {
        "defaults": BASE["defaults"] | {"reply": "constrained"},
        "cells": [
            {"tag": "pinned", "contract": "state", "contract_config": {"fallback": "no-op"}},
            {"tag": "paper", "contract": "state", "reply": "text"},
        ],
    }
    configs = {spec.tag: spec.contract_config for spec in parse_experiment(data).plan()}
    assert configs == {"pinned": {"fallback": "no-op", "reply": "constrained"},
                       "paper": {"reply": "text"}}  # fmt: skip


PAPER_FILES = {
    "epicstar_paper.toml", "epicstar_paper_small.toml", "babyai.toml", "nethack.toml",
    "balrog.toml", "balrog_small.toml", "memory_designs.toml", "memory_designs_small.toml",
}  # fmt: skip
"""The files that play the papers' protocols: every cell in free text (each method's own
reply, and one mode for every cell)."""


def test_paper_files_play_in_text_and_the_others_in_the_modes_their_games_were_played_in(
    monkeypatch,
):
    """The paper files play every cell in `text` (SKILL.state, CoS, EpicStar and BALROG's
    agents reply in free text); the other shipped files pin their cells to `constrained`,
    the mode their games (and the numbers docs/ reports) were played in, but for BALROG's
    agents, which played in `text` before."""
    from pathlib import Path

    from bounded.contracts import make_contract
    from bounded.contracts.episodic import EpisodicContract

    monkeypatch.setattr(EpisodicContract, "_load_file", lambda self, path: None)  # no banks
    for path in sorted((Path(__file__).parents[2] / "experiments").glob("*.toml")):
        for spec in load_experiment(path).plan():
            mode = make_contract(spec.contract, spec.contract_config).reply_mode
            papers = path.name in PAPER_FILES or spec.contract.startswith("balrog-")
            assert mode == ("text" if papers else "constrained"), (path.name, spec.cell)


@pytest.mark.parametrize("bad", [0, "lots"])
def test_a_bad_reasoning_cap_names_the_field(bad):
    data = BASE | {"cells": [{"tag": "s", "contract": "state", "reasoning_chars": bad}]}
    with pytest.raises(ConfigError, match=r"cells\.0\.reasoning_chars"):
        parse_experiment(data)
