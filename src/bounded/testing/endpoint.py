"""A configurable OpenAI-compatible chat endpoint on 127.0.0.1, for tests and benchmarks.

`Endpoint` (`bounded.testing.chat_endpoint`) serves (`bounded.testing.wire`: a real
HTTP/1.1 server) `POST /v1/chat/completions`, `POST /v1/embeddings` and `GET /v1/models`.
Every chat request waits `latency_s`, then takes the next `Reply` of its script
(`endpoint.play(status(429, retry_after="1"), ok())`, `bounded.testing.replies`), then the
`then` reply (by default `ok(content)`): a good reply with or without `usage`, a reasoning
model's reply, an error status with or without `Retry-After`, a connection reset, a
refusal of the json_schema form (or, `refuses`, of every request asking for a
`response_format` type it does not take), a reply dripped one byte at a time, a hang or a
late reply. It counts the calls, the most it had waiting at once, and (`record`) each
request's body and arrival time, so a test counts attempts and the waits between them.

In a process (a context manager):

    with Endpoint(content='{"action": {"id": "wait"}}', latency_s=0.05) as endpoint:
        make_model("openai:m", base_url=endpoint.url)

In a process of its own (`main`, this module's command line: it prints its URL on the
first line, then serves until terminated), playing: every reply names the first legal
action of its request (`bounded.testing.player`; `--plays random --seed N`: one drawn at
random), so a sweep can be rehearsed end to end before paying; `--content` says one fixed
thing instead:

    python -m bounded.testing.endpoint --latency 0.2 --port 8011 --usage counted
    python -m bounded.testing.endpoint --latency 0.1 --content '{"action": {"id": "wait"}}'
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Mapping

from bounded.testing.chat_endpoint import CONTENT, USAGE, Endpoint, Plays, Received
from bounded.testing.replies import (
    Reply,
    drip,
    format_type,
    hang,
    late,
    ok,
    refuse_format,
    refuse_schema,
    reset,
    retry_after_date,
    status,
    thinking,
)
from bounded.testing.wire import EMBEDDING_DIMENSIONS, text_vector


def usage_setting(text: str) -> tuple[str, Mapping[str, int] | None]:
    """`--usage`: `counted`, `none`, or a fixed `PROMPT,COMPLETION` pair of token counts."""
    if text in ("counted", "none"):
        return text, None
    prompt, comma, completion = text.partition(",")
    if not comma or not prompt.isdigit() or not completion.isdigit():
        raise argparse.ArgumentTypeError(
            f"{text!r} is not counted, none or PROMPT,COMPLETION (two whole numbers)"
        )
    fixed = {"prompt_tokens": int(prompt), "completion_tokens": int(completion)}
    return "fixed", {**fixed, "total_tokens": int(prompt) + int(completion)}


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bounded.testing.endpoint",
        description="Serve an OpenAI-compatible chat endpoint on 127.0.0.1 until terminated; "
        "its URL is the first line of stdout. By default every reply names the first legal "
        "action of its request, so any environment plays.",
    )
    parser.add_argument(
        "--plays",
        choices=("first", "random"),
        default="first",
        help="the legal action a reply names: the first, or one drawn from --seed and the "
        "request (the same request gets the same reply)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the seed of --plays random")
    parser.add_argument(
        "--content", default=None, help="what every reply says instead of a legal action"
    )
    parser.add_argument("--port", type=int, default=0, help="port to serve on (0: a free one)")
    parser.add_argument(
        "--usage",
        type=usage_setting,
        default=("fixed", USAGE),
        metavar="counted|none|PROMPT,COMPLETION",
        help="the usage a reply reports: counted from the request as bounded counts tokens, "
        "none, or fixed counts (default 10,5)",
    )
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each reply")
    parser.add_argument(
        "--api-key", default=None, help="refuse (401) every request without this key"
    )
    parser.add_argument(
        "--refuse",
        default="",
        help="response_format types to refuse, comma-separated (json_schema,json_object)",
    )
    return parser


def main(argv: list[str] | None = None) -> None:
    arguments = parser().parse_args(argv)
    refuses = frozenset(kind for kind in arguments.refuse.split(",") if kind)
    usage_kind, fixed = arguments.usage
    try:
        endpoint = Endpoint(
            content=CONTENT if arguments.content is None else arguments.content,
            plays="content" if arguments.content is not None else arguments.plays,
            seed=arguments.seed,
            port=arguments.port,
            latency_s=arguments.latency,
            record=False,
            refuses=refuses,
            api_key=arguments.api_key,
            usage=fixed or USAGE,
            counts_usage=usage_kind == "counted",
            then=ok(usage=usage_kind != "none"),
        )
    except OSError as error:
        raise SystemExit(f"cannot serve on port {arguments.port}: {error.strerror}") from error
    print(endpoint.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        endpoint.close()


__all__ = [
    "CONTENT", "EMBEDDING_DIMENSIONS", "USAGE", "Endpoint", "Plays", "Received", "Reply",
    "drip", "format_type", "hang", "late", "main", "ok", "refuse_format", "refuse_schema",
    "reset", "retry_after_date", "status", "text_vector", "thinking",
]  # fmt: skip

if __name__ == "__main__":
    main()
