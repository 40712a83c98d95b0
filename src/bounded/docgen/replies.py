"""Model replies: how the reply modes fared per contract and environment
(`bench/reply_modes.py`), reasoning written under a cap (`bench/reasoning_budget.py`), and
the papers' reference replies in tokens with the limits set from them
(`bench/paper_reply_tokens.py`)."""

from __future__ import annotations

from typing import Any

from bounded.docgen.format import Data, count, measured_under, table

REPLY_MODE_COLUMNS = (
    ("contract", "contract"), ("env", "env"), ("mode", "mode"), ("decisions", "decisions"),
    ("model_decisions", "model calls"), ("invalid_actions", "invalid actions"),
    ("invalid_per_model_decision", "invalid / call"), ("fallback_rate", "fallback rate"),
    ("parse_errors", "parse errors"), ("completion_tokens_per_call", "reply tokens / call"),
    ("cut_by_token_limit", "cut by limit"), ("prompt_tokens_per_call", "prompt tokens / call"),
    ("response_format", "sent"), ("seconds_per_call", "s / call"),
)  # fmt: skip
"""(a cell's field, its column's header), in the table's order."""


def reply_mode_cells(cells: list[dict[str, Any]]) -> str:
    """Cells of `bench/reply_modes.py`'s result files as a Markdown table, one row a cell
    (a cell that failed before it played says how)."""
    lines = ["| " + " | ".join(name for _, name in REPLY_MODE_COLUMNS) + " |"]
    lines.append(
        "|" + "|".join("---" if i < 3 else "---:" for i in range(len(REPLY_MODE_COLUMNS))) + "|"
    )
    for cell in cells:
        if "decisions" not in cell:  # failed before it played
            lines.append(f"| {cell['contract']} | {cell['env']} | {cell['mode']} | "
                         f"{cell.get('status')}: {cell.get('error')} |")  # fmt: skip
            continue
        values = {**cell, "response_format": cell.get("reply", {}).get("response_format", "")}
        if cell.get("status") != "completed":  # stopped before its last decision
            values["contract"] = f"{cell['contract']} ({cell.get('status')})"
        lines.append(
            "| " + " | ".join(str(values.get(key, "")) for key, _ in REPLY_MODE_COLUMNS) + " |"
        )
    return "\n".join(lines)


def reply_modes(*files: Data) -> str:
    """Every file's cells in one table, then the commits or the provenance they were
    measured under."""
    notes = []
    earlier = sorted({f.get("commit", "not recorded") for f in files if "provenance" not in f})
    if earlier:
        notes.append(f"Commits: {', '.join(earlier)}. Load: not recorded in these files.")
    for f in files:
        if "provenance" in f:
            notes.append(measured_under(f, f"`{f['provenance']['command']}`"))
    return reply_mode_cells([cell for f in files for cell in f["cells"]]) + (
        "\n\n" + "\n\n".join(notes) + "\n"
    )


def reasoning_under_caps(data: Data) -> str:
    """Reasoning written and completion tokens per contract and reasoning cap."""
    rows = [
        [r["contract"], "none" if r["cap"] is None else r["cap"], r["reasoning_chars"],
         r["completion_tokens"]]
        for r in data["rows"]
    ]  # fmt: skip
    return table(["contract", "cap", "reasoning written (chars)", "completion tokens"], rows)


def paper_reply_limits(data: Data) -> str:
    """Each paper's reference replies in tokens, and the limit set from the longest."""
    cos, state = data["cos_epicstar"], data["skill_state"]
    examples = ", ".join(count(e["with_feasibility_tokens"]) for e in cos["examples"])
    rows = [["CoS / EpicStar (Appendix B)", "any", examples, count(cos["limit"])]]
    rows += [
        [
            "SKILL.state (reasoning, JSON block)", name,
            ", ".join(count(tokens) for tokens in row["reply_tokens"]), count(row["limit"]),
        ]
        for name, row in state["environments"].items()
    ]  # fmt: skip
    header = ["reply", "environment", "reference replies (tokens)", "limit"]
    skipped = "".join(
        f"\nNot measured: {name} ({why.split(':')[0]})." for name, why in state["skipped"].items()
    )
    return table(header, rows, "llrr") + skipped + f"\n{measured_under(data)}\n"
