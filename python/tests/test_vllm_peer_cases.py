"""The shared peer-parser cases through the plugin, as vLLM's serving layer drives it.

Every case (../shared/peer-parsers/cases.jsonl) is read with its dialect
(`toolsift_<dialect>`) and with `toolsift` (auto): non-streaming, and streaming cut
into deltas of one token, three tokens, 2 to 8 tokens at random, and all in one delta
(every call in one delta). Each result must equal the engine's own result on the
whole text (`serving.expected`): content, reasoning, and the calls' names and
arguments; released arguments are strict JSON; ids are unique and in vLLM's shape.
With calls streamed (the default), a call that starts and is not released stays a
partial call whose arguments never parse; with TOOLSIFT_CALLS=hold it never appears.
"""

from typing import Any, Dict

import pytest

from conftest import need_vllm, peer_cases, shared_dir

CASES = peer_cases()


def _dialect(case: Dict[str, Any]) -> str:
    import toolsift

    name = toolsift.dialect_name(case["dialect"] or case["source_dialect"])
    assert name, f"{case['id']}: no dialect for {case['source_dialect']!r}"
    return name


def test_the_cases_are_there() -> None:
    shared_dir()
    assert len(CASES) >= 200


@pytest.mark.parametrize("calls", ["stream", "hold"])
@pytest.mark.parametrize("mode", ["named", "auto"])
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case_through_the_plugin(
    case: Dict[str, Any], mode: str, calls: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLSIFT_CALLS", calls)
    need_vllm()
    import serving

    dialect = _dialect(case) if mode == "named" else "auto"
    name = "toolsift" if dialect == "auto" else f"toolsift_{dialect}"
    raw = case["raw"]
    tools = serving.tools_for(case["tools"], dialect, raw)
    req = serving.request(tools)

    want = serving.expected(dialect, tools, raw, streaming=False)
    got = serving.whole(name, req, raw)
    assert got.comparable() == want.comparable(), "non-streaming"
    ids = [c["id"] for c in got.calls]
    assert len(set(ids)) == len(ids)
    for call in got.calls:
        serving.strict_json(call["arguments"])

    want = serving.expected(dialect, tools, raw, streaming=True, hold=calls == "hold")
    toks = serving.tokens(raw, dialect)
    for split, deltas in serving.splits(toks, seed=len(raw)).items():
        got = serving.stream(name, serving.request(tools), ["".join(d) for d in deltas])
        serving.settle(got)
        assert got.comparable() == want.comparable(), f"streaming, {split}"
        for call, engine in zip(got.calls, want.calls):
            if engine["id"].startswith("call_"):  # generated: vLLM's shape, unique
                assert call["id"].startswith("chatcmpl-tool-"), call["id"]
            else:  # the model's own id
                assert call["id"] == engine["id"]
        assert got.finish_reason == ("tool_calls" if want.calls else "stop")
