"""Run filters of the commands that read an archive: a filter that matches nothing is an
error naming what there is (and the closest name), never an empty table."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from bounded.archive import Archive
from bounded.archive.queries import run_values, stream_runs
from bounded.core import ConfigError, RunRecord
from bounded.registry import did_you_mean


def unknown_name(what: str, name: str, known: Sequence[str], where: Path | str) -> ConfigError:
    """The error of a name that matches nothing: what there is, and the closest."""
    listed = ", ".join(sorted(set(known))) or "none"
    return ConfigError(
        f"no runs of {what} {name!r} in {where}{did_you_mean(name, known)} "
        f"({what}s there: {listed})"
    )


def filtered_runs(
    store: Archive,
    where: Path | str,
    *,
    experiment: str | None = None,
    tag: str | None = None,
    contract: str | None = None,
) -> list[RunRecord]:
    """The archive's runs that every given filter keeps; a filter that keeps none is an
    error naming the values the archive holds."""
    every = store.runs()
    for what, value, field in (
        ("experiment", experiment, "experiment"),
        ("tag", tag, "tag"),
        ("contract", contract, "contract"),
    ):
        if value is None:
            continue
        known = [getattr(run, field) for run in every]
        if value not in known:
            raise unknown_name(what, value, [k for k in known if k], where)
    return [
        run
        for run in every
        if experiment in (None, run.experiment)
        and tag in (None, run.tag)
        and contract in (None, run.contract)
    ]


def streamed_runs(
    store: Archive,
    where: Path | str,
    *,
    experiment: str | None = None,
    tag: str | None = None,
    contract: str | None = None,
) -> Iterator[RunRecord]:
    """`filtered_runs` read a page at a time (`stream_runs`): each filter checked first
    against the values the archive holds (the same error), then a fresh stream of the runs
    each time it is called."""
    for what, value in (("experiment", experiment), ("tag", tag), ("contract", contract)):
        if value is not None:
            known = run_values(store, what)
            if value not in known:
                raise unknown_name(what, value, [k for k in known if k], where)
    return stream_runs(store, experiment=experiment, tag=tag, contract=contract)


__all__ = ["filtered_runs", "streamed_runs", "unknown_name"]
