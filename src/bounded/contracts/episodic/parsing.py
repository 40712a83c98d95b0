"""How the episodic contract reads a reply into its decision.

A decision the gating settled is the gating's; a model's decision is read in the reply
mode in force; an exploration reply's actions (CoS's `<ACTION NAME>`s in `text` mode, the
paper prompt's `decisions` or the short prompt's `actions` in JSON) go on the queue Q_a,
and the gating then decides. Malformed replies are recorded on the decision, never raised.
"""

from __future__ import annotations

from bounded.contracts import cos_prompt
from bounded.contracts.episodic.planning import StepPlanning
from bounded.contracts.replies import cos
from bounded.contracts.replies.reading import decode_reply, note_scrubbed, scrub
from bounded.core import INVALID_KEY, Action, Completion, Decision, Observation


class ReplyParsing(StepPlanning):
    """`parse`: a completion read into the decision, exploration actions queued."""

    def parse(self, completion: Completion, obs: Observation) -> Decision:
        plan = self.plan(obs)
        if plan.direct is not None:
            return plan.direct
        if not plan.explore:
            decision, _ = self.read_reply(completion, obs)
            decision.extra.update(self._extra(plan, "model"))
            return decision
        text, replaced = scrub(completion.text)
        if self.reply_mode == "text":
            reading = cos.read_decisions(text, obs, keep=self.config.explore_actions)
            proposed = reading.actions
            reasoning, error, decoded = text.strip(), reading.problem, 0
        else:
            proposed, reasoning, error, decoded = self._exploration_reply(text, obs)
        self.queue.extend(proposed)
        gated = self.gate(plan, obs)
        decision = gated or Decision(
            parse_error=error or "no executable action", extra=self._extra(plan, "model")
        )
        decision.reasoning = reasoning  # whole: the completion's, however long
        decision.parse_error = decision.parse_error or error
        decision.extra["explored"] = [a.id for a in proposed]
        if self.reply_mode == "text":  # CoS's reading: near misses, dropped, invalid
            cos.note_reading(decision.extra, reading)
            if reading.invalid:
                decision.extra[INVALID_KEY] = reading.invalid
        note_scrubbed(decision, replaced + decoded)
        return decision

    def _exploration_reply(
        self, text: str, obs: Observation
    ) -> tuple[list[Action], str, str | None, int]:
        """A JSON exploration reply's proposed actions, the reasoning, a problem, and the
        lone surrogates the decoded strings held (replaced)."""
        try:
            reply, replaced = decode_reply(text)
        except ValueError as exc:
            return [], "", str(exc), 0
        reasoning = reply.get("reasoning") if isinstance(reply.get("reasoning"), str) else ""
        if "decisions" in reply:  # the paper prompt's reply
            raw = reply["decisions"]
            reasoning = cos_prompt.flatten_text(reply.get("analysis", ""))
        else:
            raw = reply.get("actions", [reply["action"]] if "action" in reply else [])
        if not isinstance(raw, list):
            return [], str(reasoning), "actions must be a list", replaced
        proposed: list[Action] = []
        errors: list[str] = []
        for item in raw[: self.config.explore_actions]:
            try:
                proposed.append(cos_prompt.resolve_decision(item, obs))
            except ValueError as exc:
                errors.append(str(exc))
        return proposed, str(reasoning), "; ".join(errors) or None, replaced


__all__ = ["ReplyParsing"]
