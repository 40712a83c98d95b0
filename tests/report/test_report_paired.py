"""`bounded report --compare A,B`: the page holds the paired comparison of two cells on
their common seeds and names the games left unpaired (a real sweep of scripted games)."""

import subprocess
import sys
import textwrap

REPLY = '{"reasoning": "", "action": {"id": "report", "args": {"occupied": 0, "shipped": 0}}}'
BOUNDED = [sys.executable, "-m", "bounded.cli"]


def test_report_shows_paired_comparisons_and_the_unpaired_games(tmp_path):
    (tmp_path / "replies.jsonl").write_text(REPLY + "\n")
    path = tmp_path / "exp.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [experiment]
            name = "paired-report"
            archive = "{tmp_path / "a.sqlite"}"

            [defaults]
            env = "warehouse"
            model = "scripted:replies.jsonl"
            env_options = {{ horizon = 4 }}

            [[cells]]
            tag = "state"
            contract = "state"
            seeds = [1, 2, 3]

            [[cells]]
            tag = "transcript"
            contract = "transcript"
            seeds = [2, 3, 4]
            """
        )
    )
    assert subprocess.run([*BOUNDED, "sweep", str(path)], capture_output=True).returncode == 0
    page = tmp_path / "r.html"
    made = subprocess.run(
        [*BOUNDED, "report", str(tmp_path / "a.sqlite"), "-o", str(page), "--compare",
         "state,transcript"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    html = page.read_text()
    assert 'class="paired-table"' in html
    assert "Paired comparisons on common seeds of each block" in html
    assert "Unpaired, left out of state vs transcript: state seeds 1; transcript seeds 4." in html
    assert "Holm&#39;s method" in html or "Holm's method" in html
