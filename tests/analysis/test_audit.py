import pytest

from bounded.analysis.audit import context_audit
from bounded.archive import Archive


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

    from bounded.commands.research import audit, export

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
