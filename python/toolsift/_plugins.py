"""What the serving-engine plugins (``vllm_plugin``, ``sglang_plugin``) share: the names
they register and how they log a call not released."""

from __future__ import annotations

import logging
from typing import List, Tuple

import toolsift
from toolsift import CallNotReleased

#: The registered name of the auto-detecting parser; ``toolsift_<name>`` names the rest.
AUTO_NAME = "toolsift"


def registered_names() -> List[Tuple[str, str]]:
    """``(registered name, dialect)`` for every name a plugin registers: ``toolsift``
    (auto), then ``toolsift_<name>`` for every dialect and every other name it answers to
    (each vLLM and SGLang parser name, ``toolsift_qwen3_json`` for ``hermes``), derived
    from the engine's lists, so a dialect or name added to the engine is registered."""
    names = [(AUTO_NAME, "auto")]
    seen = {AUTO_NAME}
    for dialect in toolsift.dialects():
        own = [] if dialect == "auto" else [dialect]
        for name in own + toolsift.aliases(dialect):
            registered = f"{AUTO_NAME}_{name}"
            if registered not in seen:
                seen.add(registered)
                names.append((registered, dialect))
    return names


def log_not_released(logger: logging.Logger, event: CallNotReleased) -> None:
    """A call the engine did not release, with its reason and feedback."""
    logger.warning(
        "toolsift: call %d%s not released (%s): %s",
        event.index,
        f" to {event.name}" if event.name else "",
        event.reason,
        event.feedback,
    )
