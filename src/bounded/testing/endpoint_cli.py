"""`python -m bounded.testing.endpoint`: the fake endpoint in a process of its own. It prints
its URL on the first line, then serves until terminated."""

from __future__ import annotations

import argparse
import threading
from collections.abc import Mapping

from bounded.testing.endpoint import CONTENT, USAGE, Endpoint
from bounded.testing.replies import ok


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
