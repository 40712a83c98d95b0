from bounded.core import Prompt, approx_tokens
from bounded.runner.meter import PromptCounter


def test_a_resent_text_is_counted_once_and_the_counts_are_the_prompts():
    counted = []

    def count(text):
        counted.append(text)
        return approx_tokens(text)

    counter = PromptCounter(count)
    turns = []
    for n in range(6):
        prompt = Prompt().add("instructions", "system", "play well")
        for turn in turns:
            prompt.add("history", "user", turn)
        prompt.add("observation", "user", f"event {n}: nothing")
        assert counter.by_layer(prompt) == prompt.tokens_by_layer(approx_tokens)
        turns.append(f"event {n}: nothing")
    assert sorted(counted) == sorted({"play well", *turns})  # each text once
    assert counter.by_layer(Prompt()) == {}  # a decision without a prompt
    counter.by_layer(Prompt().add("instructions", "system", "play well"))
    assert counted.count("play well") == 2  # kept only from the latest prompt
