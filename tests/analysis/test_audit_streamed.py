"""The audit gathered a chunk of decisions and a run at a time equals the audit computed
from every decision held in a list: the fits by scipy's least squares, the transcript
counterfactual and the costs by numpy over the whole arrays."""

import numpy as np
import pytest
from scipy import stats

from bounded.analysis.audit import (
    OBSERVATION_LAYERS,
    audit_run,
    audited_decisions,
    context_audit,
)
from bounded.analysis.cost import CostModel, Prices
from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.envs import make
from bounded.envs.warehouse import state_keeping_reply
from bounded.runner import run_episode

from .conftest import CONSTANT, PrefixCachingModel

PRICES = Prices(input=3.0, cached_input=0.3, output=15.0)
CHUNK = 4
"""Decisions read at a time: smaller than a game, so every game is read in several."""


@pytest.fixture(scope="module")
def archive_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("streamed") / "s.sqlite"
    with Archive(path) as archive:
        for seed in (1, 2, 3):
            for contract, reply in (("state", state_keeping_reply), ("transcript", [CONSTANT])):
                run_episode(
                    make("warehouse", horizon=7 + seed), make_contract(contract),
                    PrefixCachingModel(reply, cycle=True), seed=seed, env_id="bounded/Warehouse-v0",
                    tag=contract, archive=archive,
                )  # fmt: skip
    return path


@pytest.fixture
def small_chunks(monkeypatch):
    import bounded.analysis.audit
    import bounded.archive.sqlite

    monkeypatch.setattr(bounded.archive.sqlite, "DECISIONS_PER_READ", CHUNK)
    monkeypatch.setattr(bounded.analysis.audit, "DECISIONS_PER_READ", CHUNK)


def whole_run(records):
    """A run's arrays, from the list of its decisions."""
    index = np.array([r.index for r in records])
    prompt = np.array([sum(r.tokens_by_layer.values()) for r in records])
    observed = np.array(
        [sum(r.tokens_by_layer.get(x, 0) for x in OBSERVATION_LAYERS) for r in records]
    )
    output = np.array([r.completion.completion_tokens for r in records])
    cached = np.array([r.completion.cached_tokens for r in records])
    # the transcript: the first prompt, then each observation and the previous reply added
    steps = np.concatenate([[prompt[0]], observed[1:] + output[:-1]])
    shadow = np.cumsum(steps)
    return index, prompt, output, cached, shadow


def test_a_run_read_in_chunks_without_its_points_equals_the_whole_list(archive_path, small_chunks):
    costs = CostModel(models={"local:prefix": PRICES})
    with Archive(archive_path, read_only=True) as archive:
        runs = archive.runs()
        for run in runs:
            records = archive.decisions(run.run_id)
            decisions = audited_decisions(archive, run.run_id)  # segments where cached only
            streamed = audit_run(run, decisions, costs, keep_points=False)
            listed = audit_run(run, records, costs)
            index, prompt, output, cached, shadow = whole_run(records)
            fit = stats.linregress(index, prompt)
            shadow_fit = stats.linregress(index, shadow)
            assert streamed.points == [] and len(listed.points) == len(records)
            assert streamed.model_dump(exclude={"points"}) == listed.model_dump(exclude={"points"})
            assert streamed.slope == pytest.approx(fit.slope, abs=1e-9)
            assert streamed.intercept == pytest.approx(fit.intercept, abs=1e-9)
            assert streamed.counterfactual_slope == pytest.approx(shadow_fit.slope, abs=1e-9)
            assert (streamed.first_prompt, streamed.last_prompt) == (prompt[0], prompt[-1])
            assert (streamed.max_prompt, streamed.total_prompt) == (prompt.max(), prompt.sum())
            assert streamed.counterfactual_total == shadow.sum()
            assert streamed.counterfactual_last == shadow[-1]
            assert streamed.counterfactual_cached == shadow[:-1].sum()
            assert streamed.total_cached == cached.sum() > 0
            assert streamed.total_fresh == prompt.sum() - cached.sum() + output.sum()
            cost = (PRICES.input * (prompt - cached) + PRICES.cached_input * cached
                    + PRICES.output * output).sum() / 1e6  # fmt: skip
            previous = np.concatenate([[0], shadow[:-1]])
            shadow_cost = (PRICES.input * (shadow - previous) + PRICES.cached_input * previous
                           + PRICES.output * output).sum() / 1e6  # fmt: skip
            assert streamed.cost == pytest.approx(cost, rel=1e-12)
            assert streamed.counterfactual_cost == pytest.approx(shadow_cost, rel=1e-12)
            assert sum(streamed.layer_tokens.values()) == prompt.sum()


def test_the_contracts_gathered_run_by_run_equal_the_fit_over_every_decision(
    archive_path, small_chunks
):
    costs = CostModel(models={"local:prefix": PRICES})
    with Archive(archive_path, read_only=True) as archive:
        listed = context_audit(archive, archive.runs(), costs)
        streamed = context_audit(
            archive, iter(archive.runs()), costs, keep_points=False, keep_runs=False
        )
        by_contract = {}
        for run in archive.runs():
            by_contract.setdefault(run.contract, []).append(archive.decisions(run.run_id))
    assert [c.model_dump() for c in streamed.contracts] == [
        c.model_dump() for c in listed.contracts
    ]
    assert streamed.runs == []  # no run's tokens are flagged: none is kept
    for contract in streamed.contracts:
        games = by_contract[contract.contract]
        index = np.concatenate([[r.index for r in game] for game in games])
        fit = stats.linregress(index, np.concatenate([whole_run(g)[1] for g in games]))
        assert contract.slope == pytest.approx(fit.slope, abs=1e-9)
        for layer, slope in contract.layer_slopes.items():
            tokens = [r.tokens_by_layer.get(layer, 0) for game in games for r in game]
            assert slope == pytest.approx(stats.linregress(index, tokens).slope, abs=1e-9)
        shadows = np.concatenate([whole_run(g)[4] for g in games])
        prompts = np.concatenate([whole_run(g)[1] for g in games])
        assert contract.savings == pytest.approx(1 - prompts.sum() / shadows.sum(), rel=1e-12)
        assert contract.mean_last_prompt == pytest.approx(
            np.mean([whole_run(g)[1][-1] for g in games])
        )
        assert contract.decisions == len(index)
        first = next(iter(contract.layer_slopes))  # the layer a prefix cache serves
        tokens, cached = contract.layer_tokens(first)
        assert tokens == sum(r.tokens_by_layer.get(first, 0) for g in games for r in g)
        assert 0 < cached < tokens
