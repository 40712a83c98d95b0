"""The report's summary is `bounded table`'s paper table (the same grids, as HTML), and its
cost columns name their prices or read unpriced."""

import pytest

from bounded.analysis.fallbacks import decision_tallies
from bounded.analysis.paper import paper_table
from bounded.analysis.paper_render import sections
from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.envs import make
from bounded.models.scripted import ScriptedModel
from bounded.report import ReportOptions, build_report
from bounded.runner import run_episode

REPLIES = {
    "turning": '{"reasoning": "", "action": {"id": "turn left", "args": {}}}',
    "nojson": "I would go forward.",
}


@pytest.fixture(scope="module")
def two_levels(tmp_path_factory):
    path = tmp_path_factory.mktemp("summary") / "s.sqlite"
    with Archive(path) as archive:
        for tag, reply in REPLIES.items():
            for level in ("goto", "pickup"):
                for seed in (0, 1, 7):
                    run = run_episode(
                        make("babyai", level=level, max_steps=6), make_contract("state"),
                        ScriptedModel([reply], cycle=True), seed=seed,
                        env_id="bounded/BabyAI-v0", tag=tag, archive=archive,
                    )  # fmt: skip
                    options = {"env": "babyai", "env_options": {"level": level}}
                    archive.save_run(run.model_copy(update={"spec": {**run.spec, **options}}))
    return path


def test_the_summary_is_the_paper_table(two_levels, tmp_path):
    out = build_report(two_levels, tmp_path / "r.html", ReportOptions(baseline="turning"))
    page = out.read_text()
    summary = page[page.index('<div id="summary">') : page.index("<h2>Cells</h2>")]
    with Archive(two_levels, read_only=True) as archive:
        runs, tallies = archive.runs(), decision_tallies(archive)
    expected = sections(paper_table(runs, baseline="turning", tallies=tallies))
    assert len(expected) == 3  # entries, differences against the baseline, rates
    for lines, _ in expected:
        for line in lines[1:]:
            cells = "".join(f"<td>{cell}</td>" for cell in line)
            assert f"<tr>{cells}</tr>" in summary
    assert "<td>babyai level=goto</td>" in summary and "nojson - turning (paired)" in summary
    assert "cost: unpriced, no prices given" in page and "<td>unpriced</td>" not in page
