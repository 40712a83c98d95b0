"""The vocabulary's records."""

from __future__ import annotations

import pytest

from bounded.core import Observation


def test_an_observations_history_text_must_end_its_text() -> None:
    with pytest.raises(ValueError, match="history_text must be the end of its text"):
        Observation(kind="test", text="Room 1.", history_text="Map 1")
    assert Observation(kind="test", text="Map\nRoom.", history_text="Room.").current_only_text == (
        "Map\n"
    )
