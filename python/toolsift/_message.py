"""``parse``: a whole response read into one ``Message``."""

from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Union

from toolsift._native import (
    CallFinished,
    CallNotReleased,
    End,
    Parser,
    Reasoning,
    Text,
    ToolChoiceUnmet,
)


@dataclass
class Message:
    """One response, read whole: what the client shows and what it runs.

    ``tool_calls`` is in the OpenAI shape (``{"id", "type": "function", "function":
    {"name", "arguments"}}``); ``calls`` are the same calls as ``CallFinished`` events,
    with their repairs and schema errors; ``not_released`` holds the calls that were not
    released, each with its reason and the feedback to send back to the model;
    ``tool_choice_unmet`` is the feedback when the request's ``tool_choice`` required a
    call and none was released (else ``None``).
    """

    content: str = ""
    reasoning: str = ""
    calls: List[CallFinished] = field(default_factory=list)
    not_released: List[CallNotReleased] = field(default_factory=list)
    stop: str = "stop"
    truncated: bool = False
    tool_choice_unmet: Optional[str] = None

    @property
    def tool_calls(self) -> List[Dict[str, Any]]:
        """The released calls in the OpenAI chat-completions shape."""
        return [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments},
            }
            for c in self.calls
        ]

    @property
    def finish_reason(self) -> str:
        """``length`` when generation was cut, ``tool_calls`` when a call was released,
        else ``stop`` (the OpenAI meanings)."""
        if self.stop != "stop":
            return "length"
        return "tool_calls" if self.calls else "stop"

    def to_openai(self) -> Dict[str, Any]:
        """The assistant message as an OpenAI chat-completions ``message`` object
        (``reasoning_content`` as vLLM and SGLang name it)."""
        out: Dict[str, Any] = {"role": "assistant", "content": self.content or None}
        if self.reasoning:
            out["reasoning_content"] = self.reasoning
        if self.calls:
            out["tool_calls"] = self.tool_calls
        return out

    @classmethod
    def from_events(cls, events: Iterable[object]) -> "Message":
        """Fold a response's events (from ``Parser.push`` and ``Parser.finish``)."""
        message = cls()
        content: List[str] = []
        reasoning: List[str] = []
        for event in events:
            if isinstance(event, Text):
                content.append(event.text)
            elif isinstance(event, Reasoning):
                reasoning.append(event.text)
            elif isinstance(event, CallFinished):
                message.calls.append(event)
            elif isinstance(event, CallNotReleased):
                message.not_released.append(event)
            elif isinstance(event, ToolChoiceUnmet):
                message.tool_choice_unmet = event.feedback
            elif isinstance(event, End):
                message.stop = event.stop
                message.truncated = event.truncated
        message.content = "".join(content)
        message.reasoning = "".join(reasoning)
        return message


def parse(
    text: Union[str, bytes],
    dialect: str = "auto",
    tools: Optional[Any] = None,
    *,
    stop: str = "stop",
    **options: Any,
) -> Message:
    """Read one whole response into a ``Message``.

    ``dialect`` and ``tools`` are as for ``Parser`` (and so are the keyword ``options``);
    ``stop`` is how generation ended: with ``length``, a call left open is truncated.

    >>> m = parse("<think>short</think>Done.", dialect="hermes")
    >>> (m.reasoning, m.content, m.tool_calls)
    ('short', 'Done.', [])
    """
    parser = Parser(dialect, tools, **options)
    events = parser.push(text)
    events.extend(parser.finish(stop))
    return Message.from_events(events)
