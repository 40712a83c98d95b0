"""Embeddings from an OpenAI-compatible `/v1/embeddings` (the fake server of `conftest.py`),
and a `rag` run that ranks by them."""

import json

import pytest

import bounded
from bounded.archive import Archive
from bounded.models.openai_compat import EndpointError, OpenAICompatModel
from bounded.protocols import Embedder


def test_embed_asks_the_endpoint_and_returns_its_vectors_in_order(fault_server):
    model = OpenAICompatModel("m", base_url=fault_server.url, embedding_model="e5")
    assert isinstance(model, Embedder)
    result = model.embed(["a forge", "a rose garden"])
    vector = fault_server.text_vector
    assert result.vectors == [vector("a forge"), vector("a rose garden")]
    assert result.prompt_tokens == 5 and result.model == "openai:e5"
    assert fault_server.embedding_requests[0]["input"] == ["a forge", "a rose garden"]


def test_a_model_without_an_embedding_model_does_not_embed(fault_server):
    assert not isinstance(OpenAICompatModel("m", base_url=fault_server.url), Embedder)


def test_an_unreachable_embeddings_endpoint_is_one_line():
    model = OpenAICompatModel("m", base_url="http://127.0.0.1:9/v1", embedding_model="e5",
                              retry={"timeout_s": 2})  # fmt: skip
    with pytest.raises(EndpointError, match="openai:m: no reply"):
        model.embed(["x"])


def test_a_rag_run_on_an_endpoint_embeds_each_observation_and_counts_the_calls(
    fault_server, tmp_path
):
    reply = json.dumps({"reasoning": "", "action": {"id": "report", "args": {"occupied": 0,
                        "shipped": 0}}})  # fmt: skip
    fault_server.play(then=fault_server.ok(content=reply))
    spec = bounded.GameSpec(
        env="warehouse", env_options={"horizon": 4}, contract="rag", model="openai:m",
        base_url=fault_server.url, model_options={"embedding_model": "e5"}, seed=1,
    )  # fmt: skip
    with Archive(tmp_path / "a.sqlite") as archive:
        run = bounded.play(spec, archive=archive)
        records = archive.decisions(run.run_id)
    assert run.status == "completed" and run.decisions == 4
    assert len(fault_server.embedding_requests) == 4
    assert run.usage["openai:e5"]["calls"] == 4 and run.usage["openai:m"]["calls"] == 4
    assert records[-1].info["chunks"] == 3 and len(records[-1].info["retrieved"]) == 3
