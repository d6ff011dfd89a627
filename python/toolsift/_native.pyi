"""Type stubs of the extension module (the engine's Python face)."""

from typing import Any, ClassVar, Dict, List, Literal, Mapping, Optional, Protocol, Tuple, Union, final

__version__: str
__all__ = ['ArgsDelta', 'CallFinished', 'CallNotReleased', 'CallStarted', 'End', 'Error', 'Parser', 'Reasoning', 'RepairError', 'Repaired', 'Text', 'ToolChoiceError', 'ToolChoiceUnmet', 'ToolsError', '__version__', 'aliases', 'dialect_name', 'dialects', 'markers', 'repair', 'repair_names']

class Error(ValueError):
    """The base of toolsift's errors (a ``ValueError``)."""

class RepairError(Error):
    """``repair`` found no JSON value it can make strict."""

class ToolsError(Error):
    """The tool definitions given to a ``Parser`` cannot be read."""

class ToolChoiceError(Error):
    """The ``tool_choice`` given to a ``Parser`` is not one it reads, or names an
    undeclared tool."""

@final
class Text:
    """Visible text: never any part of a marker, always whole characters."""

    __match_args__: ClassVar[Tuple[str]]
    @property
    def text(self) -> str: ...

@final
class Reasoning:
    """Reasoning text, markers removed."""

    __match_args__: ClassVar[Tuple[str]]
    @property
    def text(self) -> str: ...

@final
class CallStarted:
    """A call began: its name is complete."""

    __match_args__: ClassVar[Tuple[str, str, str]]
    @property
    def index(self) -> int: ...
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...

@final
class ArgsDelta:
    """The next fragment of a call's arguments; joined, the fragments are its final
    arguments byte for byte."""

    __match_args__: ClassVar[Tuple[str, str]]
    @property
    def index(self) -> int: ...
    @property
    def fragment(self) -> str: ...

@final
class CallFinished:
    """A call released: its arguments are strict JSON text of an object."""

    __match_args__: ClassVar[Tuple[str, str, str, str, str, str]]
    @property
    def index(self) -> int: ...
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def arguments(self) -> str: ...
    @property
    def repairs(self) -> List[str]: ...
    @property
    def validation(self) -> Optional[str]: ...

_NotReleasedReason = Literal[
    "truncated",
    "invalid",
    "limit_exceeded",
    "unknown_tool",
    "schema_violation",
    "not_a_call",
    "tool_choice",
    "parallel_calls",
]

@final
class CallNotReleased:
    """A call not released, with its reason and feedback for the model."""

    __match_args__: ClassVar[Tuple[str, str, str, str, str, str]]
    @property
    def index(self) -> int: ...
    @property
    def name(self) -> Optional[str]: ...
    @property
    def reason(self) -> _NotReleasedReason: ...
    @property
    def feedback(self) -> str: ...
    @property
    def completed(self) -> str: ...
    @property
    def repairs(self) -> List[str]: ...

@final
class ToolChoiceUnmet:
    """The request's ``tool_choice`` required a call and the response released none:
    ``feedback`` says what was required, for the model. Just before ``End``."""

    __match_args__: ClassVar[Tuple[str]]
    @property
    def feedback(self) -> str: ...

_StopName = Literal["stop", "length", "disconnected"]

@final
class End:
    """The stream ended: always the last event of ``finish``."""

    __match_args__: ClassVar[Tuple[str, str]]
    @property
    def stop(self) -> _StopName: ...
    @property
    def truncated(self) -> bool: ...

_Event = Union[
    Text, Reasoning, CallStarted, ArgsDelta, CallFinished, CallNotReleased, ToolChoiceUnmet, End
]

class _Dumps(Protocol):
    """A pydantic model, as vLLM's request holds its ``tool_choice``."""

    def model_dump(self) -> Dict[str, Any]: ...

#: ``tool_choice`` as OpenAI's and Anthropic's requests write it.
_ToolChoice = Union[Literal["auto", "none", "required"], Mapping[str, Any], _Dumps]

@final
class Parser:
    """A streaming tool-call parser for one response at a time."""

    def __new__(
        cls,
        dialect: str = "auto",
        tools: Optional[Any] = None,
        *,
        unknown_tool: Literal["reject", "forward"] = "reject",
        invalid: Literal["release", "hold"] = "release",
        in_reasoning: Literal["ignore", "extract"] = "ignore",
        reasoning_open: bool = False,
        id_prefix: Optional[str] = None,
        max_args_bytes: Optional[int] = None,
        max_depth: Optional[int] = None,
        max_held_bytes: Optional[int] = None,
        lookahead: Optional[int] = None,
        max_calls: Optional[int] = None,
        max_name_bytes: Optional[int] = None,
        tool_choice: Optional[_ToolChoice] = None,
        parallel_tool_calls: Optional[bool] = True,
    ) -> "Parser": ...
    def push(self, text: Union[str, bytes]) -> List[_Event]: ...
    def finish(self, stop: str = "stop") -> List[_Event]: ...
    def reset(self) -> None: ...
    @property
    def dialect(self) -> str: ...
    @property
    def tools(self) -> List[str]: ...
    @property
    def tool_choice(self) -> Union[Literal["auto", "none", "required"], Dict[str, Any]]: ...
    @property
    def parallel_tool_calls(self) -> bool: ...
    def stats(self) -> Dict[str, Any]: ...

@final
class Repaired:
    """The result of ``repair``."""

    @property
    def json(self) -> str: ...
    @property
    def repairs(self) -> List[str]: ...

def repair(text: Union[str, bytes]) -> Repaired: ...
def dialects() -> List[str]: ...
def dialect_name(name: str) -> Optional[str]: ...
def aliases(dialect: str) -> List[str]: ...
def markers(dialect: str) -> List[str]: ...
def repair_names() -> List[str]: ...
