"""Small TextWorld games, generated once per test session into a temporary cache."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def games_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("textworld-games"))
