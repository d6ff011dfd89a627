"""vLLM's serving layer, driven as it drives a tool parser.

``stream`` runs vLLM's ``ChatStreamProcessor`` (what ``OpenAIServingChat`` runs per
choice) over deltas and merges the ``DeltaMessage``s as an OpenAI client does;
``whole`` runs the non-streaming path (``Parser.parse`` then
``assemble_chat_message_fields``). The engine's own result is ``expected.py``'s.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from expected import (  # noqa: F401  (re-exported for the tests and the bench)
    PARTIAL,
    Result,
    expected,
    settle,
    splits,
    strict_json,
    tokens,
    tools_for,
)
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


def request(tools: Optional[List[Dict[str, Any]]], **extra: Any) -> ChatCompletionRequest:
    """A chat request as vLLM validates it (``tool_choice`` ``"auto"`` unless given)."""
    return ChatCompletionRequest.model_validate(
        {
            "model": "m",
            "messages": [{"role": "user", "content": "hi"}],
            "tools": tools,
            "tool_choice": "auto",
            **extra,
        }
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


def whole(
    name: str, req: ChatCompletionRequest, text: str, reasoning_parser: Optional[str] = None
) -> Result:
    """The text through vLLM's non-streaming path."""
    cls = ParserManager.get_parser(
        tool_parser_name=name, reasoning_parser_name=reasoning_parser, enable_auto_tools=True
    )
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


