"""Every marker names one renderer of a topic module, and no renderer writes two tables."""

from __future__ import annotations

from bounded.docgen.registry import RENDERERS

TOPICS = {
    "archive", "balrog", "comparisons", "context_audit", "environments", "epicstar",
    "memory_designs", "quickstart", "replies", "retrieval", "speed", "sweeps",
}  # fmt: skip


def test_every_renderer_is_a_function_of_a_topic_module():
    for marker, renderer in RENDERERS.items():
        package, topic = renderer.__module__.rsplit(".", 1)
        assert (package, topic in TOPICS) == ("bounded.docgen", True), marker
        assert renderer.__doc__, f"{marker}: {renderer.__name__} says nothing of what it renders"


def test_one_renderer_per_table():
    assert len(set(RENDERERS.values())) == len(RENDERERS)
