"""Writes `archive_format2.sqlite`: an archive in format 2 (prompts as integer-id changes,
runs and decisions keyed by their 64-hex run ids, actions stored whole per decision), kept
so that tests convert and read what an older bounded wrote.

It was made with the code of commit 6cec3e0 (format 2), from a checkout of that commit:

    PYTHONPATH=<checkout>/src python tests/data/make_archive_format2.py

Three warehouse games of 12 decisions (`state`, `transcript`, `balrog-naive`), played by
the scripted model (`scripted:minimal`), are written through the archive writer of that
code. Then what that code reads back from it is written beside it,
`archive_format2.expected.json`: `bounded analyze`'s output (at 200 columns) and every run
and decision record, which a converted archive must read the same.
"""

import json
import shutil
import tempfile
from pathlib import Path

from typer.testing import CliRunner

from bounded.archive import Archive
from bounded.cli import app
from bounded.core import FORMAT_VERSION
from bounded.runner.build import build_game, runner_for
from bounded.runner.spec import GameSpec

OUT = Path(__file__).with_name("archive_format2.sqlite")
EXPECTED = Path(__file__).with_name("archive_format2.expected.json")


def read_back(path: Path) -> dict:
    """What the archive at `path` reads as: `bounded analyze`'s output and every record."""
    analyzed = CliRunner().invoke(app, ["analyze", str(path)], terminal_width=200)
    assert analyzed.exit_code == 0, analyzed.output
    with Archive(path, read_only=True) as archive:
        runs = archive.runs()
        return {
            "analyze": analyzed.output,
            "runs": [run.model_dump(mode="json") for run in runs],
            "decisions": {
                run.run_id: [d.model_dump(mode="json") for d in archive.decisions(run.run_id)]
                for run in runs
            },
        }


def main() -> None:
    assert FORMAT_VERSION == 2, "run with the code of a format-2 bounded"
    OUT.unlink(missing_ok=True)
    with Archive(OUT) as archive:
        for contract in ("state", "transcript", "balrog-naive"):
            spec = GameSpec(
                env="warehouse",
                env_options={"horizon": 12},
                contract=contract,
                model="scripted:minimal",
                max_decisions=12,
                experiment="format2",
                cell=contract,
            )
            game = build_game(spec)
            try:
                runner_for(game, archive=archive).execute()
            finally:
                game.env.close()
    with tempfile.TemporaryDirectory() as folder:  # read a copy: the fixture stays as written
        copy = Path(folder) / OUT.name
        shutil.copyfile(OUT, copy)
        EXPECTED.write_text(json.dumps(read_back(copy), indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT} and {EXPECTED}")


if __name__ == "__main__":
    main()
