#!/usr/bin/env python3
"""vLLM's and SGLang's own tool parsers against ours. Each server's parsers run in a
Python that has that server installed (scripts/server_parsers.sh passes the two
environments .ci/run keeps for the Python package: python/requirements-ci.txt for vLLM,
python/requirements-sglang.txt for SGLang); this script itself imports neither.

1. Names. Every tool-parser name either server registers (vLLM's `ToolParserManager`,
   SGLang's `FunctionCallParser.ToolCallParserEnum`) must be one `toolsift dialects
   --json` lists, as a dialect's name or an alias: a name a server adds later is a
   failing line here, not silence.
2. Calls. For every server name, well-formed outputs written in the format our dialect
   for that name reads (one call, typed values, parallel calls, nested arguments, a
   string with quotes and a newline, text before the calls) are parsed by the server's
   parser and by `toolsift parse --jsonl --dialect NAME`, with the same tools. The
   calls (names in order, arguments by value) and the content (blanks trimmed at its
   ends) must agree. A disagreement that comes from the server, not from us, is listed
   in KNOWN below with the reason, and is checked to still happen (so a server fix
   shows up too).

Prints per name the agreeing and disagreeing outputs and a summary; exits 1 on an
unknown name, an unlisted disagreement, or a listed one that no longer happens.

    server_parsers.py TOOLSIFT_BIN --vllm PYTHON --sglang PYTHON [--verbose] [--only NAME,...]

`--worker SERVER` is how the script runs itself under a server's Python: it reads the
request (our names, the names asked for, Beam's response template) as JSON on stdin and
prints the server's registered names, the outputs it built and what its parsers read.
"""
import json
import logging
import os
import subprocess
import sys
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)
os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")

args = sys.argv[1:]
if not args:
    sys.exit(__doc__)


def option(flag):
    return args[args.index(flag) + 1] if flag in args else None


WORKER = option("--worker")
BINARY = None if WORKER else args[0]
VERBOSE = "--verbose" in args
ONLY = set(option("--only").split(",")) if option("--only") else None
PYTHONS = {"vllm": option("--vllm"), "sglang": option("--sglang")}

# --- the tools every output is parsed with -----------------------------------------
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"]}}},
    {"type": "function", "function": {"name": "search", "parameters": {
        "type": "object",
        "properties": {"query": {"type": "string"}, "filters": {"type": "object"},
                       "limit": {"type": "integer"}, "exact": {"type": "boolean"}},
        "required": ["query"]}}},
    {"type": "function", "function": {"name": "note", "parameters": {
        "type": "object", "properties": {"text": {"type": "string"}},
        "required": ["text"]}}},
]

# --- the calls the outputs carry ----------------------------------------------------
CASES = [
    ("one", "", [("get_weather", {"city": "Paris"})]),
    ("typed", "", [("get_weather", {"city": "Tokyo", "days": 3})]),
    ("text_before", "Let me check the weather.", [("get_weather", {"city": "Oslo"})]),
    ("parallel", "", [("get_weather", {"city": "Paris"}),
                      ("get_weather", {"city": "Rome", "days": 2})]),
    ("nested", "", [("search", {"query": "rust parsers",
                                "filters": {"lang": ["en", "fr"], "year": 2024},
                                "limit": 5, "exact": True})]),
    ("hard_string", "", [("note", {"text": 'He said "hi" - ok\nline 2 & {x}'})]),
]


def jd(v):
    return json.dumps(v, ensure_ascii=False)


def xv(v):
    """A value as XML-parameter formats write it: strings raw, anything else JSON."""
    return v if isinstance(v, str) else jd(v)


def py(v):
    """A value as Python source."""
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{py(k)}: {py(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(py(x) for x in v) + "]"
    return jd(v)


def env(n, a, args_key="arguments"):
    return "{" + f'"name": {jd(n)}, "{args_key}": {jd(a)}' + "}"


# --- formats: calls -> output text ---------------------------------------------------
def hermes(calls):
    return "\n".join(f"<tool_call>\n{env(n, a)}\n</tool_call>" for n, a in calls)


def qwen3_xml(calls, framed=True, wrap=("<tool_call>", "</tool_call>")):
    out = []
    for n, a in calls:
        ps = "".join(f"<parameter={k}>\n{xv(v)}\n</parameter>\n" if framed
                     else f"<parameter={k}>{xv(v)}</parameter>\n" for k, v in a.items())
        out.append(f"{wrap[0]}\n<function={n}>\n{ps}</function>\n{wrap[1]}")
    return "\n".join(out)


def glm(calls, nl=False, wrap=("<tool_call>", "</tool_call>"), sep="", tag=""):
    out = []
    for n, a in calls:
        k_nl = "\n" if nl else ""
        ps = "".join(f"<{tag}arg_key>{k}</{tag}arg_key>{k_nl}<{tag}arg_value>{xv(v)}"
                     f"</{tag}arg_value>{k_nl}" for k, v in a.items())
        out.append(f"{wrap[0]}{n}{sep}{k_nl}{ps}{wrap[1]}")
    return ("\n" if nl else "").join(out)


def invoke_xml(calls, prefix="", string_attr=False, invoke="invoke", param="parameter"):
    out = []
    for n, a in calls:
        ps = []
        for k, v in a.items():
            attr = f' string="{"true" if isinstance(v, str) else "false"}"' if string_attr else ""
            ps.append(f'<{prefix}{param} name="{k}"{attr}>{xv(v)}</{prefix}{param}>')
        out.append(f'<{prefix}{invoke} name="{n}">\n' + "\n".join(ps) + f"\n</{prefix}{invoke}>")
    return "\n".join(out)


def pythonic_list(calls):
    return "[" + ", ".join(f"{n}(" + ", ".join(f"{k}={py(v)}" for k, v in a.items()) + ")"
                           for n, a in calls) + "]"


def gemma_value(v, q):
    """A value as Gemma writes it: strings between its quote token, bare keys."""
    if isinstance(v, str):
        return f"{q}{v}{q}"
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{gemma_value(x, q)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(gemma_value(x, q) for x in v) + "]"
    return jd(v)


def gemma(calls, open_, close, q):
    return "".join(f"{open_}call:{n}" + gemma_value(a, q) + close for n, a in calls)


K3_TYPES = {str: "string", bool: "boolean", int: "number", float: "number", dict: "object",
            list: "array"}


def kimi_k3(calls):
    body = "".join(
        f'<|open|>call tool="{n}" index="{i + 1}"<|sep|>' + "".join(
            f'<|open|>argument key="{k}" type="{K3_TYPES[type(v)]}"<|sep|>{xv(v)}'
            "<|close|>argument<|sep|>" for k, v in a.items()) + "<|close|>call<|sep|>"
        for i, (n, a) in enumerate(calls))
    return "<|open|>tools<|sep|>" + body + "<|close|>tools<|sep|>"


def m3_value(v, ns):
    if isinstance(v, dict):
        return "".join(f"{ns}<{k}>{m3_value(x, ns)}{ns}</{k}>" for k, x in v.items())
    if isinstance(v, list):
        return "".join(f"{ns}<item>{m3_value(x, ns)}{ns}</item>" for x in v)
    return xv(v)


def minimax_m3(calls):
    ns = "]<]minimax[>["
    return f"{ns}<tool_call>\n" + "".join(
        f'{ns}<invoke name="{n}">\n' + "".join(
            f"{ns}<{k}>{m3_value(v, ns)}{ns}</{k}>\n" for k, v in a.items()) + f"{ns}</invoke>\n"
        for n, a in calls) + f"{ns}</tool_call>"


FORMATS = {
    "gemma4": lambda c: gemma(c, "<|tool_call>", "<tool_call|>", '<|"|>'),
    "functiongemma": lambda c: gemma(c, "<start_function_call>", "<end_function_call>", "<escape>"),
    "gigachat3": lambda c: "<|message_sep|>\n\nfunction call<|role_sep|>\n" + env(*c[0]),
    "kimi_k3": kimi_k3,
    "minimax_m3": minimax_m3,
    "internlm_spaced": lambda c: "".join(
        f"<|action_start|> <|plugin|>\n{env(n, a, 'parameters')}<|action_end|>" for n, a in c),
    "hermes": hermes,
    "qwen3_coder": qwen3_xml,
    "mimo": lambda c: qwen3_xml(c, framed=False),
    "seed_oss": lambda c: qwen3_xml(c, wrap=("<seed:tool_call>", "</seed:tool_call>")),
    "glm47": glm,
    "glm45": lambda c: glm(c, nl=True),
    "hy3_plain": lambda c: "<tool_calls>\n" + glm(c, nl=True, sep="<tool_sep>") + "\n</tool_calls>",
    "hy3_opensource": lambda c: "<tool_calls:opensource>" + "".join(
        f"<tool_call:opensource>{n}<tool_sep:opensource>" + "".join(
            f"<arg_key:opensource>{k}</arg_key:opensource><arg_value:opensource>{xv(v)}"
            f"</arg_value:opensource>" for k, v in a.items()) + "</tool_call:opensource>"
        for n, a in c) + "</tool_calls:opensource>",
    "hy4_plain": lambda c: "<tool_calls>" + glm(c) + "</tool_calls>",
    "a13b": lambda c: "<tool_calls>" + jd([{"name": n, "arguments": a} for n, a in c]) + "</tool_calls>",
    "iquest": lambda c: glm(c, wrap=("<iquest_tool_call>", "</iquest_tool_call>")),
    "k2_horizon": lambda c: "<ifm|tool_calls>" + glm(c, wrap=("<ifm|tool_call>", "</ifm|tool_call>"),
                                                     tag="ifm|") + "</ifm|tool_calls>",
    "minimax_m2": lambda c: "<minimax:tool_call>\n" + invoke_xml(c) + "\n</minimax:tool_call>",
    "dots": lambda c: "<dots_function_call>\n" + invoke_xml(c) + "\n</dots_function_call>",
    "dsml32": lambda c: "<｜DSML｜function_calls>\n" + invoke_xml(c, "｜DSML｜", True)
    + "\n</｜DSML｜function_calls>",
    "dsml4": lambda c: "<｜DSML｜tool_calls>\n" + invoke_xml(c, "｜DSML｜", True)
    + "\n</｜DSML｜tool_calls>",
    "dsml41": lambda c: "<｜DSML｜ calls>\n" + invoke_xml(c, "｜DSML｜ ", True)
    + "\n</｜DSML｜ calls>",
    "gcml": lambda c: "<｜GCML｜tool_calls>\n" + invoke_xml(c, "｜GCML｜", True)
    + "\n</｜GCML｜tool_calls>",
    "plamo3": lambda c: "<|plamo:begin_tool_requests:plamo|>" + "".join(
        "<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>" + n
        + "<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>"
          "<|plamo:constrain|>json<|plamo:msg|>" + jd(a)
        + "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>" for n, a in c)
    + "<|plamo:end_tool_requests:plamo|>",
    "mistral": lambda c: "".join(f"[TOOL_CALLS]{n}[ARGS]{jd(a)}" for n, a in c),
    "mistral_json": lambda c: "[TOOL_CALLS]" + jd([{"name": n, "arguments": a} for n, a in c]),
    "llama3_json": lambda c: "; ".join(env(n, a, "parameters") for n, a in c),
    "pythonic": pythonic_list,
    "deepseek_v3": lambda c: "<｜tool▁calls▁begin｜>" + "".join(
        f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{n}\n```json\n{jd(a)}\n```<｜tool▁call▁end｜>"
        for n, a in c) + "<｜tool▁calls▁end｜>",
    "deepseek_v31": lambda c: "<｜tool▁calls▁begin｜>" + "".join(
        f"<｜tool▁call▁begin｜>{n}<｜tool▁sep｜>{jd(a)}<｜tool▁call▁end｜>" for n, a in c)
    + "<｜tool▁calls▁end｜>",
    "kimi_k2": lambda c: "<|tool_calls_section_begin|>" + "".join(
        f"<|tool_call_begin|>functions.{n}:{i}<|tool_call_argument_begin|>{jd(a)}<|tool_call_end|>"
        for i, (n, a) in enumerate(c)) + "<|tool_calls_section_end|>",
    "granite": lambda c: "<|tool_call|>" + jd([{"name": n, "arguments": a} for n, a in c]),
    "granite_20b": lambda c: " ".join(f"<function_call> {env(n, a)}" for n, a in c),
    "jamba": lambda c: "<tool_calls>" + jd([{"name": n, "arguments": a} for n, a in c]) + "</tool_calls>",
    "minimax_m1": lambda c: "<tool_calls>\n" + "\n".join(env(n, a) for n, a in c) + "\n</tool_calls>",
    "xlam": lambda c: jd([{"name": n, "arguments": a} for n, a in c]),
    "internlm": lambda c: "".join(f"<|action_start|><|plugin|>\n{env(n, a, 'parameters')}<|action_end|>"
                                  for n, a in c),
    "phi4_mini": lambda c: "functools" + jd([{"name": n, "arguments": a} for n, a in c]),
    "command_r": lambda c: "<|START_ACTION|>" + jd(
        [{"tool_call_id": str(i), "tool_name": n, "parameters": a} for i, (n, a) in enumerate(c)])
    + "<|END_ACTION|>",
    "inkling": lambda c: "".join(f"<|content_invoke_tool_json|>{jd({'name': n, 'args': a})}<|end_message|>"
                                 for n, a in c),
    "olmo3": lambda c: "<function_calls>\n" + "\n".join(
        f"{n}(" + ", ".join(f"{k}={py(v)}" for k, v in a.items()) + ")" for n, a in c)
    + "\n</function_calls>",
    "lfm2": lambda c: "<|tool_call_start|>" + pythonic_list(c) + "<|tool_call_end|>",
    "ernie45": lambda c: "\n".join(f"<tool_call>\n{env(n, a)}\n</tool_call>" for n, a in c),
    "longcat": lambda c: "\n".join(f"<longcat_tool_call>{env(n, a)}</longcat_tool_call>" for n, a in c),
    "step3": lambda c: "<｜tool_calls_begin｜>" + "".join(
        f'<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="{n}">' + "".join(
            f'<steptml:parameter name="{k}">{xv(v)}</steptml:parameter>' for k, v in a.items())
        + "</steptml:invoke><｜tool_call_end｜>" for n, a in c) + "<｜tool_calls_end｜>",
    "apertus": lambda c: "<|tools_prefix|>" + jd([{n: a} for n, a in c]) + "<|tools_suffix|>",
    "minicpm5": lambda c: "\n".join(f'<function name="{n}">' + "".join(
        f'<param name="{k}">{xv(v)}</param>' for k, v in a.items()) + "</function>" for n, a in c),
    # The prompt ends with the first message's `<|start|>assistant`.
    "harmony": lambda c: "<|start|>assistant".join(
        f"<|channel|>commentary to=functions.{n} <|constrain|>json<|message|>{jd(a)}<|call|>"
        for n, a in c),
    "harmony_started": lambda c: "".join(
        f"<|start|>assistant<|channel|>commentary to=functions.{n} <|constrain|>json<|message|>"
        f"{jd(a)}<|call|>" for n, a in c),
    "beam": lambda c: "<|end|><|start|>assistant".join(
        f" to={n}<|channel|>analysis <|constrain|>xml<|message|>" + "".join(
            f'<rfl:parameter name="{k}">\n{xv(v)}\n</rfl:parameter>' for k, v in a.items())
        for n, a in c) + "<|call|>",
    "muse": lambda c: "".join(
        f"<|start|>assistant to={n}<|message|><atem:function_calls>\n" + invoke_xml(
            [(n, a)], "atem:") + "\n</atem:function_calls><|eom|>" for n, a in c),
}

# --- which format each server name is fed, and how its parser is set up -------------
# Our dialect for a name decides the format (FORMAT_OF_DIALECT); a name whose server
# reads one variant of what our dialect reads is fed that variant (FORMAT_OF_NAME).
FORMAT_OF_DIALECT = {
    "hermes": "hermes", "qwen3_coder": "qwen3_coder", "mimo": "mimo", "seed_oss": "seed_oss",
    "glm45": "glm47", "hunyuan3": "hy3_opensource", "hunyuan": "a13b", "iquest_q1": "iquest",
    "k2_horizon": "k2_horizon", "minimax_m2": "minimax_m2", "dots": "dots",
    "deepseek_v32": "dsml4", "deepseek_v41": "dsml41", "gigachat35": "gcml", "plamo3": "plamo3",
    "mistral": "mistral", "llama3_json": "llama3_json", "pythonic": "pythonic",
    "deepseek_v3": "deepseek_v3", "kimi_k2": "kimi_k2", "granite": "granite", "jamba": "jamba",
    "minimax_m1": "minimax_m1", "xlam": "xlam", "internlm": "internlm", "phi4_mini": "phi4_mini",
    "command_r": "command_r", "inkling": "inkling", "olmo3": "olmo3", "lfm2": "lfm2",
    "ernie45": "ernie45", "longcat": "longcat", "step3": "step3", "apertus": "apertus",
    "minicpm5": "minicpm5", "harmony": "harmony", "muse_glimmer": "muse", "gemma4": "gemma4",
    "functiongemma": "functiongemma", "gigachat3": "gigachat3", "kimi_k3": "kimi_k3",
    "minimax_m3": "minimax_m3", "beam": "beam",
}
FORMAT_OF_NAME = {
    "glm45": "glm45", "glm": "glm45", "ling3": "glm45", "poolside_v1": "glm45",
    "spark25": "glm47", "glm47": "glm47",
    "hunyuan": "hy3_plain", "hy_v4": "hy4_plain", "hy_v3": "hy3_opensource",
    "deepseek_v32": "dsml32", "deepseekv32": "dsml32",
    "deepseek_v31": "deepseek_v31", "deepseekv31": "deepseek_v31",
    "granite-20b-fc": "granite_20b",
    "interns1": "internlm_spaced",
    "gpt-oss": "harmony_started",
}

# Names no built-in format stands for: the format comes from the checkpoint's
# `response_template` metadata (we read them as `auto`).
TEMPLATE_DEFINED = {"hf", "response_template"}

# Disagreements that come from the server, by (server, name, case), with the reason.
DROPS_TEXT = "the server drops the text before the calls; we keep it (no visible text is lost)"
NO_CALL_AFTER_TEXT = ("the server reads no call after text; SGLang's parser for the same "
                      "format does, as we do")
KNOWN = {
    ("vllm", "cohere_command4", "text_before"): DROPS_TEXT,
    ("vllm", "minicpm5", "text_before"): DROPS_TEXT,
    ("vllm", "olmo3", "text_before"): DROPS_TEXT,
    ("vllm", "phi4_mini_json", "text_before"): DROPS_TEXT,
    ("vllm", "muse", "text_before"): DROPS_TEXT,
    ("vllm", "muse_glimmer", "text_before"): DROPS_TEXT,
    ("vllm", "musespark1x", "text_before"): DROPS_TEXT,
    ("vllm", "pythonic", "text_before"): NO_CALL_AFTER_TEXT,
    ("vllm", "llama4_pythonic", "text_before"): NO_CALL_AFTER_TEXT,
    ("sglang", "muse", "text_before"): "SGLang's muse reads no call after text (vLLM's does)",
    ("vllm", "llama3_json", "text_before"): (
        "vLLM reads bare JSON after text as a call and drops the text; a bare object is a "
        "call here only at the start of the output (issue 37 section 1: Llama 3 JSON with "
        "text around)"),
    ("vllm", "llama4_json", "text_before"): (
        "vLLM reads bare JSON after text as a call and drops the text; a bare object is a "
        "call here only at the start of the output (issue 37 section 1)"),
    ("sglang", "beam", "text_before"): "SGLang's beam tool detector leaves the answer's "
                                       "channel markup to its reasoning parser",
    ("vllm", "internlm", "parallel"): "vLLM's internlm parser raises on two calls",
    ("vllm", "phi4_mini_json", "nested"): "vLLM's phi4_mini_json reads no call when "
                                          "arguments nest objects in arrays",
    ("vllm", "step3", "nested"): "vLLM's step3 leaves an object-typed value a string",
    ("vllm", "gemma4", "nested"): "vLLM's gemma4 leaves a number inside an object a "
                                  "string (SGLang's gemma4 types it, as we do)",
    ("vllm", "minimax_m3", "nested"): "vLLM's minimax_m3 reads <item> elements inside an "
                                      "object as an object of items, not an array",
    ("sglang", "minimax-m3", "nested"): "SGLang's minimax-m3 leaves a leaf no schema types "
                                        "a string (year \"2024\"); ours reads it as written "
                                        "(2024, as the call meant)",
    ("vllm", "functiongemma", "typed"): "vLLM's functiongemma drops every value that is "
                                        "not an <escape> string",
    ("vllm", "functiongemma", "parallel"): "vLLM's functiongemma drops every value that is "
                                           "not an <escape> string",
    ("vllm", "functiongemma", "nested"): "vLLM's functiongemma drops every value that is "
                                         "not an <escape> string",
}


# --- the servers' parsers -------------------------------------------------------------
class AutoVocab(dict):
    """A vocabulary where every string is a token (ids handed out on first sight), so
    parsers that look their special tokens up find them."""

    def _id(self, k):
        if not dict.__contains__(self, k):
            dict.__setitem__(self, k, len(self) + 1000)
        return dict.__getitem__(self, k)

    def get(self, k, default=None):
        return self._id(k) if isinstance(k, str) else default

    def __getitem__(self, k):
        return self._id(k)

    def __contains__(self, k):
        return isinstance(k, str)


class FakeTokenizer:
    """What the tool parsers ask of a tokenizer, without a model's files: text-level
    parsing only needs the special tokens to have ids."""

    eos_token_id = 1
    bos_token_id = 2
    name_or_path = "toolsift-check"
    init_kwargs = {}

    def __init__(self, seed=(), response_template=None):
        self.vocab = AutoVocab()
        for token in seed:
            self.vocab.get(token)
        if response_template is not None:
            self.response_template = response_template

    def get_vocab(self):
        return self.vocab

    def _inverse(self):
        return {v: k for k, v in dict.items(self.vocab)}

    def encode(self, text, add_special_tokens=False, **kw):
        return [self.vocab.get(ch) for ch in text]

    def decode(self, ids, **kw):
        inv = self._inverse()
        return "".join(inv.get(i, "") for i in ids)

    def convert_tokens_to_ids(self, t):
        return [self.vocab.get(x) for x in t] if isinstance(t, list) else self.vocab.get(t)

    def convert_ids_to_tokens(self, ids, **kw):
        inv = self._inverse()
        return [inv.get(i) for i in ids] if isinstance(ids, list) else inv.get(ids)

    def tokenize(self, text, **kw):
        return list(text)

    all_special_tokens = []
    all_special_ids = []

    def __len__(self):
        return len(self.vocab)

    def __bool__(self):
        return True


# Per-name set-up of vLLM's parsers: tokens the checkpoint's vocabulary has, the chat
# template's keyword arguments.
VLLM_INIT = {"hy_v3": {"token_suffix": ":opensource"}}


# vLLM names parsed through vLLM's unified parser (`ParserManager`), as its server does:
# their tool-parser class alone is a shim over it.
VLLM_UNIFIED = {"openai", "cohere_command3", "cohere_command4", "beam"}


def vllm_unified(name, text, tok, tools, request):
    from vllm.parser.parser_manager import ParserManager
    harmony = name == "openai"
    cls = ParserManager.get_parser(tool_parser_name=name, enable_auto_tools=True,
                                   is_harmony=harmony)
    parser = cls(tok, tools)
    ids = ()
    if harmony:
        from openai_harmony import HarmonyEncodingName, load_harmony_encoding
        enc = load_harmony_encoding(HarmonyEncodingName.HARMONY_GPT_OSS)
        ids = enc.encode(text, allowed_special="all")
    _, content, calls = parser.parse(text, request, enable_auto_tools=True,
                                     model_output_token_ids=ids)
    return {"content": content or "",
            "calls": [(c.name, json.loads(c.arguments or "{}")) for c in calls or []]}


def vllm_parse(name, text):
    from vllm.entrypoints.openai.chat_completion.protocol import (
        ChatCompletionRequest, ChatCompletionToolsParam)
    from vllm.tool_parsers import ToolParserManager
    cls = ToolParserManager.get_tool_parser(name)
    kwargs = {}
    template = None
    if name == "beam":
        # The checkpoint's metadata, which vLLM reads from the model: SGLang ships it.
        template = BEAM_TEMPLATE
    tok = FakeTokenizer((), template)
    tok.init_kwargs = VLLM_INIT.get(name, {})
    tools = [ChatCompletionToolsParam(**t) for t in TOOLS]
    request = ChatCompletionRequest(messages=[{"role": "user", "content": "x"}], model="m",
                                    tools=TOOLS)
    if name in VLLM_UNIFIED:
        return vllm_unified(name, text, tok, tools, request)
    parser = cls(tok, tools, **kwargs)
    result = parser.extract_tool_calls(text, request)
    return {"content": result.content or "",
            "calls": [(c.function.name, json.loads(c.function.arguments or "{}"))
                      for c in result.tool_calls]}


def sglang_parse(name, text):
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    parser = FunctionCallParser([Tool(**t) for t in TOOLS], name)
    content, calls = parser.parse_non_stream(text)
    return {"content": content or "",
            "calls": [(c.name, json.loads(c.parameters or "{}")) for c in calls]}


def beam_template():
    from sglang.srt.parser.beam import BEAM_RESPONSE_TEMPLATE
    return BEAM_RESPONSE_TEMPLATE


def registry(server):
    if server == "vllm":
        from vllm.tool_parsers import ToolParserManager
        return sorted(ToolParserManager.list_registered())
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    return sorted(FunctionCallParser.ToolCallParserEnum)


BEAM_TEMPLATE = None


def worker(server):
    """Under the server's Python: its names, the outputs for them, and what it reads."""
    global BEAM_TEMPLATE
    request = json.load(sys.stdin)
    BEAM_TEMPLATE = request.get("beam_template")
    names = registry(server)
    only = set(request["only"]) if request["only"] is not None else None
    jobs, failures = outputs(server, names, request["known"], only)
    results = []
    parse = vllm_parse if server == "vllm" else sglang_parse
    for job in jobs:
        try:
            results.append(parse(job["name"], job["text"]))
        except Exception as exc:  # noqa: BLE001 - a server parser that throws is a result
            results.append({"content": None, "calls": None,
                            "error": f"{type(exc).__name__}: {exc}"})
    reply = {"names": names, "jobs": jobs, "results": results, "failures": failures}
    if server == "sglang":
        reply["beam_template"] = beam_template()
    json.dump(reply, sys.stdout)


def outputs(server, names, known, only):
    """The well-formed outputs for every name of one server, in our format for it."""
    jobs, failures = [], []
    for n in names:
        if only and n not in only:
            continue
        dialect = known.get(norm(n))
        if dialect is None or n in TEMPLATE_DEFINED:
            continue
        fmt = FORMAT_OF_NAME.get(n) or FORMAT_OF_DIALECT.get(dialect)
        if fmt is None:
            failures.append(f"FAIL {server} {n}: no sample format for dialect {dialect}")
            continue
        for label, before, calls in CASES:
            if dialect == "gigachat3" and len(calls) > 1:
                continue
            text = FORMATS[fmt](calls)
            if before and fmt in ("beam", "harmony"):
                text = f"<|channel|>final<|message|>{before}<|end|><|start|>assistant" + text
            elif before:
                text = before + "\n" + text
            jobs.append({"name": n, "label": label, "text": text, "calls": calls,
                         "dialect": dialect})
    return jobs, failures


def run_worker(server, known, beam=None):
    python = PYTHONS[server] or sys.executable
    request = {"known": known, "only": sorted(ONLY) if ONLY else None, "beam_template": beam}
    out = subprocess.run([python, os.path.abspath(__file__), "--worker", server],
                         input=json.dumps(request).encode(), capture_output=True)
    if out.returncode != 0:
        sys.exit(f"{server} under {python} failed:\n{out.stderr.decode()[-3000:]}")
    reply = json.loads(out.stdout)
    # JSON turns the calls' tuples into lists: compare like with like.
    for r in reply["results"]:
        if r["calls"] is not None:
            r["calls"] = [tuple(c) for c in r["calls"]]
    return reply


# --- ours -------------------------------------------------------------------------------
def ours(records):
    stdin = "".join(json.dumps(r) + "\n" for r in records)
    out = subprocess.run([BINARY, "parse", "--jsonl"], input=stdin.encode(), capture_output=True)
    lines = [json.loads(l) for l in out.stdout.decode().splitlines() if l]
    if len(lines) != len(records):
        sys.exit(f"toolsift parse --jsonl: {out.stderr.decode()}")
    return [{"content": m.get("content") or "",
             "calls": [(c["function"]["name"], json.loads(c["function"]["arguments"]))
                       for c in m.get("tool_calls", [])],
             "incomplete": m.get("incomplete_calls", [])} for m in lines]


def our_names():
    out = subprocess.run([BINARY, "dialects", "--json"], capture_output=True, check=True)
    names = {}
    for line in out.stdout.decode().splitlines():
        d = json.loads(line)
        for n in [d["name"], *d["aliases"]]:
            names[n] = d["name"]
    return names


def norm(name):
    return name.lower().replace("-", "_")


def main():
    known = our_names()
    replies = {"sglang": run_worker("sglang", known)}
    replies["vllm"] = run_worker("vllm", known, replies["sglang"]["beam_template"])
    failures = []
    print(f"names: vLLM {len(replies['vllm']['names'])}, SGLang "
          f"{len(replies['sglang']['names'])}, ours {len(known)}")
    for server in ("vllm", "sglang"):
        failures += replies[server]["failures"]
        for n in replies[server]["names"]:
            if norm(n) not in known:
                failures.append(f"FAIL name: {server} parser {n!r} is no dialect name or alias "
                                f"(add it to src/dialect/names.rs)")

    jobs = [(server, job, theirs) for server in ("vllm", "sglang")
            for job, theirs in zip(replies[server]["jobs"], replies[server]["results"])]
    mine = ours([{"raw": job["text"], "dialect": job["name"], "tools": TOOLS}
                 for _, job, _ in jobs])
    tally = {}
    for (server, job, theirs), got in zip(jobs, mine):
        n, label, text, dialect = job["name"], job["label"], job["text"], job["dialect"]
        same_calls = theirs["calls"] == [tuple(c) for c in got["calls"]]
        same_text = (theirs["content"] or "").strip() == got["content"].strip()
        agree = same_calls and same_text and theirs["calls"] is not None
        key = (server, n)
        t = tally.setdefault(key, [0, 0])
        t[0 if agree else 1] += 1
        reason = KNOWN.get((server, n, label))
        if agree and reason:
            failures.append(f"FAIL {server} {n} {label}: listed as differing ({reason}) but agrees")
        if not agree and not reason:
            failures.append(
                f"FAIL {server} {n} [{dialect}] {label}: server {theirs} ours "
                f"{{'content': {got['content']!r}, 'calls': {got['calls']}, "
                f"'incomplete': {got['incomplete']}}}\n    text {text!r}")
        elif VERBOSE:
            print(f"   {'agree' if agree else 'known'} {server} {n} {label}")
    for (server, n), (a, d) in sorted(tally.items()):
        print(f"   {server:6} {n:18} -> {known[norm(n)]:14} agree {a} disagree {d}")
    total = [sum(v[i] for v in tally.values()) for i in (0, 1)]
    print(f"server parsers: {total[0]} outputs agree, {total[1]} disagree "
          f"({sum(1 for r in KNOWN)} listed) over {len(tally)} names")
    for f in failures:
        print(f)
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    if WORKER:
        worker(WORKER)
    else:
        main()
