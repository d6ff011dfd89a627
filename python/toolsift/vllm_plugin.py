"""toolsift as a vLLM tool parser: ``--tool-call-parser toolsift`` (or ``toolsift_<dialect>``).

vLLM loads this module through its ``vllm.general_plugins`` entry point (the package
declares it), or by path with ``--tool-parser-plugin``; importing it registers one tool
parser per dialect the engine knows: ``toolsift`` (auto) and ``toolsift_<name>`` for
every name in ``toolsift.dialects()``.

Each request gets one engine ``Parser``, built with the request's tools,
``tool_choice`` and ``parallel_tool_calls``, fed each ``delta_text`` once
(``current_text`` is never re-read) and finished when vLLM flushes the stream. What
reaches the client, per event:

- visible text -> ``content``; reasoning -> ``reasoning`` (in a non-streaming response,
  which has no field for it, ahead of the content between ``<think>`` and ``</think>``);
- a call -> a ``DeltaToolCall`` with its id and name as soon as the name is complete,
  then argument fragments as they are decided; the fragments so far never end in the
  ``}`` that would close them until the call is released, so a call that is not released
  never reaches the client with arguments that parse. With ``TOOLSIFT_CALLS=hold`` a
  call is sent whole once released instead, and one not released never reaches the
  client as a call. Wire indexes count the calls sent, from 0 and without gaps;
- a call not released (a call ``tool_choice`` does not allow, or after the first with
  ``parallel_tool_calls`` false, among them) -> logged with its reason, and its feedback
  (written for the model) in ``content`` as a paragraph of its own: vLLM's response has
  no other place for it;
- no call released where ``tool_choice`` required one -> logged, and its feedback in
  ``content`` the same way, unless a call not released already said why.

vLLM hands the tool parser only some choices: ``"auto"`` and ``"none"`` always (vLLM
drops the calls of the latter; the engine reports them instead, so they never show),
``"required"`` and named functions only for a dialect with a structural tag under
strict tool calling (else vLLM constrains the output to JSON and reads it itself).

The stream's end is told to the engine as ``length`` when the request's token limit was
reached, else ``stop``; a non-streaming response is read as stopped (the tool parser is
not told its token count).
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Sequence
from typing import Any, Dict, List, Optional, Tuple

import toolsift
from toolsift import (
    ArgsDelta,
    CallFinished,
    CallNotReleased,
    CallStarted,
    Reasoning,
    Text,
    ToolChoiceUnmet,
)
from toolsift._plugins import AUTO_NAME, log_not_released, registered_names

from vllm.entrypoints.generate.base.protocol import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCallInformation,
    FunctionCall,
    ToolCall,
)
from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager

try:  # the structural-tag models this vLLM knows (xgrammar's and its own)
    from vllm.tool_parsers.structural_tag_registry import (
        SUPPORTED_STRUCTURAL_TAG_MODELS as _TAG_MODELS,
    )
except ImportError:  # an older vLLM: no structural tags
    _TAG_MODELS = frozenset()

logger = logging.getLogger("toolsift.vllm")


# Dialects whose call syntax is exactly one structural-tag model of vLLM's (the model
# vLLM's own parser of that format names): constraining output to that tag makes the
# model write calls this dialect reads. Dialects that read several formats under one
# name (GLM 4.5 and 4.7, DeepSeek R1 and V3.1, ...) name none: a tag would force one.
STRUCTURAL_TAGS: Dict[str, str] = {
    "hermes": "hermes",
    "qwen3_coder": "qwen_3_coder",
    "llama3_json": "llama",
    "kimi_k2": "kimi",
    "kimi_k3": "kimi_k3",
    "minimax_m2": "minimax",
    "deepseek_v32": "deepseek_v3_2",
    "harmony": "harmony",
    "deepseek_v41": "deepseek_v4_1",
    "mimo": "mimo",
    "plamo3": "plamo3",
}

# What a response without a reasoning field gets around the reasoning the engine found.
_THINK_OPEN, _THINK_CLOSE = "<think>", "</think>"


def _options() -> Dict[str, Any]:
    """Parser options from the environment (``TOOLSIFT_UNKNOWN_TOOL``, ``TOOLSIFT_INVALID``)."""
    options: Dict[str, Any] = {}
    for env, key in (("TOOLSIFT_UNKNOWN_TOOL", "unknown_tool"), ("TOOLSIFT_INVALID", "invalid")):
        value = os.environ.get(env)
        if value:
            options[key] = value
    return options


def _max_tokens(request: Any) -> Optional[int]:
    fields = getattr(request, "__dict__", {})  # not getattr: max_tokens warns it is deprecated
    for key in ("max_completion_tokens", "max_tokens", "max_output_tokens"):
        value = fields.get(key)
        if isinstance(value, int) and value > 0:
            return value
    return None



def _paragraph(shown: bool, text: str) -> str:
    """``text`` as its own paragraph after content already shown."""
    return f"\n\n{text}" if shown else text


class ToolsiftToolParser(ToolParser):
    """A vLLM tool parser over the toolsift engine, for the dialect ``dialect``."""

    #: The engine dialect (``auto`` or a name from ``toolsift.dialects()``).
    dialect: str = "auto"
    # The serving layer flushes parsers that say so at the end of the stream
    # (`finish_streaming`), and then feeds them `delta_text` alone.
    engine_based_streaming: bool = True

    def __init__(self, tokenizer: Any, tools: Optional[List[Any]] = None) -> None:
        super().__init__(tokenizer, tools)
        self._tools = tools or None
        self._parser: Optional[toolsift.Parser] = None
        self._tokens = 0
        self._limit: Optional[int] = None
        self._content_shown = False
        # Per call index: arguments sent, and a held closing brace.
        self._sent: Dict[int, int] = {}
        self._held: Dict[int, str] = {}
        # Whether calls are sent whole once released (TOOLSIFT_CALLS=hold).
        mode = os.environ.get("TOOLSIFT_CALLS", "stream")
        if mode not in ("stream", "hold"):
            raise ValueError(f"TOOLSIFT_CALLS must be 'stream' or 'hold', not {mode!r}")
        self._hold = mode == "hold"
        # Per call index, its index on the wire: calls are numbered densely as they first
        # reach the client, so a call never sent (held, or refused as soon as it was
        # named) leaves no gap, and the first call sent is 0 (all vLLM keeps with
        # parallel_tool_calls false).
        self._wire: Dict[int, int] = {}
        # Whether a call of this response was reported not released.
        self._reported = False

    # -- the engine ---------------------------------------------------------------------

    def _new_parser(self, request: Any) -> toolsift.Parser:
        tools = self._tools if self._tools else getattr(request, "tools", None)
        options: Dict[str, Any] = {
            # Unique per response, in the shape vLLM's own ids take.
            "id_prefix": f"chatcmpl-tool-{uuid.uuid4().hex[:24]}",
            "parallel_tool_calls": getattr(request, "parallel_tool_calls", None),
            **_options(),
        }
        choice = getattr(request, "tool_choice", None)
        try:
            return toolsift.Parser(self.dialect, tools or None, tool_choice=choice, **options)
        except toolsift.ToolChoiceError as e:
            # A choice of the Responses API the engine has no rule for (a custom or
            # hosted tool, `allowed_tools`): vLLM constrains those itself.
            logger.warning("tool_choice not enforced by toolsift (read as auto): %s", e)
            return toolsift.Parser(self.dialect, tools or None, **options)

    def adjust_request(self, request: Any) -> Any:
        request = super().adjust_request(request)
        if getattr(request, "tools", None):
            # Special tokens are markers: a skipped marker cannot be read. Kept under
            # tool_choice "none" too, so that a call the model writes anyway is reported,
            # not shown as its bare arguments.
            request.skip_special_tokens = False
        return request

    # -- non-streaming ------------------------------------------------------------------

    def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
        parser = self._new_parser(request)
        events = parser.push(model_output)
        events.extend(parser.finish("stop"))
        content: List[str] = []
        reasoning: List[str] = []
        calls: List[ToolCall] = []
        attempted = False
        unmet: Optional[str] = None
        for event in events:
            if isinstance(event, Text):
                content.append(event.text)
            elif isinstance(event, Reasoning):
                reasoning.append(event.text)
            elif isinstance(event, CallFinished):
                calls.append(
                    ToolCall(
                        id=event.id,
                        type="function",
                        function=FunctionCall(name=event.name, arguments=event.arguments),
                    )
                )
            elif isinstance(event, CallNotReleased):
                attempted = True
                log_not_released(logger, event)
                content.append(_paragraph(any(content), event.feedback))
            elif isinstance(event, ToolChoiceUnmet):
                unmet = event.feedback
        if unmet is not None:
            logger.warning("toolsift: no call released for a tool_choice that requires one: %s", unmet)
            if not attempted:  # a call not released already says why there is none
                content.append(_paragraph(any(content), unmet))
        text = "".join(content)
        if reasoning:
            text = f"{_THINK_OPEN}{''.join(reasoning)}{_THINK_CLOSE}{text}"
        # `tools_called` when the model wrote a call, released or not: vLLM then takes
        # this content, where for a parser not driven as an engine (with a reasoning
        # parser that is not one) it would otherwise return the raw text, markup and all.
        return ExtractedToolCallInformation(
            tools_called=bool(calls) or attempted, tool_calls=calls, content=text or None
        )

    # -- streaming ----------------------------------------------------------------------

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> Optional[DeltaMessage]:
        parser = self._parser
        if parser is None:
            parser = self._parser = self._new_parser(request)
            self._limit = _max_tokens(request)
            if getattr(request, "parallel_tool_calls", None) is False:
                # vLLM keeps only wire index 0: a call streamed and then not released
                # would take it from the call released after it. Sent whole once
                # released, the released call is index 0.
                self._hold = True
        self._tokens += len(delta_token_ids)
        if not delta_text:
            return None
        return self._delta(parser.push(delta_text))

    def finish_streaming(self) -> Optional[DeltaMessage]:
        """The end of the stream (vLLM calls it on the last chunk): what was held."""
        parser = self._parser
        if parser is None:
            return None
        cut = self._limit is not None and self._tokens >= self._limit
        return self._delta(parser.finish("length" if cut else "stop"))

    def _wire_index(self, index: int) -> int:
        return self._wire.setdefault(index, len(self._wire))

    def _delta(self, events: List[Any]) -> Optional[DeltaMessage]:
        if not events:
            return None
        if len(events) == 1 and type(events[0]) is Text:  # most deltas of prose
            self._content_shown = True
            return DeltaMessage(content=events[0].text)
        content: Optional[str] = None
        reasoning: Optional[str] = None
        calls: List[DeltaToolCall] = []
        for event in events:
            kind = type(event)
            if kind is Text:
                content = event.text if content is None else content + event.text
            elif kind is ArgsDelta:
                if self._hold:
                    continue
                fragment = self._held.pop(event.index, "") + event.fragment
                if fragment.endswith("}"):
                    self._held[event.index] = "}"
                    fragment = fragment[:-1]
                if fragment:
                    self._sent[event.index] += len(fragment)
                    calls.append(
                        DeltaToolCall(
                            index=self._wire_index(event.index),
                            function=DeltaFunctionCall(arguments=fragment),
                        )
                    )
            elif kind is CallStarted:
                if self._hold:
                    continue
                self._sent[event.index] = 0
                calls.append(
                    DeltaToolCall(
                        index=self._wire_index(event.index),
                        id=event.id,
                        type="function",
                        function=DeltaFunctionCall(name=event.name, arguments=""),
                    )
                )
            elif kind is CallFinished:
                self._held.pop(event.index, None)
                sent = self._sent.get(event.index)
                if sent is None:
                    # Held, or never started (a call named at its end): sent whole.
                    calls.append(
                        DeltaToolCall(
                            index=self._wire_index(event.index),
                            id=event.id,
                            type="function",
                            function=DeltaFunctionCall(
                                name=event.name, arguments=event.arguments
                            ),
                        )
                    )
                elif len(event.arguments) > sent:
                    calls.append(
                        DeltaToolCall(
                            index=self._wire_index(event.index),
                            function=DeltaFunctionCall(
                                arguments=event.arguments[sent:]
                            ),
                        )
                    )
                self._sent[event.index] = len(event.arguments)
            elif kind is CallNotReleased:
                self._held.pop(event.index, None)
                self._reported = True
                log_not_released(logger, event)
                text = _paragraph(self._content_shown or bool(content), event.feedback)
                content = text if content is None else content + text
            elif kind is ToolChoiceUnmet:
                logger.warning(
                    "toolsift: no call released for a tool_choice that requires one: %s",
                    event.feedback,
                )
                if not self._reported:  # a call not released already says why there is none
                    text = _paragraph(self._content_shown or bool(content), event.feedback)
                    content = text if content is None else content + text
            elif kind is Reasoning:
                reasoning = event.text if reasoning is None else reasoning + event.text
        if content:
            self._content_shown = True
        if content is None and reasoning is None and not calls:
            return None
        return DeltaMessage(content=content, reasoning=reasoning, tool_calls=calls)


def _parser_class(dialect: str) -> type:
    tag = STRUCTURAL_TAGS.get(dialect)
    attrs: Dict[str, Any] = {
        "dialect": dialect,
        "structural_tag_model": tag if tag in _TAG_MODELS else None,
        "__module__": __name__,
        "__doc__": f"toolsift's engine reading the {dialect} dialect.",
    }
    return type(f"ToolsiftToolParser_{dialect}", (ToolsiftToolParser,), attrs)


def parser_names() -> List[Tuple[str, str]]:
    """``(registered name, dialect)`` for every parser this module registers: ``toolsift``
    (auto), then ``toolsift_<name>`` for every dialect and every other name it answers to
    (each vLLM and SGLang parser name, ``toolsift_qwen3_json`` for ``hermes``), derived
    from the engine's lists, so a dialect or name added to the engine is registered."""
    return registered_names()


_CLASSES: Dict[str, type] = {d: _parser_class(d) for d in toolsift.dialects()}
PARSERS: Dict[str, type] = {name: _CLASSES[dialect] for name, dialect in parser_names()}


def register() -> None:
    """Register every toolsift tool parser with vLLM (the plugin entry point; idempotent)."""
    for name, cls in PARSERS.items():
        ToolParserManager.register_module(name=name, module=cls, force=True)


register()

__all__ = ["AUTO_NAME", "PARSERS", "STRUCTURAL_TAGS", "ToolsiftToolParser", "parser_names", "register"]
