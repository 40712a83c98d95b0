"""The memory designs on the embedded model: llama.cpp's embedding mode for `rag`, and
each design's reply schema decoded under its grammar to a legal, parsed decision."""

import math

import pytest

from bounded.contracts import make_contract
from bounded.core import Action, Observation
from bounded.protocols import Embedder
from bounded.testing import episode

pytestmark = pytest.mark.model

OBS = Observation(
    kind="choice",
    text="A shop sells a relic. You have 80 gold. Buy it or leave?",
    legal=[Action(id="buy", label="buy the relic"), Action(id="leave", label="leave")],
)


def cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def test_the_embedded_model_embeds_deterministically_and_alike_for_alike_texts(local_model):
    assert isinstance(local_model, Embedder)
    texts = ["a shop sells a relic", "a shop sells a potion", "the boss attacks for 30"]
    first = local_model.embed(texts)
    assert len({len(v) for v in first.vectors}) == 1 and first.prompt_tokens > 0
    one = local_model.embed(texts[:1])  # as `rag` asks: one text a call
    assert local_model.embed(texts[:1]).vectors == one.vectors  # after another call too
    near, far = cosine(*first.vectors[:2]), cosine(first.vectors[0], first.vectors[2])
    assert near > far


@pytest.mark.parametrize("name", ["rag", "reflexion", "paged"])
def test_each_design_replies_legally_under_its_grammar(local_model, name):
    contract = make_contract(name)
    contract.reset(episode(instructions="You shop in a dungeon.", model=local_model))
    prompt = contract.assemble(OBS)
    completion = local_model.complete(
        prompt.messages(), constraint=contract.reply_schema(OBS), max_tokens=160
    )
    decision = contract.parse(completion, OBS)
    assert decision.parse_error is None, completion.text
    assert decision.actions[0].id in {"buy", "leave"}
