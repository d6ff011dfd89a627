"""toolsift: a streaming, repairing tool-call parser for LLM output.

Model output goes in, in chunks of any size (``Parser.push``) or whole (``parse``);
visible text, reasoning and tool calls come out, across dialects, with arguments
repaired on the fly and every finished call strictly re-parsed before it is released.
The engine is the ``toolsift`` Rust crate; this package calls it.

>>> import toolsift
>>> message = toolsift.parse('<tool_call>{"name": "ls", "arguments": {"path": "."}}</tool_call>')
>>> message.tool_calls[0]["function"]
{'name': 'ls', 'arguments': '{"path": "."}'}
"""

from typing import Union

from toolsift._native import (
    ArgsDelta,
    CallFinished,
    CallNotReleased,
    CallStarted,
    End,
    Error,
    Parser,
    Reasoning,
    Repaired,
    RepairError,
    Text,
    ToolChoiceError,
    ToolChoiceUnmet,
    ToolsError,
    __version__,
    aliases,
    dialect_name,
    dialects,
    markers,
    repair,
    repair_names,
)
from toolsift._message import Message, parse

#: Any event a ``Parser`` returns.
Event = Union[
    Text, Reasoning, CallStarted, ArgsDelta, CallFinished, CallNotReleased, ToolChoiceUnmet, End
]

__all__ = [
    "ArgsDelta",
    "CallFinished",
    "CallNotReleased",
    "CallStarted",
    "End",
    "Error",
    "Event",
    "Message",
    "Parser",
    "Reasoning",
    "RepairError",
    "Repaired",
    "Text",
    "ToolChoiceError",
    "ToolChoiceUnmet",
    "ToolsError",
    "__version__",
    "aliases",
    "dialect_name",
    "dialects",
    "markers",
    "parse",
    "repair",
    "repair_names",
]
