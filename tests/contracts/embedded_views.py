"""What every reasoning contract sends the embedded model over the first decisions of a few
games: each prompt's messages and each reply schema, as SHA-256 hashes, and the decision
parsed from a fixed reply. `tests/data/embedded_reply_schemas.json` holds them as they
were before the reasoning budget became the model's, with the episodic contract's rewritten
once since, when its exploration prompt and working memory became the paper's (LLM(S, o'_t),
past observations shown whole), and the state contract's once, when a state without a
schema took the `notes` shape on the embedded model (`state_shape`);
`python tests/contracts/embedded_views.py` rewrites it (only when the embedded model's
prompts are meant to change)."""

from __future__ import annotations

import contextlib
import json
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bounded.contracts import make_contract
from bounded.core import Completion, StepResult, approx_tokens, stable_hash
from bounded.envs import make, resolve_env_id
from bounded.runner.episode import episode_context

GOLDEN = Path(__file__).parent.parent / "data" / "embedded_reply_schemas.json"
PINNED = {"reply": "constrained"}
"""The mode the golden views were written in (the papers' contracts reply in `text` now)."""
CONTRACTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("transcript", {}),
    ("state", PINNED),
    ("typed", {}),
    ("episodic", PINNED),
    ("episodic", {**PINNED, "prompt": "short", "gating_start": "immediate", "explore_every": 3}),
)
GAMES = (("warehouse", {}), ("spire", {}), ("craft", {}))
DECISIONS = 25
REASONING = "I weigh the options and take the first legal one, as always."


def stand_in(reasoning_chars: Any) -> Any:
    """A model object as the contracts see it (id, window, tokenizer, declared budget)."""
    return SimpleNamespace(
        id="local:smollm2", context_window=8192, count_tokens=approx_tokens,
        reasoning_chars=reasoning_chars,
    )  # fmt: skip


def reply_for(obs: Any, schema: dict[str, Any]) -> str:
    """A reply naming the first legal action (with empty args), with a fixed reasoning."""
    first = obs.legal[0]
    action: dict[str, Any] = {"id": first.id}
    if first.schema_:
        action["args"] = {}
    reply: dict[str, Any] = {"reasoning": REASONING}
    props = schema.get("properties", {})
    if "state_patch" in props:
        reply["state_patch"] = {}
    if "actions" in props:
        reply["actions"] = [action]
    else:
        reply["action"] = action
    return json.dumps(reply)


def views(model: Any) -> dict[str, list[str]]:
    """contract/env -> one hash per decision of (messages, schema, parsed decision), played
    in an empty directory (no bank of a checkout's runs/banks/ in the episodic views)."""
    with tempfile.TemporaryDirectory() as elsewhere, contextlib.chdir(elsewhere):
        return played_views(model)


def played_views(model: Any) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for env_name, options in GAMES:
        for name, settings in CONTRACTS:
            env = make(env_name, **options)
            contract = make_contract(name, dict(settings))
            obs, _ = env.reset(seed=1)
            contract.reset(episode_context(env, resolve_env_id(env_name), 1, model, "golden"))
            hashes = []
            for _ in range(DECISIONS):
                if not obs.legal:
                    break
                proposed = contract.propose(obs)
                if proposed is not None:
                    decision, messages, schema = proposed, [], {}
                else:
                    messages = contract.assemble(obs).messages()
                    schema = contract.reply_schema(obs)
                    completion = Completion(text=reply_for(obs, schema))
                    decision = contract.parse(completion, obs)
                actions = decision.actions or obs.legal[:1]
                next_obs, reward, term, trunc, info = env.step(actions)
                result = StepResult(reward=reward, terminated=term, truncated=trunc, info=info)
                contract.commit(obs, decision, result)
                view = [messages, schema, decision.model_dump(mode="json")]
                hashes.append(stable_hash(view))
                obs = next_obs
                if term or trunc:
                    break
            env.close()
            shown = {k: v for k, v in settings.items() if k not in PINNED}  # the golden's keys
            label = "/".join([name, *(f"{k}={v}" for k, v in shown.items())])
            found[f"{label}/{env_name}"] = hashes
    return found


if __name__ == "__main__":
    model = stand_in(int(sys.argv[1]) if len(sys.argv) > 1 else 120)
    GOLDEN.write_text(json.dumps(views(model), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
