"""Context audit on NetHack: `typed` and `state` against an accumulating transcript over the
same 300-decision game, prompt tokens counted with the embedded model's tokenizer.

Usage: python bench/nethack_context_audit.py [--seed 0] [--steps 300] [--out PATH]

The explore-and-descend player (`NetHackExpert`) makes every move, answering through a
scripted model, so every contract sees the same game decision for decision and only the
memory contract differs; prompts are formatted with SmolLM2's chat template and counted
with its tokenizer, exactly as `bounded run --model local` would send them (no text is
generated). `transcript (unbounded)` is the computed counterfactual of a model whose
window never fills: no model here could take those prompts. Prints, per contract, prompt
tokens per decision (first, last, least-squares slope per decision), the cumulative
total, and the first decision whose prompt exceeds the 8,192-token window; writes
bench/results/nethack_context_audit.json.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import provenance, write_result
from bounded.analysis.stats import linear_slope
from bounded.core import JSON, Completion, DecisionRecord, Observation
from bounded.envs.nethack import NetHackExpert
from bounded.models.local import LocalModel
from bounded.models.scripted import minimal_instance
from bounded.protocols import ModelBase
from bounded.runner.build import build_game, runner_for
from bounded.runner.spec import GameSpec

RESULTS = Path(__file__).parent / "results" / "nethack_context_audit.json"


class ExpertModel(ModelBase):
    """The NetHack player's moves as a model's replies; prompts counted by a real tokenizer."""

    def __init__(self, tokenizer: LocalModel, seed: int) -> None:
        self.id = "nethack-expert"
        self.tokenizer = tokenizer
        self.context_window: int | None = None
        self.expert = NetHackExpert(seed)
        self.observation: Observation | None = None
        self._added: dict[tuple[str, str, str], int] = {}

    def count_tokens(self, text: str) -> int:
        return self.tokenizer.count_tokens(text)

    def _length(self, messages: list[dict[str, str]]) -> int:
        return len(self.tokenizer.prompt_tokens(messages)[0])

    def prompt_length(self, messages: list[dict[str, str]]) -> int:
        """The chat prompt's tokens, message by message (each is delimited by special
        tokens, so the sum is exact and a long transcript costs linear tokenizer work)."""
        head = messages[0]
        total = self._length([head])
        for message in messages[1:]:
            key = (head["content"], message["role"], message["content"])
            if key not in self._added:
                self._added[key] = self._length([head, message]) - self._length([head])
            total += self._added[key]
        return total

    def complete(
        self, messages: list[dict[str, str]], *, constraint: JSON | None = None, **_: Any
    ) -> Completion:
        assert constraint is not None and self.observation is not None
        if not self.observation.legal:  # a call after the game (postrun learning)
            return self._completion(messages, minimal_instance(constraint))
        move = self.expert.act(self.observation)
        reply: JSON = {}
        for key in constraint.get("required", []):
            if key == "action":
                reply[key] = {"id": move.id}
            elif key == "actions":
                reply[key] = [{"id": move.id}]
            else:
                reply[key] = minimal_instance(constraint["properties"][key])
        return self._completion(messages, reply)

    def _completion(self, messages: list[dict[str, str]], reply: Any) -> Completion:
        text = json.dumps(reply)
        return Completion(
            text=text, prompt_tokens=self.prompt_length(messages),
            completion_tokens=self.count_tokens(text), model=self.id, finish_reason="stop",
        )  # fmt: skip


def play(contract: str, seed: int, steps: int, tokenizer: LocalModel) -> tuple[list[int], JSON]:
    model = ExpertModel(tokenizer, seed)
    # constrained: the expert answers from the reply schema (and the audited games were so)
    spec = GameSpec(
        env="nethack", env_options={"max_steps": steps}, contract=contract, seed=seed,
        max_decisions=steps, contract_config={"reply": "constrained"},
    )  # fmt: skip
    game = build_game(spec, model=model)

    def observe(_: DecisionRecord, obs: Observation) -> None:
        model.observation = obs

    runner = runner_for(game, observer=observe, keep_decisions=None)  # read whole
    model.observation = game.env.reset(seed=seed)[0]
    runner.execute()
    return [d.prompt_tokens for d in runner.trajectory], runner.run.outcome


def summary(prompts: list[int], window: int) -> JSON:
    slope, _ = linear_slope([float(i) for i in range(len(prompts))], [float(p) for p in prompts])
    over = next((i for i, p in enumerate(prompts) if p > window), None)
    return {
        "decisions": len(prompts),
        "first": prompts[0],
        "last": prompts[-1],
        "slope_per_decision": round(slope, 2),
        "cumulative": sum(prompts),
        "first_decision_over_window": over,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    started_at = provenance(
        "floor", "state: the scripted player's state patches are empty, so its prompts are floors"
    )
    tokenizer = LocalModel()
    window = tokenizer.context_window or 8_192
    results: dict[str, Any] = {"seed": args.seed, "steps": args.steps, "window": window}
    for contract in ("typed", "state", "transcript"):
        prompts, outcome = play(contract, args.seed, args.steps, tokenizer)
        label = "transcript (unbounded, computed)" if contract == "transcript" else contract
        results[label] = summary(prompts, window) | {
            "progression": outcome.get("progression"),
            "max_depth": outcome.get("max_depth"),
            "prompts": prompts,
        }
        row = {k: v for k, v in results[label].items() if k != "prompts"}
        print(label, json.dumps(row), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, results, started_at)


if __name__ == "__main__":
    main()
