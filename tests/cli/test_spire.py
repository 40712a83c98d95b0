"""The `bounded spire` command function."""

from __future__ import annotations

import pytest

from bounded.cli.spire import spire_command
from bounded.core import ConfigError


def test_spire_command_prints_one_row_per_run(capsys: pytest.CaptureFixture[str]) -> None:
    spire_command(player="random", seed=3, runs=2, ascension=1, show=False)
    out = capsys.readouterr().out
    assert "seed" in out and "score" in out
    assert "│ 3 " in out and "│ 4 " in out


def test_spire_command_rejects_bad_options() -> None:
    with pytest.raises(ConfigError):
        spire_command(player="nobody")
    with pytest.raises(ConfigError):
        spire_command(ascension=11)
