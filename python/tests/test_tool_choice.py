"""The request decides what may be released: ``tool_choice`` and ``parallel_tool_calls``
through the Python API, in every shape OpenAI's and Anthropic's requests write them."""

import json
import re
from typing import Any, Dict, List, Tuple

import pytest

import toolsift
from toolsift import (
    ArgsDelta,
    CallFinished,
    CallNotReleased,
    CallStarted,
    End,
    Message,
    Parser,
    Text,
    ToolChoiceError,
    ToolChoiceUnmet,
)

TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {}}}}
    for name in ("get_weather", "get_time")
]


def call(name: str, args: Dict[str, Any]) -> str:
    return f'<tool_call>{{"name": "{name}", "arguments": {json.dumps(args)}}}</tool_call>'


WEATHER = call("get_weather", {"city": "Oslo"})
TIME = call("get_time", {"zone": "CET"})


class Dumps:
    """A pydantic model as vLLM's request holds one (``ChatCompletionNamedToolChoiceParam``)."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self.data = data

    def model_dump(self) -> Dict[str, Any]:
        return self.data


def events_of(text: str, chunk: int = 0, **options: Any) -> List[Any]:
    parser = Parser("hermes", TOOLS, **options)
    pieces = [text[i : i + chunk] for i in range(0, len(text), chunk)] if chunk else [text]
    events: List[Any] = []
    for piece in pieces:
        events += parser.push(piece)
    return events + parser.finish()


def fold(text: str, **options: Any) -> Message:
    """``text`` read whole and byte by byte: the same message either way (checked)."""
    whole = Message.from_events(events_of(text, **options))
    assert Message.from_events(events_of(text, chunk=1, **options)) == whole
    return whole


# Every shape of each choice: (value, the choice in force as ``Parser.tool_choice`` says it).
NAMED = {"type": "function", "function": {"name": "get_weather"}}
SHAPES: List[Tuple[Any, Any]] = [
    (None, "auto"),
    ("auto", "auto"),
    ({"type": "auto"}, "auto"),
    ("none", "none"),
    ({"type": "none"}, "none"),
    ("required", "required"),
    ({"type": "any"}, "required"),
    (NAMED, NAMED),
    ({"type": "function", "name": "get_weather"}, NAMED),  # the Responses API's shape
    ({"type": "tool", "name": "get_weather"}, NAMED),  # Anthropic's
    (Dumps({"type": "function", "function": {"name": "get_weather"}}), NAMED),
    (Dumps({"type": "function", "function": {"name": "get_weather"}, "extra": None}), NAMED),
    ({"type": "tool", "name": "get_weather", "disable_parallel_tool_use": False}, NAMED),
]


@pytest.mark.parametrize(("value", "normal"), SHAPES)
def test_every_shape_is_read(value: Any, normal: Any) -> None:
    parser = Parser("hermes", TOOLS, tool_choice=value)
    assert parser.tool_choice == normal
    assert parser.parallel_tool_calls


@pytest.mark.parametrize(("value", "normal"), SHAPES)
def test_each_choice_releases_what_it_allows(value: Any, normal: Any) -> None:
    """One response with a call to each tool and one to an undeclared tool (forwarded by
    policy): what each choice releases, and the reason and feedback of the rest."""
    text = "Let me check.\n" + WEATHER + TIME + call("rm", {})
    m = fold(text, tool_choice=value, unknown_tool="forward")
    released = [c.name for c in m.calls]
    refused = {nr.name: nr for nr in m.not_released}
    assert m.content == "Let me check.\n", "no markup reaches the text, no text is lost"
    if normal == "auto":
        assert released == ["get_weather", "get_time", "rm"] and not refused
    elif normal == "none":
        assert released == []
        assert set(refused) == {"get_weather", "get_time", "rm"}
        for name, nr in refused.items():
            assert nr.reason == "tool_choice"
            assert nr.feedback == f'{name}: the request allows no tool call (tool_choice "none"); answer in text'
    elif normal == "required":
        # A call to a tool the request did not declare is refused, whatever unknown_tool says.
        assert released == ["get_weather", "get_time"]
        assert list(refused) == ["rm"] and refused["rm"].reason == "tool_choice"
        assert "get_weather, get_time" in refused["rm"].feedback
    else:
        assert released == ["get_weather"]
        assert set(refused) == {"get_time", "rm"}
        for name, nr in refused.items():
            assert nr.reason == "tool_choice"
            assert nr.feedback == f"{name}: the request allows only get_weather (tool_choice); call get_weather"
    assert m.tool_choice_unmet is None


def test_a_refused_call_is_never_streamed() -> None:
    """A call the request does not allow has no CallStarted or ArgsDelta: it is known
    refused as soon as its name is complete, and reported when it ends."""
    for choice, text, args in [("none", WEATHER, '{"city": "Oslo"}'), (NAMED, TIME, '{"zone": "CET"}')]:
        events = events_of(text, chunk=3, tool_choice=choice)
        assert not [e for e in events if isinstance(e, (CallStarted, ArgsDelta, CallFinished))]
        (nr,) = [e for e in events if isinstance(e, CallNotReleased)]
        assert nr.reason == "tool_choice" and nr.index == 0
        assert json.loads(nr.completed) == json.loads(args)


@pytest.mark.parametrize(
    ("choice", "feedback"),
    [
        ("required", 'the request requires a call to one of its tools (tool_choice "required"), and none was made: call one of get_weather, get_time'),
        ({"type": "any"}, 'the request requires a call to one of its tools (tool_choice "required"), and none was made: call one of get_weather, get_time'),
        (NAMED, "the request requires a call to get_weather (tool_choice), and none was made: call get_weather"),
        ({"type": "tool", "name": "get_weather"}, "the request requires a call to get_weather (tool_choice), and none was made: call get_weather"),
    ],
)
def test_a_required_call_not_made_is_reported(choice: Any, feedback: str) -> None:
    m = fold("It is sunny.", tool_choice=choice)
    assert (m.content, m.calls, m.tool_choice_unmet) == ("It is sunny.", [], feedback)
    events = events_of("It is sunny.", tool_choice=choice)
    assert isinstance(events[-2], ToolChoiceUnmet) and events[-2].feedback == feedback
    assert isinstance(events[-1], End)
    # A call made but not released leaves it unmet too: both are reported.
    cut = Parser("hermes", TOOLS, tool_choice=choice)
    events = cut.push(WEATHER[:-20]) + cut.finish("length")
    assert [type(e) for e in events if not isinstance(e, (CallStarted, ArgsDelta))] == [
        CallNotReleased,
        ToolChoiceUnmet,
        End,
    ]
    assert cut.stats()["tool_choice_unmet"] == 1
    # Met: nothing said.
    assert fold(WEATHER, tool_choice=choice).tool_choice_unmet is None


def test_the_unmet_event_reads_and_compares() -> None:
    (unmet,) = [e for e in events_of("", tool_choice="required") if isinstance(e, ToolChoiceUnmet)]
    assert repr(unmet).startswith("ToolChoiceUnmet(feedback='the request requires a call")
    match unmet:
        case ToolChoiceUnmet(feedback):
            assert "call one of" in feedback
        case _:
            pytest.fail("ToolChoiceUnmet did not match")
    assert unmet == events_of("", tool_choice="required")[-2]
    assert unmet != events_of("", tool_choice=NAMED)[-2]


@pytest.mark.parametrize(
    "options",
    [
        {"parallel_tool_calls": False},
        {"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}},  # Anthropic's
        {"tool_choice": {"type": "any", "disable_parallel_tool_use": True}, "parallel_tool_calls": True},
    ],
)
def test_one_call_per_response(options: Dict[str, Any]) -> None:
    m = fold("Both.\n" + WEATHER + TIME + WEATHER, **options)
    assert [c.name for c in m.calls] == ["get_weather"]
    assert [(nr.index, nr.name, nr.reason) for nr in m.not_released] == [
        (1, "get_time", "parallel_calls"),
        (2, "get_weather", "parallel_calls"),
    ]
    assert m.not_released[0].feedback == (
        "get_time: the request allows one call per response (parallel_tool_calls false); "
        "send it after the first call's result"
    )
    assert m.content == "Both.\n"
    parser = Parser("hermes", TOOLS, **options)
    assert not parser.parallel_tool_calls
    parser.push(WEATHER + TIME)
    parser.finish()
    assert parser.stats()["parallel_calls"] == 1


def test_the_first_released_call_is_the_one() -> None:
    """With one call allowed, a call not released does not use it up."""
    m = fold(call("rm", {}) + TIME + WEATHER, parallel_tool_calls=False)
    assert [c.name for c in m.calls] == ["get_time"]
    assert [nr.reason for nr in m.not_released] == ["unknown_tool", "parallel_calls"]


def test_parallel_calls_allowed_by_default_and_by_none() -> None:
    for options in ({}, {"parallel_tool_calls": None}, {"parallel_tool_calls": True}):
        assert [c.name for c in fold(WEATHER + TIME, **options).calls] == ["get_weather", "get_time"]
        assert Parser(**options).parallel_tool_calls


def test_a_refusal_in_a_large_chunk() -> None:
    """A chunk of 8 KiB or more is read with the GIL released, its events copied out:
    the same events as when read in small pieces."""
    text = "x" * 10_000 + WEATHER + TIME
    whole = events_of(text, tool_choice="none")
    assert Message.from_events(whole) == Message.from_events(events_of(text, chunk=7, tool_choice="none"))
    assert [e.reason for e in whole if isinstance(e, CallNotReleased)] == ["tool_choice", "tool_choice"]


def test_counted_in_stats() -> None:
    parser = Parser("hermes", TOOLS, tool_choice="none")
    parser.push(WEATHER + TIME)
    parser.finish()
    stats = parser.stats()
    assert (stats["tool_choice"], stats["released_clean"], stats["tool_choice_unmet"]) == (2, 0, 0)
    for key in ("parallel_calls", "markup_stripped", "calls_in_reasoning"):
        assert stats[key] == 0


def test_parse_takes_them_too() -> None:
    m = toolsift.parse(WEATHER + TIME, tools=TOOLS, tool_choice={"type": "tool", "name": "get_time"})
    assert [c["function"]["name"] for c in m.tool_calls] == ["get_time"]
    assert m.finish_reason == "tool_calls"
    m = toolsift.parse("No.", tools=TOOLS, tool_choice="required", parallel_tool_calls=False)
    assert m.tool_choice_unmet and m.finish_reason == "stop"


def test_a_named_tool_without_declared_tools() -> None:
    """With no tools declared, a named choice still allows that name alone."""
    m = fold(WEATHER + TIME, tool_choice={"type": "function", "function": {"name": "get_time"}})
    assert [c.name for c in m.calls] == ["get_time"]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("sometimes", "tool_choice 'sometimes': not a choice"),
        ("AUTO", "not a choice"),
        ("any", "not a choice"),  # Anthropic's "any" is a type, {"type": "any"}
        (3, "not a string or a mapping"),
        (True, "not a string or a mapping"),
        (["auto"], "not a string or a mapping"),
        ({}, 'no string "type"'),
        ({"type": 1}, 'no string "type"'),
        ({"type": "allowed_tools", "mode": "auto"}, "not a type of choice"),
        ({"type": "function"}, "it names no tool"),
        ({"type": "function", "function": {}}, "it names no tool"),
        ({"type": "function", "function": "get_weather"}, "its function is not a mapping"),
        ({"type": "function", "function": {"name": 7}}, "the tool name is not a string"),
        ({"type": "tool", "name": ""}, "the tool name is empty"),
        ({"type": "tool"}, "it names no tool"),
        ({"type": "auto", "disable_parallel_tool_use": "yes"}, "disable_parallel_tool_use is not a bool"),
        (Dumps([]), "its model_dump() is not a dict"),  # type: ignore[arg-type]
        ({"type": "tool", "name": "rm"}, 'tool_choice names "rm", which is not a declared tool: get_weather, get_time'),
    ],
)
def test_bad_choices_are_refused_clearly(value: Any, message: str) -> None:
    with pytest.raises(ToolChoiceError, match=re.escape(message)) as e:
        Parser("hermes", TOOLS, tool_choice=value)
    assert isinstance(e.value, ValueError) and isinstance(e.value, toolsift.Error)
    if "declared" not in message:
        assert '"auto", "none", "required"' in str(e.value)  # every error says the shapes


@pytest.mark.parametrize("value", [1, 0, "false", "False", []])
def test_bad_parallel_tool_calls_are_refused(value: Any) -> None:
    with pytest.raises(ValueError, match=re.escape(f"parallel_tool_calls must be True, False or None, not {value!r}")):
        Parser(parallel_tool_calls=value)
