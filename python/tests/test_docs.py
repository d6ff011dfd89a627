"""Every Python block of docs/python.md runs, in order, and passes its asserts."""

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "python.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_page_has_examples() -> None:
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_example(index: int) -> None:
    exec(compile(BLOCKS[index], f"{DOC}:block{index}", "exec"), {"__name__": "docs_example"})
