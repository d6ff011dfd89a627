"""vLLM's serving layer, driven as it drives a tool parser, and the engine's own result.

``stream`` runs vLLM's ``ChatStreamProcessor`` (what ``OpenAIServingChat`` runs per
choice) over deltas and merges the ``DeltaMessage``s as an OpenAI client does;
``whole`` runs the non-streaming path (``Parser.parse`` then
``assemble_chat_message_fields``). ``expected`` is the engine's own result for the same
input, in the plugin's documented shape. ``tokens`` splits text into token-like pieces.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import toolsift
from vllm.entrypoints.openai.chat_completion.message_assembly import (
    assemble_chat_message_fields,
)
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor
from vllm.parser.parser_manager import ParserManager
from vllm.plugins import load_general_plugins

# As vLLM does at startup in every process: the package's entry point registers the
# parsers (nothing here imports the plugin module itself).
load_general_plugins()


class Tokenizer:
    """What a tool parser is built with: the plugin never reads it; vLLM's own parsers
    ask for a vocabulary."""

    def __init__(self) -> None:
        self.ids: Dict[str, int] = {}

    def get_vocab(self) -> Dict[str, int]:
        return dict(self.ids)

    def id(self, token: str) -> int:
        return self.ids.setdefault(token, len(self.ids) + 1)

    def encode(self, text: str, add_special_tokens: bool = False) -> List[int]:
        return [self.id(t) for t in tokens(text, "auto")]

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = False) -> str:
        texts = {i: t for t, i in self.ids.items()}
        return "".join(texts.get(i, "") for i in ids)

    def convert_ids_to_tokens(self, ids: Sequence[int]) -> List[str]:
        texts = {i: t for t, i in self.ids.items()}
        return [texts.get(i, "") for i in ids]

    def __bool__(self) -> bool:
        return True


TOKENIZER = Tokenizer()

_PIECE = re.compile(r" ?[^\W\d_]{1,8}|\d{1,3}| ?[^\w\s]{1,2}|\s{1,4}|_{1,4}|.", re.S)
_MARKERS: Dict[str, "re.Pattern[str]"] = {}


def tokens(text: str, dialect: str) -> List[str]:
    """``text`` as tokens: each of the dialect's markers one token (as special tokens
    are), the rest in pieces of up to 8 letters, 3 digits or 2 symbols, as BPE cuts."""
    pattern = _MARKERS.get(dialect)
    if pattern is None:
        markers = sorted(set(toolsift.markers(dialect)), key=len, reverse=True)
        pattern = re.compile("|".join(re.escape(m) for m in markers if m))
        _MARKERS[dialect] = pattern
    out: List[str] = []
    at = 0
    for m in pattern.finditer(text):
        out.extend(_PIECE.findall(text[at : m.start()]))
        out.append(m.group())
        at = m.end()
    out.extend(_PIECE.findall(text[at:]))
    assert "".join(out) == text
    return out


def splits(toks: List[str], seed: int) -> Dict[str, List[List[str]]]:
    """The ways a stream is cut into deltas: a token each, three each, 2 to 8 at random,
    and all in one (every call in one delta)."""
    rng = random.Random(seed)
    ragged: List[List[str]] = []
    at = 0
    while at < len(toks):
        n = rng.randint(2, 8)
        ragged.append(toks[at : at + n])
        at += n
    return {
        "1_token": [[t] for t in toks],
        "3_tokens": [toks[i : i + 3] for i in range(0, len(toks), 3)],
        "2_to_8_tokens": ragged,
        "one_delta": [toks] if toks else [],
    }


@dataclass
class Result:
    """What a client ends with: content, reasoning and calls."""

    content: str = ""
    reasoning: str = ""
    calls: List[Dict[str, Any]] = field(default_factory=list)
    finish_reason: Optional[str] = None

    def comparable(self) -> Tuple[str, str, List[Tuple[str, str]]]:
        return (self.content, self.reasoning, [(c["name"], c["arguments"]) for c in self.calls])


def request(tools: Optional[List[Dict[str, Any]]], **extra: Any) -> ChatCompletionRequest:
    return ChatCompletionRequest(
        model="m",
        messages=[{"role": "user", "content": "hi"}],
        tools=tools,
        tool_choice="auto",
        **extra,
    )


def parser_class(name: str) -> Any:
    cls = ParserManager.get_parser(tool_parser_name=name, enable_auto_tools=True)
    assert cls is not None
    return cls


def stream(
    name: str,
    req: ChatCompletionRequest,
    deltas: Sequence[str],
    finish_reason: str = "stop",
    reasoning_parser: Optional[str] = None,
) -> Result:
    """The deltas through vLLM's streaming path, merged as a client merges them; checks
    the stream's shape on the way (ids and names once, first; indexes in order)."""
    cls = ParserManager.get_parser(
        tool_parser_name=name, reasoning_parser_name=reasoning_parser, enable_auto_tools=True
    )
    parser = cls(TOKENIZER, req.tools, chat_template_kwargs={}, model_config=None)
    processor = ChatStreamProcessor(req, parser, enable_auto_tools=True, parser_cls=cls)
    result = Result()
    calls: Dict[int, Dict[str, Any]] = {}
    for i, delta in enumerate(deltas):
        last = i == len(deltas) - 1
        ids = [TOKENIZER.id(t) for t in tokens(delta, "auto")]
        step = processor.step(delta, ids, finish_reason if last else None, [1, 2, 3])
        if last:
            result.finish_reason = step.finish_reason
        message = step.delta
        if message is None:
            continue
        result.content += message.content or ""
        result.reasoning += message.reasoning or ""
        for tc in message.tool_calls:
            fn = tc.function
            if tc.index not in calls:
                assert tc.id and fn is not None and fn.name, f"a call's first delta names it: {tc}"
                assert tc.index == len(calls), f"call indexes in order: {tc.index}"
                calls[tc.index] = {"id": tc.id, "name": fn.name, "arguments": ""}
            else:
                assert tc.id is None and (fn is None or fn.name is None), f"named once: {tc}"
            if fn is not None and fn.arguments:
                calls[tc.index]["arguments"] += fn.arguments
    result.calls = [calls[i] for i in sorted(calls)]
    return result


def whole(name: str, req: ChatCompletionRequest, text: str) -> Result:
    """The text through vLLM's non-streaming path."""
    cls = parser_class(name)
    parser = cls(TOKENIZER, req.tools, chat_template_kwargs={}, model_config=None)
    reasoning, content, tool_calls = parser.parse(text, req, enable_auto_tools=True)
    fields = assemble_chat_message_fields(
        req, reasoning, content, tool_calls, enable_auto_tools=True, parser_cls=cls
    )
    return Result(
        content=fields.content or "",
        reasoning=fields.reasoning or "",
        calls=[
            {"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
            for c in fields.tool_calls
        ],
    )


#: The arguments of a call streamed but not released: never strict JSON.
PARTIAL = "<partial: not released>"


def settle(result: Result) -> Result:
    """Marks each streamed call whose arguments are not a strict JSON object PARTIAL."""
    for call in result.calls:
        try:
            ok = isinstance(json.loads(call["arguments"]), dict)
        except ValueError:
            ok = False
        if not ok:
            call["arguments"] = PARTIAL
    return result


def expected(
    dialect: str,
    tools: Optional[List[Dict[str, Any]]],
    text: str,
    streaming: bool,
    hold: bool = False,
) -> Result:
    """The engine's own result on the whole text, in the shape the plugin documents:
    each call not released adds its feedback to the content as a paragraph; reasoning is
    the `reasoning` field when streaming, else `<think>...</think>` before the content;
    streaming calls (unless held) that started and were not released stay as PARTIAL."""
    parser = toolsift.Parser(dialect, tools)
    events = parser.push(text) + parser.finish("stop")
    content = ""
    reasoning = ""
    calls = []
    started: Dict[int, Dict[str, Any]] = {}
    for e in events:
        if isinstance(e, toolsift.CallStarted) and streaming and not hold:
            started[e.index] = {"id": e.id, "name": e.name, "arguments": PARTIAL}
            calls.append(started[e.index])
            continue
        if isinstance(e, toolsift.CallFinished) and e.index in started:
            started[e.index]["arguments"] = e.arguments
            continue
        if isinstance(e, toolsift.Text):
            content += e.text
        elif isinstance(e, toolsift.Reasoning):
            reasoning += e.text
        elif isinstance(e, toolsift.CallFinished):
            calls.append({"id": e.id, "name": e.name, "arguments": e.arguments})
        elif isinstance(e, toolsift.CallNotReleased):
            content += ("\n\n" if content else "") + e.feedback
    if not streaming:
        if reasoning:
            content = f"<think>{reasoning}</think>{content}"
            reasoning = ""
        if calls and not content.strip():
            content = ""
    return Result(content=content, reasoning=reasoning, calls=calls)


def tools_for(case_tools: Optional[List[Dict[str, Any]]], dialect: str, text: str) -> List[Dict[str, Any]]:
    """The request's tools: the case's own, else one tool per name the engine calls
    (vLLM extracts calls only for a request with tools)."""
    if case_tools:
        return case_tools
    parser = toolsift.Parser(dialect)
    names = []
    for e in parser.push(text) + parser.finish():
        name = getattr(e, "name", None)
        if isinstance(e, (toolsift.CallFinished, toolsift.CallNotReleased)) and name and name not in names:
            names.append(name)
    names = names or ["unused"]
    return [
        {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
        for n in names
    ]


def strict_json(text: str) -> Any:
    return json.loads(text)
