import pytest

from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.core import (
    Action,
    Completion,
    ConfigError,
    Embeddings,
    Observation,
    StepResult,
    approx_tokens,
)
from bounded.models.scripted import ScriptedModel, schema_filler
from bounded.runner import GameSpec, play
from bounded.testing import episode

REPLY = '{"reasoning": "noted", "action": {"id": "go"}}'
ROOMS = ["a library full of dusty books", "a forge with a hot anvil", "a garden of red roses"]


def observation(text, t=0):
    return Observation(kind="test", text=text, legal=[Action(id="go")], t=t)


def step(contract, text, t=0):
    obs = observation(text, t)
    prompt = contract.assemble(obs)
    decision = contract.parse(Completion(text=REPLY), obs)
    contract.commit(obs, decision, StepResult())
    return prompt, decision


def layer_text(prompt, layer):
    return "\n".join(s.text for s in prompt.segments if s.layer == layer)


class HashEmbedder(ScriptedModel):
    """A scripted model that embeds: each text's vector counts its letters a..e."""

    def embed(self, texts):
        vectors = [[float(t.count(c)) + 0.01 for c in "abcde"] for t in texts]
        return Embeddings(vectors=vectors, prompt_tokens=len(texts), model=self.id)


def test_the_most_similar_past_decision_is_retrieved_first_with_its_reply_and_action():
    contract = make_contract("rag", {"top_k": 2})
    contract.reset(episode(instructions="Explore."))
    first, decision = step(contract, "the entrance hall")
    assert "retrieved" not in {s.layer for s in first.segments}
    assert decision.extra["retrieved"] == [] and decision.extra["chunks"] == 0
    for t, room in enumerate(ROOMS, start=1):
        step(contract, room, t)
    prompt, decision = step(contract, "back at the forge and its anvil", 9)
    assert decision.extra["retrieved"][0] == 2  # chunk 2 is the forge
    assert decision.extra["chunks"] == 4 and decision.extra["retrieval_s"] >= 0
    retrieved = layer_text(prompt, "retrieved")
    assert retrieved.split("\n\n")[1].startswith("[game 0, t=2, test]\na forge with a hot anvil")
    assert "reply: " + REPLY in retrieved and "action: go" in retrieved
    assert [s.layer for s in prompt.segments] == ["instructions", "retrieved", "observation"]


def test_the_retrieved_segment_keeps_its_token_budget_however_long_the_game():
    contract = make_contract("rag", {"retrieved_tokens": 120, "top_k": 8})
    contract.reset(episode(instructions="Explore."))
    totals = []
    for t in range(300):
        prompt, _ = step(contract, f"room {t % 17}: {ROOMS[t % 3]} and door {t % 5}", t)
        assert approx_tokens(layer_text(prompt, "retrieved")) <= 120
        totals.append(sum(prompt.tokens_by_layer().values()))
    assert max(totals[100:]) <= max(totals[:100]) + 5  # no growth with the game's length
    assert len(contract.chunks) == 300


def test_cross_game_chunks_are_kept_only_when_asked():
    for cross, expected in ((False, 0), (True, 3)):
        contract = make_contract("rag", {"cross_game": cross})
        contract.reset(episode())
        for room in ROOMS:
            step(contract, room)
        contract.reset(episode(seed=1))
        _, decision = step(contract, "the forge again")
        assert decision.extra["chunks"] == expected
    assert contract.chunks[-1].game == 1 and contract.chunks[0].game == 0


def test_embedding_similarity_ranks_by_cosine_and_every_embedding_call_is_metered():
    model = HashEmbedder(lambda messages, constraint: {"reasoning": "", "action": {"id": "go"}})
    contract = make_contract("rag", {"similarity": "embedding", "top_k": 1})
    contract.reset(episode(model=model))
    for text in ("aaaa", "bbbb", "eeee"):
        step(contract, text)
    _, decision = step(contract, "bb")  # no word in common: only the embedding can match
    assert decision.extra["retrieved"] == [1]
    assert all(chunk.vector is not None for chunk in contract.chunks)


def test_a_run_with_an_embedding_model_archives_each_embedding_call(tmp_path):
    model = HashEmbedder(lambda messages, constraint: schema_filler().complete(
        messages, constraint=constraint).text)  # fmt: skip
    spec = GameSpec(env="warehouse", env_options={"horizon": 5}, contract="rag", seed=1)
    with Archive(tmp_path / "a.sqlite") as archive:
        run = play(spec, archive=archive, model=model)
        records = archive.decisions(run.run_id)
    assert run.status == "completed" and run.decisions == 5
    embeddings = [c for r in records for c in r.extra_completions]
    assert len(embeddings) == 5 and {c.finish_reason for c in embeddings} == {"embedding"}
    assert run.model_calls == 10  # five decisions, five embedding calls


def test_embedding_similarity_without_an_embedding_model_is_refused_in_one_line():
    contract = make_contract("rag", {"similarity": "hybrid"})
    with pytest.raises(ConfigError, match="needs a model that embeds"):
        contract.reset(episode(model=schema_filler()))
    auto = make_contract("rag")
    auto.reset(episode(model=schema_filler()))  # auto falls back to BM25
    assert auto._embedder is None


def test_a_restored_snapshot_retrieves_what_the_original_would():
    original = make_contract("rag", {"cross_game": True})
    original.reset(episode())
    for t, room in enumerate(ROOMS * 3):
        step(original, room, t)
    copy = make_contract("rag", {"cross_game": True})
    copy.reset(episode())
    copy.restore_memory(original.memory_snapshot())
    assert copy.store_hashes() == original.store_hashes()
    query = observation("the rose garden", 20)
    assert copy.assemble(query) == original.assemble(query)
    assert copy.retrieve("anvil")[0] == original.retrieve("anvil")[0]


class FlakyEmbedder(HashEmbedder):
    """Fails its third embedding call."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.embeds = 0

    def embed(self, texts):
        self.embeds += 1
        if self.embeds == 3:
            raise ConnectionError("embeddings endpoint down")
        return super().embed(texts)


def test_a_failed_embedding_call_falls_back_to_bm25_for_that_decision():
    model = FlakyEmbedder()
    contract = make_contract("rag", {"similarity": "hybrid"})
    contract.reset(episode(model=model))
    decisions = [step(contract, text, t)[1] for t, text in enumerate([*ROOMS, "the forge"])]
    assert "embedding_error" not in decisions[1].extra
    assert decisions[2].extra["embedding_error"] == "ConnectionError: embeddings endpoint down"
    assert [c.vector is None for c in contract.chunks] == [False, False, True, False]
    assert decisions[3].extra["retrieved"][0] == 1  # the forge, by both scores
