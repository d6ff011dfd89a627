"""The shared peer-parser cases through the SGLang detectors, as SGLang's serving layer
drives them (`FunctionCallParser`: `parse_stream_chunk` per delta, `parse_stream_end` on
the last; `has_tool_call` then `parse_non_stream` for a whole response).

Every case is read with its dialect (`toolsift_<dialect>`) and with `toolsift` (auto),
whole and cut into deltas of one token, three tokens, 2 to 8 at random, and all in one;
each result must equal the engine's own result (`expected.expected`, reasoning inline).
The detectors are registered by the package's `sglang.srt.plugins` entry point, loaded
as SGLang loads it. Runs in the SGLang environment (`.ci/run`); skipped where sglang is
not installed, a failure under CI=true.
"""

from typing import Any, Dict, List

import pytest

from conftest import IN_CI, peer_cases, shared_dir

try:
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from sglang.srt.plugins import load_plugins

    load_plugins()  # as every SGLang process does, before it reads its arguments
    HAVE_SGLANG = True
except ImportError:
    if IN_CI and __import__("os").environ.get("TOOLSIFT_SGLANG") == "1":
        raise
    HAVE_SGLANG = False

pytestmark = pytest.mark.skipif(not HAVE_SGLANG, reason="sglang is not installed")

import expected as engine  # noqa: E402
import toolsift  # noqa: E402

CASES = peer_cases()


def stream(name: str, tools: List[Any], deltas: List[str]) -> engine.Result:
    parser = FunctionCallParser(tools, name)
    result = engine.Result()
    calls: Dict[int, Dict[str, Any]] = {}
    for i, delta in enumerate(deltas):
        text, items = parser.parse_stream_chunk(delta)
        if i == len(deltas) - 1:
            end_text, end_items = parser.parse_stream_end()
            text = (text or "") + end_text
            items = list(items) + list(end_items)
        result.content += text or ""
        for item in items:
            if item.tool_index not in calls:
                assert item.name, f"a call's first item names it: {item}"
                calls[item.tool_index] = {"id": "", "name": item.name, "arguments": ""}
            else:
                assert not item.name, f"named once: {item}"
            calls[item.tool_index]["arguments"] += item.parameters
    result.calls = [calls[i] for i in sorted(calls)]
    return engine.settle(result)


def whole(name: str, tools: List[Any], text: str) -> engine.Result:
    parser = FunctionCallParser(tools, name)
    if not parser.has_tool_call(text):
        return engine.Result(content=text)
    normal, items = parser.parse_non_stream(text)
    return engine.Result(
        content=normal,
        calls=[{"id": "", "name": c.name, "arguments": c.parameters} for c in items],
    )


def test_registered_with_sglang() -> None:
    from sglang.srt.function_call.parser_names import TOOL_CALL_PARSER_NAMES
    from sglang.srt.server_args import _tool_call_parser_choices

    from toolsift.sglang_plugin import detector_names

    names = [name for name, _ in detector_names()]
    assert {f"toolsift_{d}" for d in toolsift.dialects() if d != "auto"} <= set(names)
    assert {f"toolsift_{a}" for d in toolsift.dialects() for a in toolsift.aliases(d)} <= set(names)
    for name in names:
        assert name in FunctionCallParser.ToolCallParserEnum
        assert name in TOOL_CALL_PARSER_NAMES
        assert name in _tool_call_parser_choices()


def test_the_cases_are_there() -> None:
    shared_dir()
    assert len(CASES) >= 200


@pytest.mark.parametrize("mode", ["named", "auto"])
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case_through_the_detector(case: Dict[str, Any], mode: str) -> None:
    dialect = toolsift.dialect_name(case["dialect"] or case["source_dialect"]) if mode == "named" else "auto"
    assert dialect, case["id"]
    name = "toolsift" if dialect == "auto" else f"toolsift_{dialect}"
    raw = case["raw"]
    tool_dicts = engine.tools_for(case["tools"], dialect, raw)
    tools = [Tool.model_validate(t) for t in tool_dicts]

    def same(got: engine.Result, want: engine.Result) -> bool:
        return (got.content, [(c["name"], c["arguments"]) for c in got.calls]) == (
            want.content,
            [(c["name"], c["arguments"]) for c in want.calls],
        )

    # SGLang reads a whole response only where the detector says it holds a call (any
    # call, released or not); elsewhere the text passes as it is.
    probe = toolsift.Parser(dialect)
    has_call = any(
        isinstance(e, (toolsift.CallStarted, toolsift.CallFinished, toolsift.CallNotReleased))
        for e in probe.push(raw) + probe.finish()
    )
    if has_call:
        want = engine.expected(dialect, tool_dicts, raw, streaming=False, reasoning="inline", blank_if_calls=False)
    else:
        want = engine.Result(content=raw)
    assert same(whole(name, tools, raw), want), "non-streaming"

    want = engine.expected(dialect, tool_dicts, raw, streaming=True, reasoning="inline")
    toks = engine.tokens(raw, dialect)
    for split, deltas in engine.splits(toks, seed=len(raw)).items():
        got = stream(name, tools, ["".join(d) for d in deltas])
        assert same(got, want), f"streaming, {split}"
