"""Renderers of the docs' generated tables on BALROG's environments: how soon BALROG's
TextWorld games are ready on a fresh machine."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from doc_format import measured_under, table

Data = dict[str, Any]


def textworld_first_use(data: Data) -> str:
    """bench/results/textworld_balrog_pool.json: seconds from a fresh process with an empty
    home to the first observation, with the cache present, and to a first decision."""
    rows = [
        [
            r["task"],
            f"{r['cold']['first_observation_s']:.2f}",
            f"{r['cold']['reset_s']:.2f}",
            f"{r['warm']['first_observation_s']:.2f}",
            f"{r['cold_decision']['process_to_first_decision_s']:.2f}",
        ]
        for r in data["rows"]
    ]
    header = [
        "task", "first observation, empty home (s)", "of which reset (unpack + load)",
        "cache present (s)", "first `balrog-naive` decision, empty home (s)",
    ]  # fmt: skip
    return table(header, rows, "lrrrr") + f"\n{measured_under(data)}\n"


BALROG: dict[str, Callable[..., str]] = {"textworld-first-use": textworld_first_use}

__all__ = ["BALROG"]
