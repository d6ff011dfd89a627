"""The Python API: every event kind, parse, repair, errors, options, threads."""

import json
import threading
import time
from typing import Any, List

import pytest

import toolsift
from toolsift import (
    ArgsDelta,
    CallFinished,
    CallNotReleased,
    CallStarted,
    End,
    Parser,
    Reasoning,
    Text,
)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    }
]


def run(parser: Parser, chunks: List[Any], stop: str = "stop") -> List[Any]:
    events: List[Any] = []
    for chunk in chunks:
        events.extend(parser.push(chunk))
    events.extend(parser.finish(stop))
    return events


def test_every_event_kind() -> None:
    text = (
        "<think>plan</think>Writing.\n"
        '<tool_call>{"name": "write_file", "arguments": {"path": "a.txt", "content": "hi",}}</tool_call>'
        '<tool_call>{"name": "write_file", "arguments": {"path": "b.txt", "content": "cut'
    )
    events = run(Parser("hermes", TOOLS), [text[i : i + 7] for i in range(0, len(text), 7)], "length")
    kinds = {type(e) for e in events}
    assert kinds == {Text, Reasoning, CallStarted, ArgsDelta, CallFinished, CallNotReleased, End}
    assert "".join(e.text for e in events if isinstance(e, Reasoning)) == "plan"
    assert "".join(e.text for e in events if isinstance(e, Text)) == "Writing.\n"
    finished = [e for e in events if isinstance(e, CallFinished)]
    assert len(finished) == 1
    call = finished[0]
    assert (call.index, call.id, call.name) == (0, "call_0", "write_file")
    assert call.arguments == '{"path": "a.txt", "content": "hi"}'
    assert call.repairs == ["trailing_comma"]
    assert call.validation is None
    # Argument deltas only grow; joined, they are the final arguments.
    assert "".join(e.fragment for e in events if isinstance(e, ArgsDelta) and e.index == 0) == call.arguments
    cut = [e for e in events if isinstance(e, CallNotReleased)]
    assert len(cut) == 1
    assert (cut[0].index, cut[0].name, cut[0].reason) == (1, "write_file", "truncated")
    assert json.loads(cut[0].completed) == {"path": "b.txt"}
    assert "write_file" in cut[0].feedback
    end = events[-1]
    assert isinstance(end, End) and end.stop == "length" and end.truncated


def test_reprs_are_readable_and_events_compare() -> None:
    events = run(Parser("hermes"), ['<tool_call>{"name": "ls", "arguments": {}}</tool_call>'])
    assert repr(events[0]) == "CallStarted(index=0, id='call_0', name='ls')"
    assert repr(events[-1]) == "End(stop='stop', truncated=False)"
    assert repr(Parser("hermes")) == "Parser(dialect='hermes')"
    again = run(Parser("hermes"), ['<tool_call>{"name": "ls", "arguments": {}}</tool_call>'])
    assert events == again
    assert events[0] != events[1]


def test_pattern_matching_by_position() -> None:
    (event,) = Parser("hermes").push("hello")
    match event:
        case Text(text):
            assert text == "hello"
        case _:
            pytest.fail("Text did not match")


def test_bytes_and_str_give_the_same_events_however_split() -> None:
    text = 'Sure — <tool_call>{"name": "ls", "arguments": {"path": "é"}}</tool_call> done'
    data = text.encode()
    whole = run(Parser(), [text])
    bytewise = run(Parser(), [data[i : i + 1] for i in range(len(data))])
    assert toolsift.Message.from_events(whole) == toolsift.Message.from_events(bytewise)


def test_reset_starts_over() -> None:
    parser = Parser()
    parser.push('<tool_call>{"name": "ls", "arg')
    parser.reset()
    events = run(parser, ["plain text"])
    message = toolsift.Message.from_events(events)
    assert (message.content, message.calls, message.not_released) == ("plain text", [], [])
    assert parser.stats()["bytes"] > 0


def test_auto_locks_and_reports_the_dialect() -> None:
    parser = Parser()
    assert parser.dialect == "auto"
    parser.push("[TOOL_CALLS]get_weather[ARGS]{}")
    assert parser.dialect == "mistral"


def test_parse_gives_an_openai_message() -> None:
    m = toolsift.parse(
        "<think>r</think>Hi.<tool_call>{'name': 'write_file', 'arguments': {'path': 'x', 'content': 'y'}}</tool_call>",
        tools=TOOLS,
    )
    assert (m.content, m.reasoning, m.finish_reason) == ("Hi.", "r", "tool_calls")
    assert m.tool_calls == [
        {
            "id": "call_0",
            "type": "function",
            "function": {"name": "write_file", "arguments": '{"path": "x", "content": "y"}'},
        }
    ]
    assert "single_quoted_string" in m.calls[0].repairs
    assert m.to_openai()["tool_calls"] == m.tool_calls
    assert m.to_openai()["reasoning_content"] == "r"


def test_parse_reports_calls_not_released() -> None:
    m = toolsift.parse('<tool_call>{"name": "rm", "arguments": {}}</tool_call>', tools=TOOLS)
    assert m.tool_calls == []
    (nr,) = m.not_released
    assert nr.reason == "unknown_tool" and "write_file" in nr.feedback
    assert m.finish_reason == "stop"
    cut = toolsift.parse('<tool_call>{"name": "write_file", "arguments": {"path": "a', stop="length")
    assert cut.finish_reason == "length" and cut.truncated
    assert cut.not_released[0].reason == "truncated"


def test_options() -> None:
    m = toolsift.parse('<tool_call>{"name": "rm", "arguments": {}}</tool_call>', tools=TOOLS, unknown_tool="forward")
    assert [c["function"]["name"] for c in m.tool_calls] == ["rm"]
    m = toolsift.parse('<tool_call>{"name": "ls", "arguments": {}}</tool_call>', id_prefix="req7_")
    assert m.tool_calls[0]["id"] == "req7_0"
    held = toolsift.parse(
        '<tool_call>{"name": "write_file", "arguments": {"path": 3}}</tool_call>', tools=TOOLS, invalid="hold"
    )
    assert held.tool_calls == [] and held.not_released[0].reason == "schema_violation"
    released = toolsift.parse('<tool_call>{"name": "write_file", "arguments": {"path": 3}}</tool_call>', tools=TOOLS)
    assert released.calls[0].validation
    big = toolsift.parse('<tool_call>{"name": "ls", "arguments": {"a": "' + "x" * 100 + '"}}</tool_call>', max_args_bytes=50)
    assert big.not_released[0].reason == "limit_exceeded"
    thought = toolsift.parse(
        '<think><tool_call>{"name": "ls", "arguments": {}}</tool_call></think>', dialect="hermes", in_reasoning="extract"
    )
    assert [c["function"]["name"] for c in thought.tool_calls] == ["ls"]
    opened = toolsift.parse("still thinking</think>Answer.", dialect="hermes", reasoning_open=True)
    assert (opened.reasoning, opened.content) == ("still thinking", "Answer.")


def test_tools_as_json_text_or_objects() -> None:
    class Dumps:
        def model_dump(self, exclude_none: bool = False) -> Any:
            return TOOLS[0]

    for tools in (TOOLS, json.dumps(TOOLS), json.dumps(TOOLS).encode(), {"tools": TOOLS}, [Dumps()]):
        assert Parser("hermes", tools).tools == ["write_file"]


def test_errors() -> None:
    with pytest.raises(ValueError, match='unknown dialect "nope"'):
        Parser("nope")
    with pytest.raises(ValueError, match="unknown_tool must be one of reject, forward"):
        Parser(unknown_tool="maybe")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_depth must be at least 1"):
        Parser(max_depth=0)
    with pytest.raises(toolsift.ToolsError):
        Parser(tools="[not json")
    with pytest.raises(toolsift.ToolsError):
        Parser(tools=[object()])
    with pytest.raises(ValueError, match="stop must be"):
        Parser().finish("later")
    with pytest.raises(TypeError):
        Parser().push(3)  # type: ignore[arg-type]
    assert issubclass(toolsift.RepairError, toolsift.Error)
    assert issubclass(toolsift.Error, ValueError)


def test_repair() -> None:
    fixed = toolsift.repair("{'path': 'a.txt', recursive: True,}")
    assert fixed.json == '{"path": "a.txt", "recursive": true}'
    assert fixed.repairs == ["single_quoted_string", "unquoted_key", "trailing_comma", "python_literal"]
    assert toolsift.repair(b'{"a": 1}').repairs == []
    assert set(fixed.repairs) <= set(toolsift.repair_names())
    with pytest.raises(toolsift.RepairError, match="no JSON value"):
        toolsift.repair("")
    with pytest.raises(toolsift.RepairError):
        toolsift.repair("[" * 200)


def test_dialects() -> None:
    names = toolsift.dialects()
    assert names[0] == "auto" and "hermes" in names and "qwen3_coder" in names
    assert len(set(names)) == len(names)
    for name in names:
        assert Parser(name).dialect == name
        assert toolsift.dialect_name(name) == name
    assert toolsift.dialect_name("qwen") == "hermes"
    assert toolsift.dialect_name("nope") is None
    assert "qwen3_json" in toolsift.aliases("hermes")
    assert "hf" in toolsift.aliases("auto")
    for name in names:
        for alias in toolsift.aliases(name):
            assert toolsift.dialect_name(alias) == name
    assert "<tool_call>" in toolsift.markers("hermes")


def _big_call(n: int) -> str:
    return '<tool_call>{"name": "write_file", "arguments": {"path": "a", "content": "' + "x\\n" * n + '"}}</tool_call>'


def test_the_gil_is_released_on_large_chunks() -> None:
    """While one thread is inside the engine on a large chunk, another runs Python.

    The switch interval is made long, so a thread holding the GIL keeps it: had the push
    held it, the counting thread could not count while it ran."""
    import sys

    text = _big_call(2_000_000)
    count = [0]
    done = threading.Event()

    def counter() -> None:
        while not done.is_set():
            count[0] += 1

    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.5)
    try:
        thread = threading.Thread(target=counter)
        thread.start()
        while count[0] == 0:
            time.sleep(0.001)
        before = count[0]
        events = Parser("hermes").push(text)
        during = count[0] - before
        done.set()
        thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert any(isinstance(e, CallStarted) for e in events)
    assert during > 1000, f"the other thread counted {during} while the engine worked"


def test_two_parsers_on_two_threads_progress_together() -> None:
    text = _big_call(1_000_000)
    results: List[Any] = []

    def work() -> None:
        parser = Parser("hermes")
        results.append(toolsift.Message.from_events(run(parser, [text])))

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 2 and results[0] == results[1]
    assert len(results[0].calls) == 1


def test_a_parser_shared_across_threads_raises() -> None:
    parser = Parser("hermes")
    text = _big_call(3_000_000)
    errors: List[BaseException] = []
    inside = threading.Event()

    def push() -> None:
        inside.set()
        parser.push(text)

    worker = threading.Thread(target=push)
    worker.start()
    inside.wait()
    deadline = time.monotonic() + 10
    while worker.is_alive() and time.monotonic() < deadline:
        try:
            parser.push("more")
        except RuntimeError as e:
            errors.append(e)
            break
    worker.join()
    assert errors, "the second thread was never refused"
    assert "in use by another thread" in str(errors[0])
    # The parser is intact afterwards.
    assert isinstance(parser.finish()[-1], End)
