"""The vLLM plugin's own contract: registration, several calls in one delta, the token
limit, reasoning with vLLM's reasoning parser, ids, structural tags, held calls."""

import json
from typing import Any, List, Optional

import pytest

from conftest import need_vllm

need_vllm()

import serving  # noqa: E402
import toolsift  # noqa: E402
from vllm.tool_parsers import ToolParserManager  # noqa: E402

WEATHER = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            },
        },
    }
]


def call(city: str, days: int) -> str:
    args = json.dumps({"city": city, "days": days})
    return f'<tool_call>\n{{"name": "get_weather", "arguments": {args}}}\n</tool_call>\n'


def test_every_dialect_is_registered_by_the_entry_point() -> None:
    from toolsift import vllm_plugin

    names = dict(vllm_plugin.parser_names())
    assert names["toolsift"] == "auto"
    assert {d for n, d in names.items() if n != "toolsift"} == set(toolsift.dialects())
    # Every name the engine takes for a dialect, vLLM's and SGLang's parser names among them.
    for dialect in toolsift.dialects():
        for name in ([dialect] if dialect != "auto" else []) + toolsift.aliases(dialect):
            assert names[f"toolsift_{name}"] == dialect
    assert names["toolsift_qwen3_json"] == "hermes"
    assert names["toolsift_hy_v4"] == "hunyuan"
    registered = ToolParserManager.list_registered()
    for name, dialect in names.items():
        assert name in registered
        assert ToolParserManager.get_tool_parser(name).dialect == dialect


def test_loaded_by_path_with_tool_parser_plugin() -> None:
    from toolsift import vllm_plugin

    saved = dict(ToolParserManager.tool_parsers)
    try:
        for name in list(ToolParserManager.tool_parsers):
            if name.startswith("toolsift"):
                del ToolParserManager.tool_parsers[name]
        ToolParserManager.import_tool_parser(vllm_plugin.__file__)
        assert ToolParserManager.get_tool_parser("toolsift_hermes").dialect == "hermes"
    finally:
        ToolParserManager.tool_parsers.clear()
        ToolParserManager.tool_parsers.update(saved)


@pytest.mark.parametrize("calls", ["stream", "hold"])
def test_two_calls_in_one_delta(calls: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSIFT_CALLS", calls)
    text = "Checking both.\n" + "".join(call(c, i + 1) for i, c in enumerate(["Paris", "Oslo", "Rome", "Lima"]))
    bodies = text.split("<tool_call>")
    # Each delta after the first carries two whole calls.
    deltas = [bodies[0]] + [
        "<tool_call>" + bodies[i] + "<tool_call>" + bodies[i + 1] for i in range(1, len(bodies), 2)
    ]
    got = serving.stream("toolsift_hermes", serving.request(WEATHER), deltas)
    assert got.content == serving.expected("hermes", WEATHER, text, streaming=True).content
    assert got.content.strip() == "Checking both."
    assert [(c["name"], json.loads(c["arguments"])) for c in got.calls] == [
        ("get_weather", {"city": c, "days": i + 1}) for i, c in enumerate(["Paris", "Oslo", "Rome", "Lima"])
    ]
    assert got.finish_reason == "tool_calls"


def test_a_call_cut_by_the_token_limit() -> None:
    text = 'Writing.<tool_call>{"name": "get_weather", "arguments": {"city": "Par'
    toks = serving.tokens(text, "hermes")
    req = serving.request(WEATHER, max_tokens=len(toks))
    got = serving.stream("toolsift_hermes", req, toks, finish_reason="length")
    assert got.finish_reason == "length"
    serving.settle(got)
    assert [(c["name"], c["arguments"]) for c in got.calls] == [("get_weather", serving.PARTIAL)]
    assert got.content.startswith("Writing.\n\nget_weather: arguments were cut off")


def test_a_call_missing_its_closer_at_a_clean_stop_is_released() -> None:
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}'
    got = serving.stream("toolsift_hermes", serving.request(WEATHER), serving.tokens(text, "hermes"))
    assert [(c["name"], json.loads(c["arguments"])) for c in got.calls] == [("get_weather", {"city": "Paris", "days": 2})]


def test_reasoning_with_vllms_reasoning_parser_is_taken_once() -> None:
    text = "<think>Paris, two days.</think>Sure.\n" + call("Paris", 2)
    toks = serving.tokens(text, "hermes")
    got = serving.stream("toolsift_hermes", serving.request(WEATHER), toks, reasoning_parser="qwen3")
    assert got.reasoning == "Paris, two days."
    assert got.content.strip() == "Sure."
    assert [c["name"] for c in got.calls] == ["get_weather"]
    # Without a reasoning parser the plugin reads the reasoning itself.
    got = serving.stream("toolsift_hermes", serving.request(WEATHER), toks)
    assert got.reasoning == "Paris, two days." and got.content.strip() == "Sure."


@pytest.mark.parametrize("reasoning_parser", [None, "qwen3", "deepseek_r1"])
def test_a_call_not_released_leaves_no_markup_in_a_whole_response(reasoning_parser: str) -> None:
    """Whatever reasoning parser runs first (vLLM's qwen3 is driven as an engine,
    deepseek_r1 is not), a call not released reaches the client as its feedback."""
    text = "<think>hm</think>Let me see.\n" + '<tool_call>{"name": "nope", "arguments": {}}</tool_call>'
    got = serving.whole("toolsift_hermes", serving.request(WEATHER), text, reasoning_parser)
    assert got.calls == []
    assert "<tool_call>" not in got.content and "Let me see." in got.content
    assert "nope" in got.content
    if reasoning_parser:
        assert got.reasoning == "hm"


def test_ids_are_unique_across_requests_and_in_vllms_shape() -> None:
    ids: List[str] = []
    for _ in range(3):
        got = serving.stream("toolsift_hermes", serving.request(WEATHER), [call("Oslo", 1) + call("Rome", 2)])
        ids += [c["id"] for c in got.calls]
    assert len(set(ids)) == 6
    assert all(i.startswith("chatcmpl-tool-") for i in ids)
    mistral = serving.stream(
        "toolsift_mistral",
        serving.request(WEATHER),
        ['[TOOL_CALLS]get_weather[CALL_ID]abc123XYZ[ARGS]{"city": "Oslo"}'],
    )
    assert [c["id"] for c in mistral.calls] == ["abc123XYZ"]


def test_structural_tags_and_tool_choice_support() -> None:
    from toolsift import vllm_plugin

    hermes = ToolParserManager.get_tool_parser("toolsift_hermes")
    auto = ToolParserManager.get_tool_parser("toolsift")
    assert hermes.structural_tag_model == "hermes"
    assert ToolParserManager.get_tool_parser("toolsift_qwen3_coder").structural_tag_model == "qwen_3_coder"
    assert auto.structural_tag_model is None
    assert ToolParserManager.get_tool_parser("toolsift_glm45").structural_tag_model is None
    import vllm.envs as envs

    # Under strict tool calling (vLLM's default) a parser with a structural tag reads the
    # tagged output for required and named choices; without it vLLM's JSON path does.
    assert hermes.supports_required_and_named is not bool(envs.VLLM_ENFORCE_STRICT_TOOL_CALLING)
    assert auto.supports_required_and_named
    from vllm.tool_parsers.structural_tag_registry import SUPPORTED_STRUCTURAL_TAG_MODELS

    for dialect, tag in vllm_plugin.STRUCTURAL_TAGS.items():
        assert dialect in toolsift.dialects(), dialect
        # Named only where this vLLM knows the tag (it raises on others).
        want = tag if tag in SUPPORTED_STRUCTURAL_TAG_MODELS else None
        assert ToolParserManager.get_tool_parser(f"toolsift_{dialect}").structural_tag_model == want


def test_adjust_request_keeps_special_tokens() -> None:
    cls = ToolParserManager.get_tool_parser("toolsift_hermes")
    req = serving.request(WEATHER)
    req.skip_special_tokens = True
    assert cls(serving.TOKENIZER, req.tools).adjust_request(req).skip_special_tokens is False


def test_held_calls_are_indexed_densely() -> None:
    import os

    os.environ["TOOLSIFT_CALLS"] = "hold"
    try:
        text = '<tool_call>{"name": "nope", "arguments": {}}</tool_call>' + call("Oslo", 1)
        deltas = serving.tokens(text, "hermes")
        cls = serving.parser_class("toolsift_hermes")
        parser = cls(serving.TOKENIZER, serving.request(WEATHER).tools, chat_template_kwargs={}, model_config=None)
        indexes: List[int] = []
        for i, d in enumerate(deltas):
            msg = parser.parse_delta(d, [1], serving.request(WEATHER), [1], finished=i == len(deltas) - 1)
            if msg is not None:
                indexes += [tc.index for tc in msg.tool_calls]
        assert indexes == [0]
    finally:
        del os.environ["TOOLSIFT_CALLS"]


def test_a_bad_calls_mode_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSIFT_CALLS", "sometimes")
    cls = ToolParserManager.get_tool_parser("toolsift_hermes")
    with pytest.raises(ValueError, match="TOOLSIFT_CALLS"):
        cls(serving.TOKENIZER, None)


def test_unknown_tools_forwarded_on_request(monkeypatch: pytest.MonkeyPatch) -> None:
    text = '<tool_call>{"name": "nope", "arguments": {}}</tool_call>'
    got = serving.whole("toolsift_hermes", serving.request(WEATHER), text)
    assert got.calls == [] and "nope" in got.content
    monkeypatch.setenv("TOOLSIFT_UNKNOWN_TOOL", "forward")
    got = serving.whole("toolsift_hermes", serving.request(WEATHER), text)
    assert [c["name"] for c in got.calls] == ["nope"]




# -- the request's tool_choice and parallel_tool_calls -----------------------------------

TWO = WEATHER + [
    {
        "type": "function",
        "function": {"name": "get_time", "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}}},
    }
]
TIME = '<tool_call>\n{"name": "get_time", "arguments": {"zone": "CET"}}\n</tool_call>\n'


def both(name: str, req: Any, text: str, reasoning_parser: Optional[str] = None) -> List[serving.Result]:
    """The text through vLLM's whole and streaming paths (in tokens)."""
    return [
        serving.whole(name, req, text, reasoning_parser),
        serving.stream(name, req, serving.tokens(text, "hermes"), reasoning_parser=reasoning_parser),
    ]


@pytest.mark.parametrize(("name", "reasoning_parser"), [("toolsift_hermes", None), ("toolsift", None), ("toolsift_hermes", "qwen3")])
def test_tool_choice_none_reports_the_calls_it_refuses(name: str, reasoning_parser: Optional[str]) -> None:
    """vLLM drops the calls of a "none" response; the engine refuses them instead, so
    their markup never shows and the client reads why (vLLM asks the plugin when it
    drives the parsers as an engine: no reasoning parser, or one such as qwen3)."""
    text = "<think>hm</think>Sure.\n" + call("Oslo", 1) + TIME
    for got in both(name, serving.request(TWO, tool_choice="none"), text, reasoning_parser):
        if not got.reasoning:  # a whole response without a reasoning parser: see the module doc
            assert got.content.startswith("<think>hm</think>")
            got.content = got.content[len("<think>hm</think>") :]
        else:
            assert got.reasoning == "hm"
        assert got.calls == []
        assert "<tool_call>" not in got.content and '"arguments"' not in got.content
        assert got.content.startswith("Sure.\n")
        for tool in ("get_weather", "get_time"):
            assert f'{tool}: the request allows no tool call (tool_choice "none"); answer in text' in got.content


def test_a_named_choice_releases_that_tool_alone() -> None:
    """Under strict tool calling, vLLM hands a dialect with a structural tag the named
    choice (its pydantic object); the call to another tool is refused, and the named
    one is the first call on the wire, so vLLM's one-call filter keeps it."""
    choice = {"type": "function", "function": {"name": "get_time"}}
    text = call("Oslo", 1) + TIME
    for parallel in (True, False):
        req = serving.request(TWO, tool_choice=choice, parallel_tool_calls=parallel)
        for got in both("toolsift_hermes", req, text):
            assert [(c["name"], json.loads(c["arguments"])) for c in got.calls] == [("get_time", {"zone": "CET"})]
            assert "get_weather: the request allows only get_time (tool_choice); call get_time" in got.content
    cls = ToolParserManager.get_tool_parser("toolsift_hermes")
    req = serving.request(TWO, tool_choice=choice)
    assert cls(serving.TOKENIZER, req.tools)._new_parser(req).tool_choice == choice


def test_required_with_no_call_says_so() -> None:
    req = serving.request(TWO, tool_choice="required")
    for got in both("toolsift_hermes", req, "It is sunny in Oslo."):
        assert got.calls == []
        assert got.content == (
            "It is sunny in Oslo.\n\nthe request requires a call to one of its tools "
            '(tool_choice "required"), and none was made: call one of get_weather, get_time'
        )
    # A call not released already says why there is none: no second paragraph.
    text = '<tool_call>{"name": "nope", "arguments": {}}</tool_call>'
    for got in both("toolsift_hermes", req, text):
        assert got.calls == [] and "nope: not a declared tool" in got.content
        assert "none was made" not in got.content
    for got in both("toolsift_hermes", req, call("Oslo", 1)):
        assert [c["name"] for c in got.calls] == ["get_weather"]


def test_required_and_named_without_a_structural_tag_stay_vllms(monkeypatch: pytest.MonkeyPatch) -> None:
    """For a dialect without a structural tag vLLM constrains the output to JSON and reads
    it itself: the plugin is never asked (what the model writes there is JSON, not markup)."""
    from toolsift import vllm_plugin

    made: List[Any] = []
    real = vllm_plugin.ToolsiftToolParser._new_parser
    monkeypatch.setattr(
        vllm_plugin.ToolsiftToolParser, "_new_parser", lambda self, req: made.append(req) or real(self, req)
    )
    cases = [
        ("required", '[{"name": "get_time", "parameters": {"zone": "CET"}}]'),
        ({"type": "function", "function": {"name": "get_time"}}, '{"zone": "CET"}'),
    ]
    for choice, text in cases:
        req = serving.request(TWO, tool_choice=choice)
        # One delta: vLLM's own reading of a streamed JSON list wants token boundaries
        # this tokenizer does not give it.
        for got in (serving.whole("toolsift", req, text), serving.stream("toolsift", req, [text])):
            assert [(c["name"], json.loads(c["arguments"])) for c in got.calls] == [("get_time", {"zone": "CET"})]
    assert made == []
    serving.whole("toolsift", serving.request(TWO), TIME)
    assert len(made) == 1  # the spy works


@pytest.mark.parametrize("calls", ["stream", "hold"])
def test_parallel_tool_calls_false_releases_the_first_call(calls: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSIFT_CALLS", calls)
    text = "Both.\n" + call("Oslo", 1) + TIME + call("Rome", 2)
    req = serving.request(TWO, parallel_tool_calls=False)
    for got in both("toolsift_hermes", req, text):
        assert [(c["name"], json.loads(c["arguments"])) for c in got.calls] == [("get_weather", {"city": "Oslo", "days": 1})]
        for tool in ("get_time", "get_weather"):
            assert f"{tool}: the request allows one call per response (parallel_tool_calls false)" in got.content
        assert "<tool_call>" not in got.content


def test_a_refused_call_leaves_no_gap_in_wire_indexes() -> None:
    """A call refused as soon as it is named (an undeclared tool) is never sent: the next
    call is index 0 on the wire (``serving.stream`` checks indexes run from 0)."""
    text = '<tool_call>{"name": "nope", "arguments": {}}</tool_call>' + TIME + call("Oslo", 1)
    got = serving.stream("toolsift_hermes", serving.request(TWO), serving.tokens(text, "hermes"))
    assert [c["name"] for c in got.calls] == ["get_time", "get_weather"]
    got = serving.stream("toolsift_hermes", serving.request(TWO, parallel_tool_calls=False), serving.tokens(text, "hermes"))
    assert [c["name"] for c in got.calls] == ["get_time"]


@pytest.mark.parametrize("calls", ["stream", "hold"])
def test_held_calls_survive_vllms_one_call_filter(calls: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under parallel_tool_calls false, calls are sent whole once released (whatever
    TOOLSIFT_CALLS says): a call not released never takes wire index 0, so the call
    released after it reaches the client (streamed, it would be index 1, which vLLM
    drops)."""
    monkeypatch.setenv("TOOLSIFT_CALLS", calls)
    monkeypatch.setenv("TOOLSIFT_INVALID", "hold")
    tools = [dict(t, function=dict(t["function"], parameters=dict(t["function"]["parameters"], required=["city"]))) for t in WEATHER]
    tools += TWO[1:]
    text = '<tool_call>{"name": "get_weather", "arguments": {"town": "Oslo"}}</tool_call>' + TIME
    for got in both("toolsift_hermes", serving.request(tools, parallel_tool_calls=False), text):
        assert [c["name"] for c in got.calls] == ["get_time"]
        assert 'get_weather: missing required parameter "city"' in got.content


def test_a_choice_the_engine_has_no_rule_for_is_read_as_auto(caplog: pytest.LogCaptureFixture) -> None:
    """The Responses API's hosted-tool and allowed-tools choices reach the parser as they
    are; vLLM constrains those itself, and the plugin says it does not enforce them."""
    from types import SimpleNamespace

    cls = ToolParserManager.get_tool_parser("toolsift_hermes")
    req = SimpleNamespace(tools=TWO, tool_choice={"type": "file_search"}, parallel_tool_calls=None)
    with caplog.at_level("WARNING", logger="toolsift.vllm"):
        info = cls(serving.TOKENIZER, TWO).extract_tool_calls(TIME, req)
    assert [c.function.name for c in info.tool_calls] == ["get_time"]
    assert "tool_choice not enforced by toolsift (read as auto)" in caplog.text


def test_adjust_request_keeps_special_tokens_under_tool_choice_none() -> None:
    cls = ToolParserManager.get_tool_parser("toolsift_hermes")
    req = serving.request(WEATHER, tool_choice="none")
    req.skip_special_tokens = True
    assert cls(serving.TOKENIZER, req.tools).adjust_request(req).skip_special_tokens is False
