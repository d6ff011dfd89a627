"""The engine's own result, in the shape a plugin documents, and token-like splits.

Shared by the vLLM and SGLang tests and the side-by-side bench; imports neither engine.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import toolsift

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
    tools: Optional[List[Any]],
    text: str,
    streaming: bool,
    hold: bool = False,
    reasoning: str = "",
    blank_if_calls: bool = True,
) -> Result:
    """The engine's own result on the whole text, in the shape the plugins document:
    each call not released adds its feedback to the content as a paragraph; streamed
    calls (unless held) that started and were not released stay PARTIAL. Reasoning goes
    (`reasoning`) to the `field` (vLLM streaming, the default there), `front` of the
    content between `<think>` and `</think>` (vLLM non-streaming), or `inline`: each run
    of it between `<think>` and `</think>` where it stands (SGLang). vLLM's non-streaming
    path drops content of blanks beside calls (`blank_if_calls`); SGLang's keeps it."""
    if not reasoning:
        reasoning = "field" if streaming else "front"
    parser = toolsift.Parser(dialect, tools)
    events = parser.push(text) + parser.finish("stop")
    content = ""
    thought = ""
    in_thought = False
    calls = []
    started: Dict[int, Dict[str, Any]] = {}
    for e in events:
        if reasoning == "inline" and in_thought and not isinstance(e, toolsift.Reasoning):
            content += "</think>"
            in_thought = False
        if isinstance(e, toolsift.CallStarted) and streaming and not hold:
            started[e.index] = {"id": e.id, "name": e.name, "arguments": PARTIAL}
            calls.append(started[e.index])
        elif isinstance(e, toolsift.CallFinished) and e.index in started:
            started[e.index]["arguments"] = e.arguments
        elif isinstance(e, toolsift.Text):
            content += e.text
        elif isinstance(e, toolsift.Reasoning):
            if reasoning == "inline":
                if not in_thought:
                    content += "<think>"
                    in_thought = True
                content += e.text
            else:
                thought += e.text
        elif isinstance(e, toolsift.CallFinished):
            calls.append({"id": e.id, "name": e.name, "arguments": e.arguments})
        elif isinstance(e, toolsift.CallNotReleased):
            content += ("\n\n" if content else "") + e.feedback
    if reasoning == "front" and thought:
        content = f"<think>{thought}</think>{content}"
        thought = ""
    if not streaming and blank_if_calls and calls and not content.strip():
        content = ""
    return Result(content=content, reasoning=thought, calls=calls)


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
