#!/usr/bin/env python3
"""End to end: the official `openai` and `anthropic` Python clients through `toolsift
proxy`, on every surface (chat completions, Responses, legacy completions, Anthropic
Messages), streaming and not, against upstreams started here:

* an http upstream answering per model name: raw model text with a broken call
  (`raw-hermes`), structured `tool_calls` with broken arguments (`structured-broken`),
  structured calls the last of which is cut by the token limit (`structured-cut`), a
  thinking model whose template opened `<think>` (`thinker`), an upstream that stalls
  (`stall`), closes mid-stream (`cut`) or answers a stream with plain text (`not-sse`);
* the same upstream over https with a self-signed certificate made here (openssl), the
  proxy in front of it configured by a TOML file (`--config`).

Then `/metrics` is scraped and checked against what the clients received, and bad input
(a malformed body, an oversized one, an unknown route) gets a clear error.

    e2e_clients.py PATH/TO/toolsift

Exits non-zero when any check fails.
"""

import http.server
import json
import os
import re
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

PARAMS = {"type": "object",
          "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
          "required": ["city"]}
CHAT_TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": PARAMS}}]
RESPONSES_TOOLS = [{"type": "function", "name": "get_weather", "parameters": PARAMS}]
ANTHROPIC_TOOLS = [{"name": "get_weather", "description": "the weather", "input_schema": PARAMS}]

RAW_HERMES = ("Let me check.\n<tool_call>\n"
              "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 2,}}\n"
              "</tool_call>")
THINKER = ("The user wants the weather in Oslo.</think>Checking.\n<tool_call>\n"
           "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>")
RAW_TWO = ("Checking both.\n<tool_call>\n"
           "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n"
           "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\", \"days\": 2}}\n"
           "</tool_call>")
STRUCTURED_BROKEN = [("call_up_1", "get_weather", "{'city': 'Paris', 'days': '3',}"),
                     ("call_up_2", "get_weather", "{\"city\": \"Rome\"}")]
STRUCTURED_CUT = [("call_up_3", "get_weather", "{\"city\": \"Oslo\"}"),
                  ("call_up_4", "get_weather", "{\"city\": \"Ber")]

passed = 0
failed = 0
# What the clients received, to check /metrics against.
seen = {"released": 0, "truncated": 0}


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {what}", flush=True)


def args_of(text):
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


# ---------------------------------------------------------------- the upstream

def chunk(delta, finish=None, index=0):
    return {"id": "chatcmpl-e2e", "object": "chat.completion.chunk", "created": 1700000000,
            "model": "e2e", "choices": [{"index": index, "delta": delta, "finish_reason": finish}]}


def pieces(text, size=5):
    return [text[i:i + size] for i in range(0, len(text), size)]


def chat_answer(model, stream):
    """(content type, body parts, pause before each part) for a chat completion."""
    if model in ("raw-hermes", "raw-two", "thinker", "cut", "stall", "not-sse"):
        text = {"thinker": THINKER, "raw-two": RAW_TWO}.get(model, RAW_HERMES)
        if not stream:
            body = {"id": "chatcmpl-e2e", "object": "chat.completion", "created": 1700000000,
                    "model": model, "choices": [{"index": 0, "finish_reason": "stop",
                                                 "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 7, "completion_tokens": 11, "total_tokens": 18}}
            return "application/json", [json.dumps(body)]
        if model == "not-sse":
            return "text/plain", ["this is not an event stream"]
        events = [chunk({"role": "assistant", "content": ""})]
        events += [chunk({"content": p}) for p in pieces(text)]
        if model == "cut":
            events = events[:len(events) // 2]  # then the connection closes
        else:
            events.append(chunk({}, "stop"))
        parts = [f"data: {json.dumps(e)}\n\n" for e in events]
        if model != "cut":
            parts.append("data: [DONE]\n\n")
        return "text/event-stream", parts
    calls = STRUCTURED_BROKEN if model == "structured-broken" else STRUCTURED_CUT
    finish = "tool_calls" if model == "structured-broken" else "length"
    if not stream:
        message = {"role": "assistant", "content": None, "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls]}
        body = {"id": "chatcmpl-e2e", "object": "chat.completion", "created": 1700000000,
                "model": model, "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
        return "application/json", [json.dumps(body)]
    events = [chunk({"role": "assistant", "content": None})]
    for k, (i, n, a) in enumerate(calls):
        events.append(chunk({"tool_calls": [{"index": k, "id": i, "type": "function",
                                             "function": {"name": n, "arguments": ""}}]}))
        events += [chunk({"tool_calls": [{"index": k, "function": {"arguments": p}}]}) for p in pieces(a, 4)]
    events.append(chunk({}, finish))
    return "text/event-stream", [f"data: {json.dumps(e)}\n\n" for e in events] + ["data: [DONE]\n\n"]


class Upstream(http.server.BaseHTTPRequestHandler):
    # HTTP/1.0: each body ends when the connection closes, so `cut` is a clean close
    # without [DONE].
    def log_message(self, *args):
        pass

    def send(self, status, content_type, parts, stall_after=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if content_type != "text/event-stream":
            self.send_header("Content-Length", str(sum(len(p.encode()) for p in parts)))
        self.end_headers()
        for n, part in enumerate(parts):
            if n == stall_after:
                time.sleep(4)
            try:
                self.wfile.write(part.encode())
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                return

    def finish(self):
        super().finish()
        # End TLS with close_notify: a close-delimited body is complete only then.
        if isinstance(self.connection, ssl.SSLSocket):
            try:
                self.connection.unwrap()
            except (OSError, ValueError):
                pass

    def do_GET(self):
        if self.path == "/v1/models":
            models = [{"id": m, "object": "model"} for m in ("raw-hermes", "structured-broken")]
            return self.send(200, "application/json", [json.dumps({"object": "list", "data": models})])
        self.send(404, "application/json", [json.dumps({"error": {"message": f"no route {self.path}"}})])

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        model = request.get("model", "")
        stream = bool(request.get("stream"))
        if self.path == "/v1/chat/completions":
            content_type, parts = chat_answer(model, stream)
            # `stall` goes quiet after its first chunk (streaming) or before answering.
            stall = (2 if stream else 0) if model == "stall" else None
            if stall == 0:
                time.sleep(4)
                stall = None
            return self.send(200, content_type, parts, stall)
        if self.path == "/v1/completions":
            body = {"id": "cmpl-e2e", "object": "text_completion", "created": 1700000000, "model": model,
                    "choices": [{"index": 0, "text": RAW_HERMES, "logprobs": None, "finish_reason": "stop"}]}
            return self.send(200, "application/json", [json.dumps(body)])
        self.send(404, "application/json", [json.dumps({"error": {"message": f"no route {self.path}"}})])


def serve(context=None):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    server.daemon_threads = True
    if context is not None:
        server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# ---------------------------------------------------------------- the proxies

def start_proxy(binary, args, log_path):
    log = open(log_path, "wb")
    process = subprocess.Popen([binary, "proxy", "--listen", "127.0.0.1:0", *args],
                               stdout=subprocess.DEVNULL, stderr=log)
    for _ in range(200):
        text = open(log_path, encoding="utf-8", errors="replace").read()
        found = re.search(r"listening on (http://[0-9.:]+/v1)", text)
        if found:
            return process, found.group(1)
        if process.poll() is not None:
            raise SystemExit(f"the proxy exited:\n{text}")
        time.sleep(0.05)
    process.kill()
    raise SystemExit("the proxy did not start listening")


# ---------------------------------------------------------------- the checks

def chat_checks(openai, client, label):
    def stream_calls(model):
        calls, finish, ext, content, reasoning = {}, None, None, "", ""
        for c in client.chat.completions.create(model=model, messages=[{"role": "user", "content": "go"}],
                                                tools=CHAT_TOOLS, stream=True):
            if not c.choices:
                continue
            choice = c.choices[0]
            content += choice.delta.content or ""
            reasoning += (choice.delta.model_extra or {}).get("reasoning_content") or ""
            for call in choice.delta.tool_calls or []:
                slot = calls.setdefault(call.index, {"id": "", "name": "", "arguments": ""})
                slot["id"] += call.id or ""
                if call.function:
                    slot["name"] += call.function.name or ""
                    slot["arguments"] += call.function.arguments or ""
            if choice.finish_reason:
                finish, ext = choice.finish_reason, c.to_dict().get("toolsift")
        return [calls[i] for i in sorted(calls)], finish, ext, content, reasoning

    def whole_calls(model):
        r = client.chat.completions.create(model=model, messages=[{"role": "user", "content": "go"}],
                                           tools=CHAT_TOOLS)
        m = r.choices[0].message
        calls = [{"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
                 for c in m.tool_calls or []]
        return calls, r.choices[0].finish_reason, r.to_dict().get("toolsift"), m.content or "", \
            (m.model_extra or {}).get("reasoning_content") or ""

    for how, get in (("stream", stream_calls), ("whole", whole_calls)):
        what = f"{label} chat {how}"
        calls, finish, ext, content, _ = get("raw-hermes")
        complete = [args_of(c["arguments"]) for c in calls]
        check(complete == [{"city": "Paris", "days": 2}], f"{what} raw-hermes: calls {calls}")
        check(finish == "tool_calls", f"{what} raw-hermes: finish {finish}")
        check(content == "Let me check.\n", f"{what} raw-hermes: content {content!r}")
        check("trailing_comma" in json.dumps((ext or {}).get("repairs")), f"{what}: repairs {ext}")
        seen["released"] += len(calls)

        calls, finish, ext, _, _ = get("structured-broken")
        got = [(c["id"], c["name"], args_of(c["arguments"])) for c in calls]
        check(got == [("call_up_1", "get_weather", {"city": "Paris", "days": 3}),
                      ("call_up_2", "get_weather", {"city": "Rome"})],
              f"{what} structured-broken: calls {got}")
        check(calls and calls[1]["arguments"] == "{\"city\": \"Rome\"}", f"{what}: valid arguments unchanged")
        check(finish == "tool_calls", f"{what} structured-broken: finish {finish}")
        check("single_quoted_string" in (ext or {}).get("repairs", {}).get("call_up_1", []),
              f"{what} structured-broken: repairs {ext}")
        seen["released"] += len(calls)

        calls, finish, ext, _, _ = get("structured-cut")
        complete = [(c["id"], args_of(c["arguments"])) for c in calls if args_of(c["arguments"]) is not None]
        check(complete == [("call_up_3", {"city": "Oslo"})], f"{what} structured-cut: calls {calls}")
        check(finish == "length", f"{what} structured-cut: finish {finish}")
        incomplete = (ext or {}).get("incomplete_calls") or []
        check(len(incomplete) == 1 and incomplete[0]["reason"] == "truncated",
              f"{what} structured-cut: incomplete {incomplete}")
        seen["released"] += len(complete)
        seen["truncated"] += len(incomplete)

        calls, finish, ext, content, reasoning = get("thinker")
        check(content == "Checking.\n", f"{what} thinker: content {content!r}")
        check(reasoning == "The user wants the weather in Oslo.", f"{what} thinker: reasoning {reasoning!r}")
        check([args_of(c["arguments"]) for c in calls] == [{"city": "Oslo"}], f"{what} thinker: calls {calls}")
        seen["released"] += len(calls)

    # The SDK's own stream accumulator.
    with client.chat.completions.stream(model="structured-broken", tools=CHAT_TOOLS,
                                        messages=[{"role": "user", "content": "go"}]) as s:
        final = s.get_final_completion()
    calls = final.choices[0].message.tool_calls or []
    check([args_of(c.function.arguments) for c in calls] == [{"city": "Paris", "days": 3}, {"city": "Rome"}],
          f"{label} chat stream helper: {calls}")
    seen["released"] += len(calls)


def responses_checks(client, label):
    for model, expected in (("raw-hermes", [{"city": "Paris", "days": 2}]),
                            ("structured-broken", [{"city": "Paris", "days": 3}, {"city": "Rome"}])):
        what = f"{label} responses {model}"
        r = client.responses.create(model=model, input="go", tools=RESPONSES_TOOLS)
        calls = [o for o in r.output if o.type == "function_call"]
        check([args_of(c.arguments) for c in calls] == expected, f"{what} whole: {r.output}")
        check(all(c.call_id for c in calls), f"{what} whole: call ids")
        check(r.status == "completed", f"{what} whole: status {r.status}")
        seen["released"] += len(calls)
        if model == "raw-hermes":
            check(r.output_text == "Let me check.\n", f"{what} whole: output_text {r.output_text!r}")
        deltas, done = {}, []
        final = None
        for event in client.responses.create(model=model, input="go", tools=RESPONSES_TOOLS, stream=True):
            if event.type == "response.function_call_arguments.delta":
                deltas[event.item_id] = deltas.get(event.item_id, "") + event.delta
            elif event.type == "response.function_call_arguments.done":
                done.append(event.arguments)
            elif event.type == "response.completed":
                final = event.response
        check([args_of(a) for a in done] == expected, f"{what} stream: done {done}")
        check(list(deltas.values()) == done, f"{what} stream: deltas add up {deltas} {done}")
        check(final is not None and [args_of(o.arguments) for o in final.output if o.type == "function_call"] == expected,
              f"{what} stream: completed {final}")
        seen["released"] += len(done)
    # The SDK's stream helper.
    with client.responses.stream(model="structured-broken", input="go", tools=RESPONSES_TOOLS) as s:
        final = s.get_final_response()
    calls = [o for o in final.output if o.type == "function_call"]
    check([args_of(c.arguments) for c in calls] == [{"city": "Paris", "days": 3}, {"city": "Rome"}],
          f"{label} responses stream helper: {final.output}")
    seen["released"] += len(calls)


def completions_checks(client, label):
    r = client.completions.create(model="raw-hermes", prompt="go")
    check(r.choices[0].text == RAW_HERMES, f"{label} completions without tools: passed through")
    r = client.completions.create(model="raw-hermes", prompt="go", extra_body={"tools": CHAT_TOOLS})
    choice = r.choices[0].to_dict()
    check(choice["text"] == "Let me check.\n", f"{label} completions with tools: text {choice['text']!r}")
    calls = choice.get("tool_calls") or []
    check([args_of(c["function"]["arguments"]) for c in calls] == [{"city": "Paris", "days": 2}],
          f"{label} completions with tools: calls {calls}")
    check(choice["finish_reason"] == "tool_calls", f"{label} completions: finish {choice['finish_reason']}")
    seen["released"] += len(calls)


def anthropic_checks(anthropic, base, label):
    client = anthropic.Anthropic(base_url=base, api_key="unused", max_retries=0, timeout=30)
    messages = [{"role": "user", "content": "go"}]
    for model, expected, stop in (("raw-hermes", [{"city": "Paris", "days": 2}], "tool_use"),
                                  ("structured-broken", [{"city": "Paris", "days": 3}, {"city": "Rome"}], "tool_use"),
                                  ("structured-cut", [{"city": "Oslo"}], "max_tokens"),
                                  ("thinker", [{"city": "Oslo"}], "tool_use")):
        what = f"{label} anthropic {model}"
        m = client.messages.create(model=model, max_tokens=256, messages=messages, tools=ANTHROPIC_TOOLS)
        uses = [b for b in m.content if b.type == "tool_use"]
        check([b.input for b in uses] == expected, f"{what} whole: {m.content}")
        check(m.stop_reason == stop, f"{what} whole: stop_reason {m.stop_reason}")
        seen["released"] += len(uses)
        if model == "structured-cut":
            seen["truncated"] += 1
        if model == "thinker":
            thinking = [b.thinking for b in m.content if b.type == "thinking"]
            text = [b.text for b in m.content if b.type == "text"]
            check(thinking == ["The user wants the weather in Oslo."] and text == ["Checking.\n"],
                  f"{what} whole: thinking {thinking} text {text}")
        with client.messages.stream(model=model, max_tokens=256, messages=messages, tools=ANTHROPIC_TOOLS) as s:
            kinds = [event.type for event in s]
            final = s.get_final_message()
        uses = [b for b in final.content if b.type == "tool_use"]
        check([b.input for b in uses] == expected, f"{what} stream: {final.content}")
        check(final.stop_reason == stop, f"{what} stream: stop_reason {final.stop_reason}")
        check(kinds[0] == "message_start" and kinds[-1] == "message_stop", f"{what} stream: events {kinds}")
        seen["released"] += len(uses)
        if model == "structured-cut":
            seen["truncated"] += 1


def choice_checks(anthropic, client, base, label):
    """The request's tool_choice and parallel_tool_calls decide what is released, on every
    surface: a refused call never reaches the client, and the text around it is kept."""
    both, first = [{"city": "Paris"}, {"city": "Rome", "days": 2}], [{"city": "Paris"}]
    other = {"type": "function", "function": {"name": "get_time"}}
    messages = [{"role": "user", "content": "go"}]
    for extra, expected in (({"tool_choice": "none"}, []),
                            ({"tool_choice": "required"}, both),
                            ({"tool_choice": other}, []),
                            ({"parallel_tool_calls": False}, first)):
        what = f"{label} chat {extra}"
        r = client.chat.completions.create(model="raw-two", messages=messages, tools=CHAT_TOOLS, **extra)
        calls = r.choices[0].message.tool_calls or []
        check([args_of(c.function.arguments) for c in calls] == expected, f"{what} whole: {calls}")
        check((r.choices[0].message.content or "").strip() == "Checking both.",
              f"{what} whole: content {r.choices[0].message.content!r}")
        reasons = [c["reason"] for c in r.to_dict()["toolsift"].get("incomplete_calls", [])]
        check(len(reasons) == 2 - len(expected) and all(
            x == ("parallel_calls" if "parallel_tool_calls" in extra else "tool_choice") for x in reasons),
            f"{what} whole: reasons {reasons}")
        # A request that requires a call and gets none is told so.
        must_call = extra.get("tool_choice") not in (None, "auto", "none")
        unmet = r.to_dict()["toolsift"].get("tool_choice_unmet")
        check(bool(unmet) == (must_call and not expected), f"{what} whole: tool_choice_unmet {unmet!r}")
        args, text, ext = {}, "", {}
        for c in client.chat.completions.create(model="raw-two", messages=messages, tools=CHAT_TOOLS,
                                                stream=True, **extra):
            if not c.choices:
                continue
            if c.choices[0].finish_reason:
                ext = c.to_dict().get("toolsift") or {}
            text += c.choices[0].delta.content or ""
            for d in c.choices[0].delta.tool_calls or []:
                args[d.index] = args.get(d.index, "") + (d.function.arguments or "")
        check([args_of(a) for a in args.values()] == expected, f"{what} stream: {args}")
        check(text.strip() == "Checking both.", f"{what} stream: content {text!r}")
        check(bool(ext.get("tool_choice_unmet")) == (must_call and not expected),
              f"{what} stream: tool_choice_unmet in {ext}")
    # Responses: the same fields, and the response echoes the request's tools.
    for extra, expected in (({"tool_choice": "none"}, []), ({"parallel_tool_calls": False}, first),
                            ({}, both)):
        what = f"{label} responses {extra}"
        r = client.responses.create(model="raw-two", input="go", tools=RESPONSES_TOOLS, **extra)
        calls = [o for o in r.output if o.type == "function_call"]
        check([args_of(c.arguments) for c in calls] == expected, f"{what} whole: {r.output}")
        check([t.name for t in r.tools] == ["get_weather"], f"{what}: tools echoed {r.tools}")
        check(r.tool_choice == extra.get("tool_choice", "auto"), f"{what}: tool_choice {r.tool_choice}")
        check(r.parallel_tool_calls == extra.get("parallel_tool_calls", True),
              f"{what}: parallel_tool_calls {r.parallel_tool_calls}")
        final = None
        for event in client.responses.create(model="raw-two", input="go", tools=RESPONSES_TOOLS,
                                             stream=True, **extra):
            if event.type == "response.completed":
                final = event.response
        got = [args_of(o.arguments) for o in final.output if o.type == "function_call"]
        check(got == expected, f"{what} stream: {final.output}")
        check([t.name for t in final.tools] == ["get_weather"], f"{what} stream: tools echoed")
    # Anthropic: tool_choice auto, any, tool, none and disable_parallel_tool_use.
    aclient = anthropic.Anthropic(base_url=base[: -len("/v1")], api_key="unused", max_retries=0, timeout=30)
    for choice, expected in (({"type": "auto"}, both), ({"type": "any"}, both),
                             ({"type": "none"}, []), ({"type": "tool", "name": "get_time"}, []),
                             ({"type": "tool", "name": "get_weather"}, both),
                             ({"type": "auto", "disable_parallel_tool_use": True}, first),
                             ({"type": "any", "disable_parallel_tool_use": True}, first)):
        what = f"{label} anthropic tool_choice {choice}"
        m = aclient.messages.create(model="raw-two", max_tokens=256, messages=messages,
                                    tools=ANTHROPIC_TOOLS, tool_choice=choice)
        check([b.input for b in m.content if b.type == "tool_use"] == expected, f"{what} whole: {m.content}")
        text = "".join(b.text for b in m.content if b.type == "text")
        check(text.strip() == "Checking both.", f"{what} whole: text {text!r}")
        check(m.stop_reason == ("tool_use" if expected else "end_turn"), f"{what}: stop {m.stop_reason}")
        unmet = (m.to_dict().get("toolsift") or {}).get("tool_choice_unmet")
        check(bool(unmet) == (choice["type"] in ("any", "tool") and not expected),
              f"{what}: tool_choice_unmet {unmet!r}")
        with aclient.messages.stream(model="raw-two", max_tokens=256, messages=messages,
                                     tools=ANTHROPIC_TOOLS, tool_choice=choice) as s:
            final = s.get_final_message()
        check([b.input for b in final.content if b.type == "tool_use"] == expected,
              f"{what} stream: {final.content}")


def failure_checks(openai, anthropic, client, base):
    root = base[: -len("/v1")]
    # A stalled upstream: the stream ends honestly, the whole answer is a 504.
    finish, ext = None, None
    for c in client.chat.completions.create(model="stall", messages=[{"role": "user", "content": "go"}], stream=True):
        if c.choices and c.choices[0].finish_reason:
            finish, ext = c.choices[0].finish_reason, c.to_dict().get("toolsift")
    check(finish == "length" and (ext or {}).get("upstream_error", {}).get("code") == "timeout",
          f"stall stream: finish {finish} ext {ext}")
    try:
        client.chat.completions.create(model="stall", messages=[{"role": "user", "content": "go"}])
        check(False, "stall whole: no error")
    except openai.APIStatusError as e:
        check(e.status_code == 504, f"stall whole: status {e.status_code}")
    # An upstream that closes mid-stream, and one that answers a stream with plain text.
    for model in ("cut", "not-sse"):
        finish, ext, content = None, None, ""
        for c in client.chat.completions.create(model=model, tools=CHAT_TOOLS, stream=True,
                                                messages=[{"role": "user", "content": "go"}]):
            if c.choices:
                content += c.choices[0].delta.content or ""
                if c.choices[0].finish_reason:
                    finish, ext = c.choices[0].finish_reason, c.to_dict().get("toolsift")
        check(finish == "length", f"{model}: finish {finish}")
        if model == "not-sse":
            check("not an event stream" in json.dumps(ext), f"not-sse: upstream_error {ext}")
        else:
            check(content == "Let me check.\n" and "<tool_call" not in content, f"cut: content {content!r}")
            # Closed without [DONE]: said so, unlike a stop at the token limit.
            check((ext or {}).get("upstream_error", {}).get("code") == "incomplete",
                  f"cut: upstream_error {ext}")
    # Bad input: malformed, oversized, an unknown route.
    def raw(path, data, method="POST"):
        request = urllib.request.Request(root + path, data=data, method=method,
                                         headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()
    status, body = raw("/v1/chat/completions", b"{not json")
    check(status == 400 and b"not json" in body, f"malformed body: {status} {body[:100]}")
    status, body = raw("/v1/messages", b"{not json")
    check(status == 400 and json.loads(body).get("type") == "error", f"malformed messages body: {status} {body[:100]}")
    status, body = raw("/v1/chat/completions", b" " * 70000)
    check(status == 413, f"oversized body: {status} {body[:100]}")
    status, body = raw("/v1/nothing-here", b"{}")
    check(status == 404 and b"no route /v1/nothing-here" in body, f"unknown route: {status} {body[:100]}")
    status, body = raw("/health", None, "GET")
    check(status == 200 and json.loads(body) == {"status": "ok"}, f"health: {status} {body}")


def metric(text, name):
    found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
    return float(found.group(1)) if found else None


def metrics_checks(base, sent):
    text = urllib.request.urlopen(base[: -len("/v1")] + "/metrics", timeout=30).read().decode()
    # The stalled upstream's last answer may still be winding down: wait until the proxy
    # has counted every request but this one.
    for _ in range(100):
        if metric(text, "toolsift_request_duration_seconds_count") == metric(text, "toolsift_requests_total") - 1:
            break
        time.sleep(0.1)
        text = urllib.request.urlopen(base[: -len("/v1")] + "/metrics", timeout=30).read().decode()
    released = metric(text, "toolsift_calls_released_total")
    check(released == seen["released"], f"metrics: calls released {released} != {seen['released']} seen by clients")
    truncated = metric(text, 'toolsift_calls_not_released_by_reason_total{reason="truncated"}')
    check(truncated == seen["truncated"] + 1, f"metrics: truncated {truncated} != {seen['truncated']} + cut")
    for route, count in sent.items():
        got = metric(text, f'toolsift_route_requests_total{{route="{route}"}}')
        check(got == count, f"metrics: {route} requests {got} != {count}")
    for name in ('toolsift_calls_repaired_total{repair="trailing_comma"}',
                 'toolsift_calls_repaired_total{repair="single_quoted_string"}',
                 'toolsift_responses_by_dialect_total{dialect="hermes"}',
                 'toolsift_upstream_errors_total{kind="timeout"}'):
        check((metric(text, name) or 0) > 0, f"metrics: {name} missing in\n{text}")
    count = metric(text, "toolsift_request_duration_seconds_count")
    check(count == metric(text, "toolsift_requests_total") - 1, f"metrics: latency count {count}")


# The fewest checks a run makes (156 today): a run that checked less passed less.
MIN_CHECKS = 156


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = argv[1]
    import anthropic
    import openai
    print(f"openai {openai.__version__}, anthropic {anthropic.__version__}", flush=True)
    work = tempfile.mkdtemp(prefix="toolsift-e2e-clients-")
    cert, key = os.path.join(work, "cert.pem"), os.path.join(work, "key.pem")
    made = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                           "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                           "-addext", "basicConstraints=critical,CA:FALSE",
                           "-addext", "extendedKeyUsage=serverAuth",
                           "-keyout", key, "-out", cert], capture_output=True)
    if made.returncode != 0:
        raise SystemExit(f"openssl could not make a certificate: {made.stderr.decode()}")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    plain, tls = serve(), serve(context)
    config = os.path.join(work, "proxy.toml")
    with open(config, "w") as f:
        f.write(f'upstream = "https://localhost:{tls.server_address[1]}/v1"\n'
                f'upstream_ca = "{cert}"\nidle_timeout = 2\nlog = "json"\n'
                '[[models]]\nmatch = "thinker"\nreasoning_open = true\n')
    procs = []
    try:
        proxy, base = start_proxy(binary, [
            "--upstream", f"http://127.0.0.1:{plain.server_address[1]}/v1",
            "--model-reasoning-open", "thinker", "--model-dialect", "raw-hermes=hermes", "--idle-timeout", "1", "--max-body-bytes", "65536",
            "--log", "json"], os.path.join(work, "proxy.log"))
        procs.append(proxy)
        proxy_tls, base_tls = start_proxy(binary, ["--config", config], os.path.join(work, "proxy-tls.log"))
        procs.append(proxy_tls)
        print(f"upstreams :{plain.server_address[1]} (http), :{tls.server_address[1]} (https); "
              f"proxies {base}, {base_tls}", flush=True)
        client = openai.OpenAI(base_url=base, api_key="unused", max_retries=0, timeout=30)
        models = [m.id for m in client.models.list()]
        check("raw-hermes" in models, f"/v1/models passes through: {models}")
        chat_checks(openai, client, "http")
        responses_checks(client, "http")
        completions_checks(client, "http")
        anthropic_checks(anthropic, base[: -len("/v1")], "http")
        failure_checks(openai, anthropic, client, base)
        # Sent to the http proxy: chat 4 models x 2 + the stream helper + stall x 2 + cut +
        # not-sse + malformed + oversized; responses 2 models x 2 + the helper; messages
        # 4 models x 2 + malformed.
        metrics_checks(base, {"chat_completions": 15, "responses": 5, "completions": 2, "messages": 9})
        # Through https and the config file: the same answers.
        tls_client = openai.OpenAI(base_url=base_tls, api_key="unused", max_retries=0, timeout=30)
        chat_checks(openai, tls_client, "https")
        responses_checks(tls_client, "https")
        anthropic_checks(anthropic, base_tls[: -len("/v1")], "https")
        choice_checks(anthropic, tls_client, base_tls, "https")
        log = open(os.path.join(work, "proxy-tls.log")).read().splitlines()
        lines = [json.loads(line) for line in log if line.startswith("{")]
        check(len(lines) >= 10 and all("route" in l and "status" in l for l in lines),
              f"json logs: {log[:3]}")
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                check(False, "a proxy did not stop on SIGTERM")
    print(f"{passed} passed, {failed} failed")
    if passed + failed < MIN_CHECKS:
        print(f"FAIL: {passed + failed} checks made, fewer than the floor of {MIN_CHECKS}")
        return 1
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
