"""`rag`: retrieval over the raw trajectory, the memory design AgenticSTS argues against
("raw logs as similarity RAG", because nearby-looking states can differ strategically).

Every committed decision becomes a chunk: the observation's text, the model's reply and
the executed action(s). Each decision's prompt holds the instructions, the top `top_k`
chunks most similar to the current observation (layer `retrieved`, most similar first,
each chunk only while it fits `retrieved_tokens`) and the current observation with the
reply format (layer `observation`). No transcript: the prompt is bounded by
|instructions| + `retrieved_tokens` + |observation| whatever the game's length. The index
is not: it holds a chunk of every decision, so this contract's memory (and its scoring
time per decision) grows with the game by design (bench/memory_scaling.py).

Similarity (`similarity`): `bm25` ranks chunks by BM25 on their text
(`bounded.contracts._search`); `embedding` by cosine of embeddings, which needs a model
that embeds (`bounded.protocols.Embedder`: the embedded model through llama.cpp's embedding
mode, or an OpenAI-compatible `/v1/embeddings` endpoint); `hybrid` adds the two (BM25
divided by its best score, weighted `hybrid_weight`); `auto` (the default) is `hybrid`
where the model embeds and `bm25` where it does not. Both indexes are incremental: a chunk
is added once, at commit. Every embedding call goes through the run's metered model and
is archived with its decision (`extra_completions`, `finish_reason="embedding"`).

Each decision records what it retrieved (`retrieved`: chunk ids, `chunks`: the index's
size) and the retrieval's own time (`retrieval_s`, wall-clock seconds of scoring and
ranking; embedding calls are timed in their own completions). With `cross_game`, the
chunks of earlier games played by the same contract object (a ladder, a learning
phase) stay searchable; by default each game starts with an empty index.
"""

from __future__ import annotations

import hashlib
import time
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bounded.contracts._configured import ConfiguredContract
from bounded.contracts._render import render_observation
from bounded.contracts._search import BM25Index, VectorIndex, hybrid, top
from bounded.contracts.replies.reading import scrub
from bounded.contracts.replies.settings import FallbackSettings, ReasoningSettings
from bounded.core import (
    JSON,
    Action,
    Completion,
    ConfigError,
    Decision,
    Observation,
    Prompt,
    StepResult,
    TokenCounter,
    approx_tokens,
)
from bounded.protocols import Embedder, EpisodeContext, Model

Similarity = Literal["auto", "bm25", "embedding", "hybrid"]

RETRIEVED_HEADER = "Past moments most like this one (most similar first):"


class RagConfig(ReasoningSettings, FallbackSettings):
    """Settings of the retrieval contract (a reply's reasoning is stored in its chunk)."""

    model_config = ConfigDict(extra="forbid")

    top_k: int = Field(default=4, ge=1, le=64)
    """How many chunks a decision retrieves (at most: the token budget may keep fewer)."""
    retrieved_tokens: int = Field(default=600, ge=32)
    """Budget of the retrieved segment, in the model's tokens; a chunk that does not fit
    is left out, so the prompt never grows with the game."""
    chunk_chars: int = Field(default=800, ge=80)
    """A chunk's observation and reply are each cut to this many characters."""
    similarity: Similarity = "auto"
    """`bm25`, `embedding`, `hybrid`, or `auto` (hybrid where the model embeds, else bm25)."""
    hybrid_weight: float = Field(default=0.5, ge=0.0, le=1.0)
    """BM25's share of a hybrid score (the rest is cosine)."""
    cross_game: bool = False
    """Keep the chunks of earlier games of this contract object searchable."""
    bm25_k1: float = Field(default=1.5, gt=0)
    bm25_b: float = Field(default=0.75, ge=0, le=1)


class Chunk(BaseModel):
    """One past decision as retrieval sees it."""

    game: int
    t: float
    kind: str
    observation: str
    reply: str
    action: str
    vector: list[float] | None = None

    def text(self) -> str:
        return f"{self.observation}\nreply: {self.reply}\naction: {self.action}"

    def render(self) -> str:
        return f"[game {self.game}, t={self.t:g}, {self.kind}]\n{self.text()}"


def action_text(actions: list[Action]) -> str:
    """The actions as a chunk shows them (a fallback's are not the model's: none shown)."""
    shown = ", ".join(a.id + (f" {a.args}" if a.args else "") for a in actions)
    return shown or "(unusable reply)"


def chain(previous: str, chunk: Chunk) -> str:
    """The running hash of the chunk list after `chunk` (one step, not the whole list)."""
    return hashlib.sha256((previous + chunk.model_dump_json()).encode()).hexdigest()


class RagContract(ConfiguredContract[RagConfig]):
    """Instructions, the top-k most similar past chunks, the current observation."""

    name = "rag"
    memory_settings = (
        "top_k", "retrieved_tokens", "chunk_chars", "similarity", "hybrid_weight", "cross_game"
    )  # fmt: skip
    """The configuration keys that are the memory under test (`MemoryHooks.memory_settings`)."""

    def __init__(self, **settings: object) -> None:
        self.config = RagConfig.model_validate(settings)
        self.instructions = ""
        self.chunks: list[Chunk] = []
        self._dumped: list[JSON] = []
        """Each chunk as dumped once, when it was added (the snapshot's append-only log)."""
        self.game = -1
        self.chunks_hash = ""
        self._count: TokenCounter = approx_tokens
        self._embedder: Embedder | None = None
        self._bm25 = BM25Index(self.config.bm25_k1, self.config.bm25_b)
        self._vectors = VectorIndex()
        self._pending_reply = ""
        self._query_vector: list[float] | None = None
        self._embed_error = ""
        self._last: JSON = {}

    # -- lifecycle ------------------------------------------------------------------

    def reset(self, episode: EpisodeContext) -> None:
        self.instructions = episode.instructions
        model = self.model = episode.model
        self._count = model.count_tokens if model is not None else approx_tokens
        self._embedder = self._embedder_of(model)
        self.game += 1
        if not self.config.cross_game:
            self.chunks, self.chunks_hash, self._dumped = [], "", []
        self._rebuild()
        self._pending_reply, self._last, self._query_vector = "", {}, None

    def _embedder_of(self, model: Model | None) -> Embedder | None:
        wanted = self.config.similarity
        embeds = isinstance(model, Embedder)
        if wanted in ("embedding", "hybrid") and model is not None and not embeds:
            raise ConfigError(
                f"rag config: similarity {wanted!r} needs a model that embeds; "
                f"{model.id} does not (use bm25 or auto)"
            )
        if wanted == "bm25" or not embeds:
            return None
        return model  # type: ignore[return-value]

    def _rebuild(self) -> None:
        self._bm25 = BM25Index(self.config.bm25_k1, self.config.bm25_b)
        self._vectors = VectorIndex()
        for chunk in self.chunks:
            self._index(chunk)

    def _index(self, chunk: Chunk) -> None:
        doc = self._bm25.add(chunk.text())
        if chunk.vector is not None:
            self._vectors.add(doc, chunk.vector)

    # -- one decision ---------------------------------------------------------------

    def assemble(self, obs: Observation) -> Prompt:
        found, seconds = self.retrieve(obs.text)
        kept, lines, room = [], [RETRIEVED_HEADER], self.config.retrieved_tokens
        room -= self._count(RETRIEVED_HEADER)
        for doc in found:
            text = self.chunks[doc].render()
            cost = self._count(text)
            if cost > room:
                continue
            lines.append(text)
            kept.append(doc)
            room -= cost
        self._last = {"retrieved": kept, "chunks": len(self.chunks), "retrieval_s": seconds}
        if self._embed_error:
            self._last["embedding_error"], self._embed_error = self._embed_error, ""
        prompt = Prompt()
        prompt.add("instructions", "system", self.instructions.strip())
        if kept:
            prompt.add("retrieved", "user", "\n\n".join(lines))
        current = f"{render_observation(obs)}\n\n{self.reply_instruction(obs)}"
        prompt.add("observation", "user", current)
        return prompt

    def retrieve(self, query: str) -> tuple[list[int], float]:
        """The ids of the `top_k` chunks most similar to `query`, best first, and the
        seconds scoring and ranking took (an embedding call for the query is not in them)."""
        vector = self._query_vector = self._embed(query) if self._embedder is not None else None
        if not self.chunks:
            return [], 0.0
        started = time.perf_counter()
        wanted = self.config.similarity
        if vector is None:  # no embedder, or its call failed: BM25 alone this decision
            scores = self._bm25.scores(query)
        elif wanted == "embedding":
            scores = self._vectors.scores(vector)
        else:
            lexical = self._bm25.scores(query)
            scores = hybrid(lexical, self._vectors.scores(vector), self.config.hybrid_weight)
        found = [doc for doc, _ in top(scores, self.config.top_k)]
        return found, time.perf_counter() - started

    def _embed(self, text: str) -> list[float] | None:
        """The text's embedding, or None when the call failed (recorded on the decision:
        `embedding_error`; that decision ranks by BM25, its chunk has no vector)."""
        assert self._embedder is not None
        try:
            return self._embedder.embed([text]).vectors[0]
        except Exception as exc:  # an endpoint's failure must not end the run
            self._embed_error = f"{type(exc).__name__}: {exc}"[:300]
            return None

    def parse(self, completion: Completion, obs: Observation) -> Decision:
        decision, _ = self.read_reply(completion, obs)
        self._pending_reply = scrub(completion.text)[0][: self.config.chunk_chars]
        decision.extra.update(self._last)
        return decision

    def commit(self, obs: Observation, decision: Decision, result: StepResult) -> None:
        limit = self.config.chunk_chars
        chunk = Chunk(
            game=self.game,
            t=obs.t,
            kind=obs.kind,
            observation=obs.text[:limit],
            reply=self._pending_reply or decision.reasoning[:limit],
            action=action_text(decision.actions),
            vector=self._query_vector,
        )
        self.chunks.append(chunk)
        self._dumped.append(chunk.model_dump())
        self.chunks_hash = chain(self.chunks_hash, chunk)
        self._index(chunk)
        self._pending_reply, self._last, self._query_vector = "", {}, None

    # -- records and resume ---------------------------------------------------------

    def store_hashes(self) -> dict[str, str]:
        """The running hash of every chunk so far (the searchable trajectory)."""
        return {"chunks": self.chunks_hash}

    def memory_snapshot(self) -> JSON:
        """Every chunk (embeddings included) and the game counter; the indexes are rebuilt
        from the chunks on restore. The chunks are a memory log: a checkpoint stores only
        the ones added since the last, so it costs the same at every decision."""
        return {
            "chunks": self._dumped,
            "game": self.game,
            "chunks_hash": self.chunks_hash,
        }

    def memory_logs(self) -> tuple[str, ...]:
        return ("chunks",)

    def restore_memory(self, memory: JSON) -> None:
        self._dumped = list(memory["chunks"])
        self.chunks = [Chunk.model_validate(chunk) for chunk in self._dumped]
        self.game = memory["game"]
        self.chunks_hash = memory["chunks_hash"]
        self._rebuild()
        self._pending_reply, self._last, self._query_vector = "", {}, None


__all__ = ["Chunk", "RagConfig", "RagContract"]
