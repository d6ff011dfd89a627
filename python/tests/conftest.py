"""Where the tests find what they need.

The Python tests run from `.ci/run` (step "python package and vLLM plugin"), which
installs vLLM and sets TOOLSIFT_SHARED to the shared test data. Without vLLM, the tests
that need it are skipped; without the shared data, the peer-case tests are skipped;
under CI=true either is a failure.
"""

import json
import os
from pathlib import Path
from typing import Any, Dict, List

import pytest

IN_CI = os.environ.get("CI") == "true"


def need_vllm() -> None:
    try:
        import vllm.tool_parsers  # noqa: F401
    except ImportError as e:
        if IN_CI:
            raise
        pytest.skip(f"vllm is not installed: {e}")


def shared_dir() -> Path:
    shared = os.environ.get("TOOLSIFT_SHARED")
    path = Path(shared) if shared else None
    if path is None or not (path / "peer-parsers" / "cases.jsonl").is_file():
        if IN_CI:
            pytest.fail(f"the shared test data is required under CI=true (TOOLSIFT_SHARED={shared!r})")
        pytest.skip("TOOLSIFT_SHARED (the shared test data) is not set: .ci/run sets it")
    return path


def peer_cases() -> List[Dict[str, Any]]:
    shared = os.environ.get("TOOLSIFT_SHARED")
    path = Path(shared or "/nonexistent") / "peer-parsers" / "cases.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
