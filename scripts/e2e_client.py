#!/usr/bin/env python3
"""End-to-end client for the toolsift proxy, with the official `openai` package.

    e2e_client.py BASE_URL            run the client checks against the proxy
    e2e_client.py --check-sse FILE    check that FILE (a body captured by curl -N) is
                                      well-formed SSE ending with data: [DONE]

The proxy runs in front of `toolsift replay-upstream --dir cli/tests/fixtures/e2e`, which
answers model M with the recorded raw output in M.txt (see scripts/e2e_proxy.sh).
Exits non-zero when any check fails.
"""

import json
import sys

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
        "required": ["city"]}}},
    {"type": "function", "function": {"name": "write_file", "parameters": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"},
                       "mode": {"type": "integer"}}}}},
    {"type": "function", "function": {"name": "search", "parameters": {
        "type": "object",
        "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}}}}},
]

MESSAGES = [{"role": "user", "content": "go"}]

# model (= recorded output) -> the calls the client must receive
COMPLETE = {
    "hermes-weather": [
        ("get_weather", {"city": "Paris", "unit": "celsius"}),
        ("get_weather", {"city": "Tōkyō", "unit": "celsius"}),
    ],
    "qwen3-coder-write": [
        ("write_file", {"path": "src/hello.py", "mode": 420, "content":
                        'def greet(name):\n    print(f"Hello, {name}!")  # </parameter> is not the end\n\ngreet("wörld")'}),
    ],
    "gemma-4-search": [
        ("search", {"query": 'rust sse "codec"', "limit": 5}),
    ],
}

# model -> (tool name, completed members) of the call cut inside its arguments
TRUNCATED = {
    "hermes-weather-cut": ("get_weather", {"city": "Paris"}),
    "qwen3-coder-write-cut": ("write_file", {"path": "src/hello.py"}),
}

passed = 0
failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {what}", flush=True)


def loads_object(text):
    """The arguments as a dict, or None when they are not a complete JSON object."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def streamed(client, model):
    """Stream a completion; assemble tool calls by index as the OpenAI docs show."""
    calls = {}
    finish_reason = None
    extension = None
    content = ""
    stream = client.chat.completions.create(
        model=model, messages=MESSAGES, tools=TOOLS, stream=True)
    for chunk in stream:
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        content += choice.delta.content or ""
        for call in choice.delta.tool_calls or []:
            slot = calls.setdefault(call.index, {"id": "", "name": "", "arguments": ""})
            slot["id"] += call.id or ""
            if call.function is not None:
                slot["name"] += call.function.name or ""
                slot["arguments"] += call.function.arguments or ""
        if choice.finish_reason is not None:
            finish_reason = choice.finish_reason
            extension = chunk.to_dict().get("toolsift")
    ordered = [calls[i] for i in sorted(calls)]
    return ordered, finish_reason, extension, content


def whole(client, model):
    response = client.chat.completions.create(model=model, messages=MESSAGES, tools=TOOLS)
    choice = response.choices[0]
    calls = [{"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
             for c in choice.message.tool_calls or []]
    return calls, choice.finish_reason, response.to_dict().get("toolsift"), choice.message.content


def check_complete(client, model, expected, seen_ids):
    for how, get in (("stream", streamed), ("whole", whole)):
        what = f"{model} ({how})"
        calls, finish_reason, extension, _ = get(client, model)
        check(finish_reason == "tool_calls", f"{what}: finish_reason {finish_reason!r}")
        got = [(c["name"], loads_object(c["arguments"])) for c in calls]
        check(got == expected, f"{what}: calls {got!r} != {expected!r}")
        for call in calls:
            check(call["id"] and call["id"] not in seen_ids, f"{what}: id {call['id']!r} not unique")
            seen_ids.add(call["id"])
        check(extension is not None and extension.get("incomplete_calls") == [],
              f"{what}: toolsift extension {extension!r}")


def check_truncated(client, model, name, kept):
    for how, get in (("stream", streamed), ("whole", whole)):
        what = f"{model} ({how})"
        calls, finish_reason, extension, _ = get(client, model)
        check(finish_reason == "length", f"{what}: finish_reason {finish_reason!r}")
        complete = [c for c in calls if loads_object(c["arguments"]) is not None]
        check(complete == [], f"{what}: a cut call reached the client complete: {complete!r}")
        incomplete = (extension or {}).get("incomplete_calls") or []
        check(len(incomplete) == 1 and incomplete[0].get("reason") == "truncated"
              and incomplete[0].get("name") == name
              and loads_object(incomplete[0].get("arguments")) == kept,
              f"{what}: incomplete_calls {incomplete!r}")


def check_stream_helper(client, model, expected):
    """The SDK's own stream accumulator (the pinned version has it: a missing helper
    fails, it is not skipped)."""
    holder = getattr(client.chat.completions, "stream", None)
    check(holder is not None, "this openai version has no chat.completions.stream helper "
          "(scripts/e2e-requirements.txt pins one that has)")
    if holder is None:
        return
    with holder(model=model, messages=MESSAGES, tools=TOOLS) as stream:
        final = stream.get_final_completion()
    calls = final.choices[0].message.tool_calls or []
    got = [(c.function.name, loads_object(c.function.arguments)) for c in calls]
    check(got == expected, f"{model} (stream helper): calls {got!r} != {expected!r}")
    check(final.choices[0].finish_reason == "tool_calls",
          f"{model} (stream helper): finish_reason {final.choices[0].finish_reason!r}")


def run_client(base_url):
    import openai
    print(f"openai {openai.__version__} against {base_url}", flush=True)
    client = openai.OpenAI(base_url=base_url, api_key="unused", max_retries=0, timeout=30)
    models = {m.id for m in client.models.list()}
    check(set(COMPLETE) | set(TRUNCATED) <= models, f"/v1/models lists {sorted(models)}")
    seen_ids = set()
    for model, expected in COMPLETE.items():
        check_complete(client, model, expected, seen_ids)
    check_stream_helper(client, "qwen3-coder-write", COMPLETE["qwen3-coder-write"])
    for model, (name, kept) in TRUNCATED.items():
        check_truncated(client, model, name, kept)
    _, _, _, content = whole(client, "hermes-weather")
    check(content.strip() == "I'll check both cities.", f"visible text {content!r}")
    try:
        client.chat.completions.create(model="no-such-model", messages=MESSAGES)
        check(False, "an upstream 404 passes through as an error")
    except openai.NotFoundError:
        check(True, "")


def check_sse(path):
    body = open(path, "rb").read()
    events = body.split(b"\n\n")
    check(body.endswith(b"data: [DONE]\n\n"), f"{path}: does not end with data: [DONE]")
    check(events[-1] == b"", f"{path}: trailing bytes after the last event")
    events = events[:-1]
    check(len(events) > 2, f"{path}: only {len(events)} events")
    for i, event in enumerate(events):
        ok = event.startswith(b"data: ") and b"\n" not in event and b"\r" not in event
        check(ok, f"{path}: event {i} is not one data line: {event[:80]!r}")
        if ok and event != b"data: [DONE]":
            try:
                chunk = json.loads(event[6:])
                check(chunk.get("object") == "chat.completion.chunk",
                      f"{path}: event {i} is not a chunk")
            except ValueError:
                check(False, f"{path}: event {i} is not json")
    check(events and events[-1] == b"data: [DONE]", f"{path}: last event is not [DONE]")


# The fewest checks a client run makes (44 today): a run that checked less passed less.
MIN_CLIENT_CHECKS = 44


def main(argv):
    floor = 3
    if len(argv) == 3 and argv[1] == "--check-sse":
        check_sse(argv[2])
    elif len(argv) == 2:
        run_client(argv[1])
        floor = MIN_CLIENT_CHECKS
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print(f"{passed} passed, {failed} failed")
    if passed + failed < floor:
        print(f"FAIL: {passed + failed} checks made, fewer than the floor of {floor}")
        return 1
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
