import pytest

from bounded.analysis.audit import context_audit
from bounded.analysis.cost import CostModel, Prices
from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.core import ConfigError
from bounded.envs import make
from bounded.envs.warehouse import state_keeping_reply as honest_reply
from bounded.models.scripted import ScriptedModel
from bounded.runner import run_episode

from .conftest import PrefixCachingModel


def test_audit_separates_growing_and_flat_contracts(warehouse_archive):
    with Archive(warehouse_archive) as archive:
        audit = context_audit(archive, archive.runs())
    by_contract = {c.contract: c for c in audit.contracts}
    assert set(by_contract) == {"state", "transcript"}
    state, transcript = by_contract["state"], by_contract["transcript"]
    assert state.runs == transcript.runs == 2
    assert abs(state.slope) < 1.0
    assert transcript.slope > 10
    assert state.savings > 0.5
    assert abs(state.layer_slopes["spec"]) < 1e-9 and transcript.layer_slopes["history"] > 10
    assert abs(transcript.savings) < 0.2
    run = next(r for r in audit.runs if r.contract == "state")
    assert run.decisions == 20 and len(run.points) == 20
    assert run.layers == ["spec", "state", "observation"]
    assert all(sum(p.by_layer.values()) > 0 for p in run.points)
    assert run.counterfactual_last > 3 * run.last_prompt


def test_transcript_counterfactual_tracks_an_actual_transcript(warehouse_archive):
    with Archive(warehouse_archive) as archive:
        audit = context_audit(archive, archive.runs(tag="transcript"))
    for run in audit.runs:
        for point in run.points:
            assert point.counterfactual_tokens == pytest.approx(point.prompt_tokens, rel=0.15)


def test_audit_and_export_commands(warehouse_archive, tmp_path):
    import json

    import typer
    from typer.testing import CliRunner

    from bounded.cli.audit import audit
    from bounded.cli.report import export

    app = typer.Typer()
    app.command("audit")(audit)
    app.command("export")(export)
    runner = CliRunner()
    plot = tmp_path / "context.svg"
    result = runner.invoke(
        app, ["audit", str(warehouse_archive), "--contract", "state", "--json", "--plot", str(plot)]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [c["contract"] for c in data["contracts"]] == ["state"]
    assert plot.read_text().startswith("<svg")
    result = runner.invoke(app, ["audit", str(warehouse_archive)], terminal_width=200)
    assert "transcript" in result.output and "state" in result.output
    out = tmp_path / "export"
    result = runner.invoke(app, ["export", str(warehouse_archive), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert len((out / "runs.jsonl").read_text().splitlines()) == 4


# -- under prefix caching ----------------------------------------------------------


@pytest.fixture(scope="module")
def cached_archive(tmp_path_factory):
    path = tmp_path_factory.mktemp("cached") / "c.sqlite"
    with Archive(path) as archive:
        run_episode(
            make("warehouse", horizon=12), make_contract("state"),
            PrefixCachingModel(honest_reply), seed=3, env_id="bounded/Warehouse-v0",
            tag="state", archive=archive,
        )  # fmt: skip
    return path


def test_fresh_tokens_and_cost_use_the_measured_cache_and_a_computed_transcript_cache(
    cached_archive,
):
    costs = CostModel(default=Prices(input=1.0, cached_input=0.1, output=2.0))
    with Archive(cached_archive, read_only=True) as archive:
        [run] = context_audit(archive, archive.runs(), costs).runs
    points = run.points
    assert run.total_cached == sum(p.cached_tokens for p in points) > 0
    outputs = sum(p.completion_tokens for p in points)
    assert run.total_fresh == run.total_prompt - run.total_cached + outputs
    assert run.cost == pytest.approx(
        (run.total_prompt - run.total_cached + 0.1 * run.total_cached + 2 * outputs) / 1e6
    )
    # the transcript caches its whole previous prompt: it pays fresh for what it appends
    shadow = [p.counterfactual_tokens for p in points]
    assert run.counterfactual_cached == sum(shadow[:-1])
    assert run.counterfactual_fresh == shadow[-1] + outputs
    # the cached prefix is attributed to the layers it covers, first ones first
    first_layer = run.layers[0]
    for point in points[1:]:  # the first call had nothing to reuse
        assert point.cached_by_layer[first_layer] == point.by_layer[first_layer]
    assert (
        run.layer_cached[first_layer]
        == run.layer_tokens[first_layer] - points[0].by_layer[first_layer]
    )
    assert sum(run.layer_cost.values()) <= run.cost
    assert run.latency_s is not None and run.latency_s > 0  # a local model: modelled


def test_audit_command_prices_runs_and_refuses_a_bad_price(cached_archive):
    import typer
    from typer.testing import CliRunner

    from bounded.cli.audit import audit

    app = typer.Typer()
    app.command("audit")(audit)
    app.command("other")(lambda: None)
    runner = CliRunner()
    result = runner.invoke(
        app, ["audit", str(cached_archive), "--price", "local:prefix=1,0.1,2", "--rates"],
        terminal_width=250,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "under prefix caching" in text and "cost per layer, state (state): spec" in text
    assert "no timed model calls" in result.output  # a scripted model takes no time
    assert "transcript's computed" in result.output
    bad = runner.invoke(app, ["audit", str(cached_archive), "--price", "local:prefix=-1,0,0"])
    assert isinstance(bad.exception, ConfigError) and "\n" not in str(bad.exception)


def test_the_audit_reads_counted_tokens_and_flags_a_server_that_reports_others(
    tmp_path, monkeypatch
):
    import bounded
    from bounded.testing.endpoint import Endpoint

    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    spec = bounded.GameSpec(
        env="warehouse", env_options={"horizon": 4}, contract="transcript", model="openai:m",
        seed=1,
    )  # fmt: skip
    with Archive(tmp_path / "a.sqlite") as archive:
        for counts in (False, True):
            with Endpoint(plays="first", counts_usage=counts) as endpoint:
                bounded.play(spec.model_copy(update={"base_url": endpoint.url}), archive=archive)
        audit = context_audit(archive, archive.runs())
    misreported, honest = audit.runs
    assert misreported.reported_prompt == 10 * misreported.decisions  # the fixed usage
    assert misreported.total_prompt == honest.total_prompt > misreported.reported_prompt
    assert misreported.tokens_flag is not None and "bounded counted" in misreported.tokens_flag
    assert honest.tokens_flag is None and honest.reported_prompt == honest.total_prompt
    assert audit.contracts[0].flagged_runs == 1


def test_runs_of_one_contract_on_two_environments_are_audited_apart(tmp_path):
    path = tmp_path / "two.sqlite"
    with Archive(path) as archive:
        for env, env_id, options in (
            ("warehouse", "bounded/Warehouse-v0", {"horizon": 3}),
            ("babyai", "bounded/BabyAI-v0", {"max_steps": 3}),
        ):
            run_episode(
                make(env, **options), make_contract("transcript"),
                ScriptedModel(["{}"], cycle=True), seed=1, env_id=env_id, tag="t",
                archive=archive,
            )  # fmt: skip
        audit = context_audit(archive, archive.runs())
    assert [(c.contract, c.where, c.runs) for c in audit.contracts] == [
        ("transcript", "t, bounded/BabyAI-v0", 1),
        ("transcript", "t, bounded/Warehouse-v0", 1),
    ]
    assert all(sum(c.holds(r) for r in audit.runs) == 1 for c in audit.contracts)
