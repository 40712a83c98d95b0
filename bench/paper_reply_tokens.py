"""How many tokens the reply each paper's prompt asks for takes, counted by the embedded
model's tokenizer, and the reply limit (`max_tokens`) the paper files set from it.

A reply limit is a ceiling: a reply that ends before it is the same reply under any larger
limit, and one that does not is cut (a parse error for a reply whose answer comes last).
So a file's limit must hold the longest reply any of its cells' papers asks for; this script
measures that reply for each paper and writes `bench/results/paper_reply_tokens.json`:

- **Chain of Summarization / EpicStar** (EpicStar's Appendix B, Prompts 1 and 2: `summary`
  and `episodic` in `text` mode): the example replies of CoS's reference code (the example
  output of its prompt `StarCraftIIPrompt_V4`, read from the file `--cos-prompts` names:
  `sc2_rl_agent/starcraftenv_test/prompt/prompt.py` of
  github.com/histmeisah/Large-Language-Models-play-StarCraftII; the text is read there and
  counted, never copied here). The paper's Prompt 2 asks for one suggestion area more
  than those examples hold (5. Feasibility), so each example is counted with its longest
  suggestion area once more.
- **SKILL.state** (`state` in `text` mode: reasoning, then a JSON block holding
  `state_patch` and `action`, sse-agent's `parse_response`): a reference reply of that
  structure at each of the first five decisions of each environment the paper files play
  (the first legal action played): reasoning of the embedded model's reasoning budget,
  then a pretty-printed block whose patch holds every part of the observed state that
  changed since the last decision (all of it at the first: a patch is merged onto the
  state, so it carries what is new) and the action.
- **BALROG's agents**: the naive agents' reply is one action of the vocabulary (counted:
  the longest, in its robust tag); the cot agents' reasoning has no length BALROG asks for
  (BALROG's client allows 8,192 tokens), so nothing is measured for it.

The limit of each reply is its longest reference (per environment for SKILL.state, whose
patch holds what that environment shows) times `1 + MARGIN` (a model's reply
varies around the examples' length; the margin holds one a quarter longer than the longest
of them), rounded up to a multiple of 64.

    FILE=sc2_rl_agent/starcraftenv_test/prompt/prompt.py      # in a clone of CoS's repository
    git -C CLONE show 48564d6:$FILE > prompt.py
    python bench/paper_reply_tokens.py --cos-prompts prompt.py \
        --cos-source histmeisah/Large-Language-Models-play-StarCraftII@48564d6:$FILE
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import math
import re
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import provenance, write_result
from bounded.core import JSON, Action
from bounded.models.openai_compat import gguf_token_counter
from bounded.models.scripted import minimal_instance
from bounded.protocols import EMBEDDED_REASONING_CHARS
from bounded.runner import GameSpec
from bounded.runner.build import build_env

MARGIN = 0.25
"""The share added to the longest reference reply."""
ROUND = 64
"""Limits are rounded up to a multiple of this."""
TOKENIZER = "smollm2"
"""The embedded model (`model = "local"`), which every paper file plays."""
PROMPT_CLASS = "StarCraftIIPrompt_V4"
"""The CoS prompt the reference code's workers play (`worker.py`: "prompt version 4")."""
STEPS = 5
"""Decisions measured per environment."""
SUGGESTION = re.compile(r"^\s*(\d)\.\s*[^:\n]+:", re.M)

ENVIRONMENTS: dict[str, JSON] = {
    "warehouse": {"horizon": 30},
    "spire": {"acts": 1},
    "babyai": {"level": "goto"},
    "nethack": {},
    "crafter": {},
    "minihack": {"task": "mazewalk-9x9"},
    "textworld": {"task": "coin_collector"},
}
"""The environments of the paper files that play `state`, at an option of theirs."""


def limit_for(tokens: int) -> int:
    return math.ceil(tokens * (1 + MARGIN) / ROUND) * ROUND


def example_replies(path: Path) -> list[str]:
    """The string constants CoS's prompt class assigns to `self.example_output_prompt`."""
    tree = ast.parse(path.read_text())
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == PROMPT_CLASS:
            for assign in ast.walk(node):
                if (
                    isinstance(assign, ast.Assign)
                    and any(
                        isinstance(t, ast.Attribute) and t.attr == "example_output_prompt"
                        for t in assign.targets
                    )
                    and isinstance(assign.value, ast.Constant)
                    and isinstance(assign.value.value, str)
                    and "Decisions:" in assign.value.value
                ):
                    found.append(assign.value.value.strip())
    if not found:
        raise SystemExit(f"{path}: no {PROMPT_CLASS}.example_output_prompt found")
    return found


def suggestion_areas(reply: str) -> list[str]:
    """The numbered areas after `Suggestions:` (each up to the next one, or `Decisions:`)."""
    after = reply.split("Suggestions:", 1)[-1].split("Decisions:", 1)[0]
    starts = [m.start() for m in SUGGESTION.finditer(after)]
    return [after[a:b].strip() for a, b in zip(starts, [*starts[1:], len(after)], strict=False)]


def cos_replies(path: Path, count: Any, source: str) -> JSON:
    rows = []
    for reply in example_replies(path):
        areas = suggestion_areas(reply)
        extra = max((count(area) for area in areas), default=0)
        tokens = count(reply)
        rows.append({
            "chars": len(reply), "tokens": tokens, "suggestion_areas": len(areas),
            "longest_area_tokens": extra, "with_feasibility_tokens": tokens + extra,
        })  # fmt: skip
    longest = max(row["with_feasibility_tokens"] for row in rows)
    return {
        "source": source or str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "examples": rows, "longest": longest, "limit": limit_for(longest),
    }  # fmt: skip


def action_object(action: Action) -> JSON:
    args = minimal_instance(action.schema_) if action.schema_ else None
    return {"id": action.id, **({"args": args} if args else {})}


def changed(before: JSON, after: JSON) -> JSON:
    """The top-level keys of `after` whose values differ from `before`'s (a patch)."""
    return {key: value for key, value in after.items() if before.get(key) != value}


def state_reply(env_name: str, options: JSON, count: Any) -> JSON:
    """SKILL.state's reply at each of the first `STEPS` decisions of `env_name` (the first
    legal action played), counted; its patch holds what changed since the last one."""
    _, env = build_env(GameSpec(env=env_name, env_options=options, contract="state"))
    reasoning = ("I weigh what I see against my state. " * 10)[:EMBEDDED_REASONING_CHARS]
    replies: list[int] = []
    robust_naive = 0
    try:
        obs, _ = env.reset(seed=0)
        previous: JSON = {}
        for _ in range(STEPS):
            action = obs.legal[0]
            block = json.dumps(
                {"state_patch": changed(previous, obs.state), "action": action_object(action)},
                indent=2,
                default=str,
            )
            replies.append(count(f"{reasoning}\n```json\n{block}\n```"))
            naive = max(obs.legal, key=lambda a: count(a.id))
            robust_naive = max(robust_naive, count(f"<|ACTION|>{naive.id}<|END|>"))
            previous = obs.state
            obs, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                break
    finally:
        close = getattr(env, "close", None)
        if close is not None:
            close()
    return {
        "options": options,
        "state_chars": len(json.dumps(obs.state, default=str)),
        "reply_tokens": replies,
        "tokens": max(replies),
        "limit": limit_for(max(replies)),
        "balrog_robust_naive_tokens": robust_naive,
    }


def state_replies(count: Any, names: list[str]) -> JSON:
    measured: dict[str, JSON] = {}
    skipped: dict[str, str] = {}
    for name in names:
        try:
            measured[name] = state_reply(name, ENVIRONMENTS[name], count)
        except Exception as error:  # an environment whose package is not installed here
            skipped[name] = f"{type(error).__name__}: {error}"[:200]
        else:
            print(f"state {name}: {measured[name]['tokens']} tokens")
    longest = max((row["tokens"] for row in measured.values()), default=0)
    return {"environments": measured, "skipped": skipped, "longest": longest,
            "limit": limit_for(longest)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cos-prompts", type=Path, required=True,
                        help="CoS's reference prompt.py (its StarCraftIIPrompt_V4)")  # fmt: skip
    parser.add_argument("--cos-source", default="",
                        help="where the file comes from: repository@commit:path")  # fmt: skip
    parser.add_argument("--envs", default=",".join(ENVIRONMENTS))
    parser.add_argument("--out", default="bench/results/paper_reply_tokens.json")
    args = parser.parse_args()
    started = provenance()
    count = gguf_token_counter(TOKENIZER)
    cos = cos_replies(args.cos_prompts, count, args.cos_source)
    print(f"CoS examples: {[row['tokens'] for row in cos['examples']]}, limit {cos['limit']}")
    state = state_replies(count, [name for name in args.envs.split(",") if name])
    result = {
        "tokenizer": TOKENIZER, "margin": MARGIN, "round_to": ROUND,
        "cos_epicstar": cos, "skill_state": state,
    }  # fmt: skip
    print(f"wrote {write_result(args.out, result, started)}")


if __name__ == "__main__":
    main()
