"""The parity report: what, beside the memory contract, differs between compared cells.

Two cells compare memories only when everything else is the same: the environment and its
options, the seeds, the model, how replies are decoded, the sampling temperature, the
token limit, the reasoning budget, and how often the agent actually acts. The last is a
measurement, not a setting: a Chain-of-Summarization queue that runs dry plays the empty
action until its next call, so two agents deciding at the same cadence can act at very
different rates. The report lists, per cell, the effective action rate (actions other
than the environment's empty action per decision, `bounded.runner.tally`), the model
calls and prompt and completion tokens per decision, and the settings; then one
`ParityDifference` per setting that differs between cells of one group (rows of a table
split by other fields are compared within their group), an effective action rate counting
when the cells' rates differ by more than `RATE_TOLERANCE` of the larger.

`parity_of_runs` reads archived runs; `parity_of_plan` reads a sweep's planned games (what
`bounded sweep --dry-run` checks before anything is played), with rates estimated from a
dry game or the cell's archived games where the caller has them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from bounded.analysis.replies import reply_label
from bounded.core import JSON, RunRecord

RATE_TOLERANCE = 0.10
"""Effective action rates differing by more than this share of the larger one differ."""

SETTINGS = ("environment", "seeds", "model", "reply", "temperature", "max_tokens", "reasoning")
"""The settings compared, in the order the report names them."""

UNRECORDED = "-"
"""A setting a cell's runs do not have (a contract without a reasoning budget): it differs
from no value."""

DEFAULT_REPLY = "constrained"
"""The reply mode of a run that records none (every reply of an older bounded was decoded
under a JSON schema of the legal actions)."""


class CellParity(BaseModel):
    """One cell's side of the comparison."""

    label: str
    group: dict[str, str] = Field(default_factory=dict)
    """The values of the fields that split the table (cells are compared within a group)."""
    games: int
    contracts: list[str] = Field(default_factory=list)
    effective_action_rate: float | None = None
    """Mean effective actions per decision over the cell's games (None: not recorded)."""
    model_calls_per_decision: float | None = None
    prompt_tokens_per_decision: float | None = None
    completion_tokens_per_decision: float | None = None
    settings: dict[str, str] = Field(default_factory=dict)
    """Setting -> its value(s) in the cell (several values joined by `/`)."""
    env_options: dict[str, str] = Field(default_factory=dict)
    """Environment option -> its value(s) in the cell."""


class ParityDifference(BaseModel):
    """A setting (or the effective action rate) on which cells of one group differ."""

    setting: str
    values: dict[str, str]
    """Cell label -> its value."""
    group: dict[str, str] = Field(default_factory=dict)

    def line(self) -> str:
        where = " ".join(f"[{key}={value}]" for key, value in self.group.items())
        values = "; ".join(f"{label} {value}" for label, value in self.values.items())
        return f"{self.setting} differs{' ' + where if where else ''}: {values}"


class ParityReport(BaseModel):
    """Every cell's parity data and the differences beyond the memory contract."""

    cells: list[CellParity] = Field(default_factory=list)
    differences: list[ParityDifference] = Field(default_factory=list)

    @property
    def compared(self) -> bool:
        """Whether any group holds two cells or more (else nothing was compared)."""
        groups = [tuple(sorted(cell.group.items())) for cell in self.cells]
        return len(groups) > len(set(groups))

    @property
    def matched(self) -> bool:
        return not self.differences

    def lines(self) -> list[str]:
        """What a table prints under itself: one line per difference, or one that says the
        cells differ in their memory alone."""
        if not self.compared:
            return []
        if self.matched:
            return [
                f"parity: the cells differ in their memory contract alone (effective action "
                f"rates within {RATE_TOLERANCE:.0%}; the same {', '.join(SETTINGS)} and "
                "environment options)"
            ]
        return [f"parity: {difference.line()}" for difference in self.differences]


PARITY_HEADERS = (
    "cell", "games", "effective actions/decision", "model calls/decision",
    "prompt tokens/decision", "completion tokens/decision", *SETTINGS,
)  # fmt: skip
"""The columns of a parity table."""


def parity_rows(report: ParityReport) -> list[list[str]]:
    """One row of text per cell, in `PARITY_HEADERS` order."""

    def number(value: float | None, digits: int) -> str:
        return "-" if value is None else f"{value:,.{digits}f}"

    rows = []
    for cell in report.cells:
        label = " / ".join([cell.label, *cell.group.values()])
        rows.append(
            [
                label, str(cell.games), number(cell.effective_action_rate, 2),
                number(cell.model_calls_per_decision, 3),
                number(cell.prompt_tokens_per_decision, 0),
                number(cell.completion_tokens_per_decision, 0),
                *(cell.settings.get(setting, "-") for setting in SETTINGS),
            ]
        )  # fmt: skip
    return rows


def render_parity_markdown(report: ParityReport) -> str:
    """The parity table in Markdown, then its lines (what the docs publish under a table)."""
    lines = [
        "| " + " | ".join(PARITY_HEADERS) + " |",
        "|" + "---|" * len(PARITY_HEADERS),
        *("| " + " | ".join(row) + " |" for row in parity_rows(report)),
        "",
        *(f"- {line}" for line in report.lines()),
    ]
    return "\n".join(lines)


# -- reading runs and plans ------------------------------------------------------------


def joined(values: Iterable[Any]) -> str:
    """Distinct values, sorted, joined by `/` (`-` for none)."""
    texts = sorted({_text(v) for v in values}, key=_sort_key)
    return "/".join(texts) if texts else "-"


def _text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _sort_key(text: str) -> tuple[int, float | str]:
    try:
        return (0, float(text))
    except ValueError:
        return (1, text)


def seed_text(seeds: Iterable[int]) -> str:
    """`0-3 (4)`, `1, 5 (2)`: a cell's seeds, compactly."""
    ordered = sorted(set(seeds))
    if not ordered:
        return "-"
    if ordered == list(range(ordered[0], ordered[-1] + 1)) and len(ordered) > 2:
        return f"{ordered[0]}-{ordered[-1]} ({len(ordered)})"
    return f"{', '.join(map(str, ordered))} ({len(ordered)})"


def reply_text(spec: Mapping[str, Any], model_params: Mapping[str, Any]) -> str:
    """A game's reply mode and the response format sent, as its run records them
    (`model_params["reply"]`: `json (json_object)`, `, not honoured` where a reply broke the
    format); for a planned game, the mode its contract configuration asks for;
    `constrained` where neither says (every reply of an older bounded)."""
    recorded = model_params.get("reply")
    if isinstance(recorded, Mapping) and recorded.get("mode"):
        return reply_label(recorded)
    configured = (spec.get("contract_config") or {}).get("reply")
    return str(configured or DEFAULT_REPLY)


def model_of(spec: Mapping[str, Any], model: str) -> str:
    """The model, with the tiers of a game that names some (`combat=...`)."""
    tiers = spec.get("models") or {}
    extra = ", ".join(f"{kind}={tier}" for kind, tier in sorted(tiers.items()))
    return f"{model} ({extra})" if extra else model


def run_settings(run: RunRecord) -> dict[str, Any]:
    """The compared settings of one archived run (seeds apart)."""
    params, spec = run.model_params, run.spec
    reasoning = params.get("reasoning_chars", UNRECORDED)
    return {
        "environment": run.env_id,
        "model": model_of(spec, run.model),
        "reply": reply_text(spec, params),
        "temperature": params.get("temperature", spec.get("temperature")),
        "max_tokens": params.get("max_tokens", spec.get("max_tokens")),
        "reasoning": "uncapped" if reasoning is None else reasoning,
    }


def effective_rate(outcome: Mapping[str, Any]) -> float | None:
    """A run's effective actions per decision (craft runs of an older bounded recorded it
    as `game_actions_per_step`), or None."""
    for key in ("effective_action_rate", "game_actions_per_step"):
        value = outcome.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    return None


def cell_of_runs(label: str, runs: Sequence[RunRecord], group: Mapping[str, str]) -> CellParity:
    """One cell's parity data from its completed runs."""
    decisions = sum(r.decisions for r in runs)
    rates = [rate for rate in (effective_rate(r.outcome) for r in runs) if rate is not None]
    return CellParity(
        label=label,
        group=dict(group),
        games=len(runs),
        contracts=sorted({r.contract for r in runs}),
        effective_action_rate=sum(rates) / len(rates) if rates else None,
        model_calls_per_decision=_per(sum(r.model_calls for r in runs), decisions),
        prompt_tokens_per_decision=_per(sum(r.prompt_tokens for r in runs), decisions),
        completion_tokens_per_decision=_per(sum(r.completion_tokens for r in runs), decisions),
        settings=cell_settings([run_settings(r) for r in runs], (r.seed for r in runs)),
        env_options=options_of(r.spec.get("env_options") or {} for r in runs),
    )


def cell_settings(per_game: Sequence[Mapping[str, Any]], seeds: Iterable[int]) -> dict[str, str]:
    """Each compared setting's values over a cell's games, and the cell's seeds."""
    keys = per_game[0] if per_game else {}
    return {
        **{key: joined(game[key] for game in per_game) for key in keys},
        "seeds": seed_text(seeds),
    }


def _per(total: float, decisions: int) -> float | None:
    return total / decisions if decisions else None


def options_of(options: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Each environment option's values over a cell's games (`(default)` where a game
    leaves it unset)."""
    listed = list(options)
    keys = sorted({key for entry in listed for key in entry})
    return {key: joined(entry.get(key, "(default)") for entry in listed) for key in keys}


Entry = tuple[str, Mapping[str, str], Sequence[RunRecord]]
"""(cell label, group values, the cell's completed runs)."""


def parity_of_runs(entries: Iterable[Entry]) -> ParityReport:
    """The report over archived cells (see the module docstring)."""
    cells = [cell_of_runs(label, runs, group) for label, group, runs in entries if runs]
    return ParityReport(cells=cells, differences=differences(cells))


def parity_of_plan(
    cells: Iterable[tuple[str, Sequence[JSON]]],
    rates: Mapping[str | tuple[str, str], float | None] | None = None,
    *,
    bounded: bool = False,
) -> ParityReport:
    """The report over planned cells: (label, the specs of its games as played, as dicts
    of `GameSpec` fields); `rates`, per label (or per label and environment), an effective
    action rate expected, or with `bounded` the most it can be (`Contract.action_rate_bound`).

    Cells are compared within one environment: where the plan spans several, each label's
    games are split by environment, each part in the group of its environment."""
    listed = [(label, list(specs)) for label, specs in cells if specs]
    several = len({str(spec.get("env", "")) for _, specs in listed for spec in specs}) > 1
    found = []
    for label, specs in listed:
        by_env: dict[str, list[JSON]] = {}
        for spec in specs:
            by_env.setdefault(str(spec.get("env", "")) if several else "", []).append(spec)
        for env, games in by_env.items():
            expected = (rates or {}).get((label, env), (rates or {}).get(label))
            group = {"environment": env} if several else {}
            found.append(plan_cell(label, games, expected, group))
    rate = "effective action rate bound" if bounded else "effective action rate"
    return ParityReport(cells=found, differences=differences(found, rate=rate))


def plan_cell(
    label: str, specs: Sequence[JSON], rate: float | None, group: dict[str, str]
) -> CellParity:
    return CellParity(
        label=label,
        games=len(specs),
        contracts=sorted({str(spec.get("contract", "")) for spec in specs}),
        effective_action_rate=rate,
        settings=cell_settings(
            [plan_settings(spec) for spec in specs], (int(spec.get("seed", 0)) for spec in specs)
        ),
        env_options=options_of(spec.get("env_options") or {} for spec in specs),
        group=group,
    )


def plan_settings(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The compared settings of a planned game (the reasoning budget as configured)."""
    config = spec.get("contract_config") or {}
    reasoning = config.get("reasoning_chars", "(contract default)")
    if config.get("reasoning") is False:
        reasoning = "off"
    return {
        "environment": spec.get("env"),
        "model": model_of(spec, str(spec.get("model", ""))),
        "reply": reply_text(spec, {}),
        "temperature": spec.get("temperature"),
        "max_tokens": spec.get("max_tokens"),
        "reasoning": "uncapped" if reasoning is None else reasoning,
    }


# -- the differences ----------------------------------------------------------------------


def differences(
    cells: Sequence[CellParity], *, rate: str = "effective action rate"
) -> list[ParityDifference]:
    """Every difference between cells of one group, settings first, then environment
    options, then the effective action rate (named `rate`)."""
    groups: dict[tuple[tuple[str, str], ...], list[CellParity]] = {}
    for cell in cells:
        groups.setdefault(tuple(sorted(cell.group.items())), []).append(cell)
    found: list[ParityDifference] = []
    for key, members in groups.items():
        if len(members) < 2:
            continue
        group = dict(key)
        found += _setting_differences(members, group)
        found += _rate_difference(members, group, rate)
    return found


def _setting_differences(
    cells: Sequence[CellParity], group: dict[str, str]
) -> list[ParityDifference]:
    found = []
    for setting in SETTINGS:
        values = {cell.label: cell.settings.get(setting, UNRECORDED) for cell in cells}
        recorded = {value for value in values.values() if value != UNRECORDED}
        if len(recorded) > 1:
            found.append(ParityDifference(setting=setting, values=values, group=group))
    options = sorted({key for cell in cells for key in cell.env_options})
    for option in options:
        values = {cell.label: cell.env_options.get(option, "(default)") for cell in cells}
        if len(set(values.values())) > 1:
            found.append(
                ParityDifference(setting=f"environment option {option}", values=values, group=group)
            )
    return found


def _rate_difference(
    cells: Sequence[CellParity], group: dict[str, str], setting: str
) -> list[ParityDifference]:
    rates = {c.label: c.effective_action_rate for c in cells if c.effective_action_rate is not None}
    if len(rates) < 2:
        return []
    high, low = max(rates.values()), min(rates.values())
    if high <= 0 or (high - low) / high <= RATE_TOLERANCE:
        return []
    values = {label: f"{rate:.2f}" for label, rate in rates.items()}
    return [ParityDifference(setting=setting, values=values, group=group)]


__all__ = [
    "PARITY_HEADERS",
    "RATE_TOLERANCE",
    "SETTINGS",
    "CellParity",
    "ParityDifference",
    "ParityReport",
    "effective_rate",
    "parity_of_plan",
    "parity_of_runs",
    "parity_rows",
    "render_parity_markdown",
]
