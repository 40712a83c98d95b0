"""Replies, in one package by concern: how a reply is asked for and read.

- `policy`: the constraint a model call gets in each reply mode, the reasoning cap in
  force, what an unusable reply executes;
- `reading`: the reply's JSON schema built from the legal actions, and its lenient,
  survivable parse (`parse_decision`);
- `rules`: each method's instruction and reading, per reply mode and text rule;
- `cos`: Chain of Summarization's reference extractor (the `action-tags` rule);
- `settings`: the reply settings every model-asking contract's configuration shares.

The reply modes themselves (`ReplyMode`, `TextRule`, `FallbackPolicy`) are declared with the
protocols (`bounded.protocols`), since models and environments speak them too.
"""
