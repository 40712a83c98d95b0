"""`episodic` (EpicStar): act from an episodic bank of winning games, explore with the model.

Each decision:

1. **Retrieval** (Eq. 1-3, `bounded.contracts.episodic.bank`): the bank's entries within
   `t_delta` of the current game time, ranked by min-max normalised D_item and D_value
   against the current observation; the top `n`. The retrieved action is the best
   ExtractAction (Algorithm 1): the first action of the top-ranked entry, when it is
   executable now (`replay = "first"`, the paper's: "select the first action", so
   EpicStar acts once per step like CoS); `extract = "first-executable"` falls through
   to the best entry whose first action is executable now; `replay = "plan"` replays
   the entry's whole decision (up to the observation's `max_actions`). No entry, or a
   read entry whose first action is the empty action, is the EmptyAction.
2. **Gating** (Algorithms 1 and 2, `bounded.contracts.episodic.gating`): the retrieved
   action is executed when there is one. When t >= l_e + d_e (`explore_every`) the
   model is asked for `explore_actions` exploration actions, pushed on the queue Q_a.
   When the retrieved action is EmptyAction, the queue is not empty and
   t >= l_q + d_q (`queue_cooldown`), the queue is popped; otherwise the environment's
   empty action is executed. l_e and l_q start at 0 (`gating_start = "paper"`), so the
   first exploration is at t = d_e. On an environment without an empty action the
   model is asked for the action instead (the contract then degrades to a model-driven
   agent with retrieval and working memory in its prompt).
3. **Working memory** (Eq. 4): Q_o(t) = (o_{t-L}, o_{t-2L}, ..., o_{t-k_max L}),
   decisions counted in steps; the augmented observation o_t x Q_o(t) is what an
   exploration prompt shows.
4. **Contextual fusion**: prompts state that recalled actions are used only when
   executable now, and the model writes a short description of the strategy behind
   the retrieved episodes, inserted where Prompt 1 puts it (after the role line);
   descriptions are cached per strategy (the set of source strategies of the retrieved
   entries) for the episode. The no-fusion ablation (`fusion = false`) removes contextual
   fusion whole, the description and the executable-now instruction
   (`fusion_ablation = "fusion"`, the paper's); `"description"` removes the description
   alone; `"legacy"` removes both and replays the top hit only.
5. **Prompt** (`prompt = "paper"`): Appendix B's Prompt 1, the CoS prompt
   (`bounded.contracts.cos_prompt`) with the strategy description; the exploration
   reply is its analysis, suggestions and `explore_actions` decisions. An exploration
   call is LLM(S, o'_t): S, the system prompt with the description, and o'_t, the
   observation with the working memory; `exploration_prompt = "recalled"` also shows
   the recalled episodes and the queue. `"short"` is this
   contract's first prompt (a role paragraph and a reply of actions).

Model calls: the runner asks `propose(obs)` first; a decision the gating settles
(retrieval, queue, empty action) needs no model call. Otherwise the runner assembles
the prompt, calls the model under `reply_schema` and hands the completion to `parse`.
The strategy description is a call the contract makes itself with `episode.model`, which
the runner meters: its tokens are counted with the decision it was made for.

The contract by concern: `planning` (retrieval and gating, `StepPlan`), `bank_file` (the
bank the game plays with), `prompts` (reply schema, prompt, fusion, rendering),
`parsing` (a reply read into the decision), `snapshot` (store hashes and checkpoint);
this module holds the state they share and the episode's loop (reset, commit).
"""

from __future__ import annotations

import logging
from collections import deque
from pathlib import Path

from bounded.contracts.episodic.bank import EpisodicBank
from bounded.contracts.episodic.bank_file import BankFile
from bounded.contracts.episodic.config import EpisodicConfig
from bounded.contracts.episodic.gating import GatingClock
from bounded.contracts.episodic.memory import MemoryEntry
from bounded.contracts.episodic.parsing import ReplyParsing
from bounded.contracts.episodic.planning import StepPlan
from bounded.contracts.episodic.prompts import EpisodicPrompts
from bounded.contracts.episodic.snapshot import MemorySnapshot
from bounded.contracts.step_protocol import PAPER_TEMPERATURE
from bounded.core import JSON, Action, Decision, Observation, StepResult
from bounded.protocols import EpisodeContext, Model

log = logging.getLogger(__name__)


class EpisodicContract(ReplyParsing, EpisodicPrompts, MemorySnapshot, BankFile):
    """EpicStar's episodic memory, working memory, gating and contextual fusion."""

    name = "episodic"
    memory_settings = (
        "bank", "t_delta", "n", "alpha", "beta", "d_value", "memory_interval", "memory_depth",
        "memory_view", "exploration", "explore_every", "explore_actions", "queue_cooldown",
        "queue_limit", "gating_start", "extract", "replay", "fusion", "fusion_ablation",
        "exploration_prompt", "diff_keys"
    )  # fmt: skip
    """The configuration keys that are the memory under test (`MemoryHooks.memory_settings`)."""

    def __init__(self, **settings: object) -> None:
        self.config = EpisodicConfig.model_validate(settings)
        self.bank = EpisodicBank.empty()
        self.bank_path: Path | None = None
        self.instructions = ""
        self.model: Model | None = None
        self.seed: int | None = None
        self.queue: deque[Action] = deque(maxlen=self.config.queue_limit)
        self.history: deque[MemoryEntry] = deque(maxlen=self._history_length())
        """The latest decisions, oldest first, one per step (the working memory's source)."""
        self._history_json: deque[list[object]] = deque(maxlen=self._history_length())
        """`history` as the checkpoint stores it, each entry dumped once."""
        self.descriptions: dict[str, str] = {}
        self.step = 0
        self.clock = GatingClock(
            self.config.explore_every, self.config.queue_cooldown, self.config.gating_start
        )
        self.context_window: int | None = None
        self.sources: dict[str, int] = {}
        self._plan: StepPlan | None = None
        self._injected_bank = False
        self._loaded: tuple[Path, float] | None = None
        self.empty_action: str | None = self.config.empty_action
        """The do-nothing action in force (the configured one, else the environment's)."""
        self.no_bank: str = ""
        """Why the contract plays with an empty bank (no bank configured, none at the
        default path), or "" when it has one; logged at reset and kept in the run's record."""
        if self.config.bank:
            self._load_file(Path(self.config.bank))

    def _history_length(self) -> int:
        return max(1, self.config.memory_interval * self.config.memory_depth)

    # -- episode ----------------------------------------------------------

    def reset(self, episode: EpisodeContext) -> None:
        self.instructions = episode.instructions
        self.model = episode.model
        self.seed = episode.seed
        self.empty_action = self.config.empty_action or episode.empty_action
        self._load_bank(episode.env_id)
        self.queue.clear()
        self.history.clear()
        self._history_json.clear()
        self.descriptions = {}
        self.step = 0
        self.clock.reset()
        self.context_window = self.model.context_window if self.model is not None else None
        self.sources = {}
        self._plan = None
        if self.no_bank:
            log.warning("episodic: %s", self.no_bank)

    paper_temperature = PAPER_TEMPERATURE
    """The temperature of a game whose spec sets none (the paper's, Appendix A.1)."""

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None:
        plan = self.plan(obs)
        source = str(decision.extra.get("source", "model"))
        self.sources[source] = self.sources.get(source, 0) + 1
        entry = MemoryEntry(step=self.step, t=obs.t, features=plan.features, text=obs.text)
        self.history.append(entry)
        self._history_json.append([entry.step, entry.t, entry.features, entry.text])
        self.step += 1
        self._plan = None

    @property
    def postrun_record(self) -> JSON:
        """A run without a bank says so in its record."""
        return {"note": self.no_bank} if self.no_bank else {}


__all__ = ["EpisodicContract"]
