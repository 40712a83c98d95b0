"""Writes `archive_format1.sqlite`: an archive in format 1 (prompt segments as rows), kept
so that tests convert and read what an older bounded wrote.

It was made with the code of commit 9af78fc (format 1), from a checkout of that commit:

    PYTHONPATH=<checkout>/src python tests/data/make_archive_format1.py

Three warehouse games of 12 decisions (`state`, `transcript`, `summary`), played by the
scripted model (`scripted:minimal`), are written through the archive writer of that code.
"""

from pathlib import Path

from bounded.archive import Archive
from bounded.core import FORMAT_VERSION
from bounded.runner.build import build_game, runner_for
from bounded.runner.spec import GameSpec

OUT = Path(__file__).with_name("archive_format1.sqlite")


def main() -> None:
    assert FORMAT_VERSION == 1, "run with the code of a format-1 bounded"
    OUT.unlink(missing_ok=True)
    with Archive(OUT) as archive:
        for contract in ("state", "transcript", "summary"):
            spec = GameSpec(
                env="warehouse",
                env_options={"horizon": 12},
                contract=contract,
                model="scripted:minimal",
                max_decisions=12,
                experiment="format1",
                cell=contract,
            )
            game = build_game(spec)
            try:
                runner_for(game, archive=archive).execute()
            finally:
                game.env.close()
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
