"""toolsift as an SGLang function-call parser: ``--tool-call-parser toolsift`` (or
``toolsift_<dialect>``).

SGLang runs the entry points of its ``sglang.srt.plugins`` group in every process before
it reads its arguments; the package declares one, ``register`` here, which adds a
detector per dialect the engine knows to ``FunctionCallParser.ToolCallParserEnum`` and
its name to the ``--tool-call-parser`` choices: ``toolsift`` (auto) and
``toolsift_<name>`` for every name in ``toolsift.dialects()``.

Each detector holds one engine ``Parser`` (SGLang builds one ``FunctionCallParser`` per
choice of a request), fed each increment once. What reaches the client, per event:

- visible text -> ``normal_text``; reasoning the engine found (SGLang's
  ``--reasoning-parser`` takes it first, when set) -> ``normal_text`` between
  ``<think>`` and ``</think>``, as a detector has no other place for it;
- a call -> a ``ToolCallItem`` with its name as soon as the name is complete, then its
  argument fragments; the fragments never end in the ``}`` that would close them until
  the call is released, so a call not released never has arguments that parse;
- a call not released -> logged with its reason, and its feedback in ``normal_text`` as
  a paragraph of its own.

``tool_choice="required"`` and named choices stay SGLang's (its JSON-array constraint
and parser): the detectors say they support no structural tag. SGLang hands a detector
neither ``tool_choice`` nor ``parallel_tool_calls`` and runs none on a ``"none"``
request with tools, so only ``"auto"`` reaches one: the engine ``Parser`` here is built
with the defaults, which are ``"auto"``'s.
"""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Optional, Tuple

import toolsift
from toolsift import (
    ArgsDelta,
    CallFinished,
    CallNotReleased,
    CallStarted,
    Reasoning,
    Text,
)
from toolsift._plugins import AUTO_NAME, log_not_released, registered_names

from sglang.srt.function_call import parser_names
from sglang.srt.function_call.base_format_detector import BaseFormatDetector
from sglang.srt.function_call.core_types import StreamingParseResult, ToolCallItem
from sglang.srt.function_call.function_call_parser import FunctionCallParser

logger = logging.getLogger("toolsift.sglang")


_THINK_OPEN, _THINK_CLOSE = "<think>", "</think>"


class ToolsiftDetector(BaseFormatDetector):
    """An SGLang detector over the toolsift engine, for the dialect ``dialect``."""

    #: The engine dialect (``auto`` or a name from ``toolsift.dialects()``).
    dialect: str = "auto"

    def __init__(self) -> None:
        super().__init__()
        self._parser: Optional[toolsift.Parser] = None
        self._sent: Dict[int, int] = {}
        self._held: Dict[int, str] = {}
        self._shown = False
        self._in_reasoning = False

    @classmethod
    def parses_without_tools(cls) -> bool:
        return True

    def supports_structural_tag(self) -> bool:
        return False

    def structure_info(self) -> Any:
        raise NotImplementedError("toolsift detectors take no structural tag")

    def _new_parser(self, tools: Optional[List[Any]]) -> toolsift.Parser:
        return toolsift.Parser(self.dialect, tools or None)

    def _whole(self, text: str, tools: Optional[List[Any]]) -> List[Any]:
        parser = self._new_parser(tools)
        return parser.push(text) + parser.finish("stop")

    # -- non-streaming ------------------------------------------------------------------

    def has_tool_call(self, text: str) -> bool:
        # SGLang asks this without the tools: any call, released or not, counts.
        events = self._whole(text, None)
        return any(isinstance(e, (CallStarted, CallFinished, CallNotReleased)) for e in events)

    def detect_and_parse(self, text: str, tools: List[Any]) -> StreamingParseResult:
        # The streaming path's rules over the whole text's events, then the released
        # calls whole, numbered in order.
        events = self._whole(text, tools)
        result = ToolsiftDetector()._result(events)
        released = [e for e in events if isinstance(e, CallFinished)]
        calls = [
            ToolCallItem(tool_index=i, name=e.name, parameters=e.arguments)
            for i, e in enumerate(released)
        ]
        return StreamingParseResult(normal_text=result.normal_text, calls=calls)

    # -- streaming ----------------------------------------------------------------------

    def parse_streaming_increment(self, new_text: str, tools: List[Any]) -> StreamingParseResult:
        if self._parser is None:
            self._parser = self._new_parser(tools)
        if not new_text:
            return StreamingParseResult()
        return self._result(self._parser.push(new_text))

    def finish(self, tools: List[Any]) -> StreamingParseResult:
        if self._parser is None:
            return StreamingParseResult()
        return self._result(self._parser.finish("stop"))

    def _result(self, events: List[Any]) -> StreamingParseResult:
        normal: List[str] = []
        calls: List[ToolCallItem] = []
        for event in events:
            kind = type(event)
            if kind is Reasoning:
                if not self._in_reasoning:
                    normal.append(_THINK_OPEN)
                    self._in_reasoning = True
                normal.append(event.text)
                continue
            if self._in_reasoning:
                normal.append(_THINK_CLOSE)
                self._in_reasoning = False
            if kind is Text:
                normal.append(event.text)
            elif kind is CallStarted:
                self._sent[event.index] = 0
                calls.append(ToolCallItem(tool_index=event.index, name=event.name, parameters=""))
            elif kind is ArgsDelta:
                fragment = self._held.pop(event.index, "") + event.fragment
                if fragment.endswith("}"):
                    self._held[event.index] = "}"
                    fragment = fragment[:-1]
                if fragment:
                    self._sent[event.index] += len(fragment)
                    calls.append(ToolCallItem(tool_index=event.index, parameters=fragment))
            elif kind is CallFinished:
                self._held.pop(event.index, None)
                sent = self._sent.get(event.index)
                if sent is None:  # never started (a call named at its end): sent whole
                    calls.append(
                        ToolCallItem(tool_index=event.index, name=event.name, parameters=event.arguments)
                    )
                elif len(event.arguments) > sent:
                    calls.append(
                        ToolCallItem(tool_index=event.index, parameters=event.arguments[sent:])
                    )
                self._sent[event.index] = len(event.arguments)
            elif kind is CallNotReleased:
                self._held.pop(event.index, None)
                log_not_released(logger, event)
                normal.append(("\n\n" if self._shown or any(normal) else "") + event.feedback)
        if events and self._in_reasoning and isinstance(events[-1], toolsift.End):
            normal.append(_THINK_CLOSE)
            self._in_reasoning = False
        text = "".join(normal)
        if text:
            self._shown = True
        return StreamingParseResult(normal_text=text, calls=calls)



def detector_names() -> List[Tuple[str, str]]:
    """``(registered name, dialect)`` for every detector this module registers: ``toolsift``
    (auto), then ``toolsift_<name>`` for every dialect and every other name it answers to
    (each vLLM and SGLang parser name, ``toolsift_qwen3_json`` for ``hermes``), derived
    from the engine's lists, so a dialect or name added to the engine is registered."""
    return registered_names()


_CLASSES: Dict[str, type] = {
    dialect: type(
        f"ToolsiftDetector_{dialect}",
        (ToolsiftDetector,),
        {"dialect": dialect, "__module__": __name__},
    )
    for dialect in toolsift.dialects()
}
DETECTORS: Dict[str, type] = {name: _CLASSES[dialect] for name, dialect in detector_names()}


def register() -> None:
    """Add every toolsift detector to SGLang (the plugin entry point; idempotent)."""
    for name, cls in DETECTORS.items():
        FunctionCallParser.ToolCallParserEnum[name] = cls
        if name not in parser_names.TOOL_CALL_PARSER_NAMES:
            parser_names.TOOL_CALL_PARSER_NAMES.append(name)


register()

__all__ = ["AUTO_NAME", "DETECTORS", "ToolsiftDetector", "detector_names", "register"]
