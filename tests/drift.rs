//! Real models' drift (issue 27): behaviours the fixtures cannot show, such as the
//! dialect `auto` reports, checked under every chunking.

mod support;

use toolsift::{Config, Dialect, Parser, StopReason};

/// The dialect `auto` reports after reading `raw`, pushed whole and one byte at a time.
fn locked(raw: &str) -> Dialect {
    let mut seen = Vec::new();
    for cut in [raw.len(), 1] {
        let mut p = Parser::with_config(Config::new(Dialect::Auto));
        let cuts: Vec<usize> = (cut..raw.len()).step_by(cut).collect();
        support::run_with(&mut p, raw.as_bytes(), &cuts, StopReason::Stop);
        seen.push(p.dialect());
    }
    assert_eq!(seen[0], seen[1], "{raw:?}: the label depends on chunking");
    seen[0]
}

#[test]
fn hermes_json_under_auto_is_reported_as_hermes() {
    let json = "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>";
    assert_eq!(locked(json), Dialect::Hermes);
    let xml =
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>";
    assert_eq!(locked(xml), Dialect::Qwen3Coder);
    let glm = "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>";
    assert_eq!(locked(glm), Dialect::Glm);
}

/// The message of `raw` under `auto` with `tools` (OpenAI JSON), checked under every
/// chunking (every invariant, same result).
fn auto_message(raw: &str, tools: Option<&str>) -> serde_json::Value {
    let mut config = Config::new(Dialect::Auto);
    if let Some(tools) = tools {
        config.tools = std::sync::Arc::new(toolsift::Tools::from_json(tools.as_bytes()).unwrap());
    }
    let events = support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop)
        .unwrap_or_else(|e| panic!("{raw:?}: {e}"));
    support::message(&events)
}

const WEATHER: &str = r#"[{"type": "function", "function": {"name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
    "required": ["city"]}}}]"#;

/// Invariant 0 for markerless calls: call syntax in prose, JSON that names no tool, a
/// fence or a list that is not a call never becomes one, and all of it stays text.
#[test]
fn prose_with_call_syntax_stays_text_under_auto() {
    let prose = [
        r#"Here is the result: {"name": "get_weather", "arguments": {"city": "Paris"}} ok?"#,
        r#"{"answer": 42}"#,
        r#"{"parameters": {}}"#,
        r#"[1, 2, 3]"#,
        r#"[{"city": "Paris"}]"#,
        "[see note 3] and more",
        "[delete_all(city='Paris')] is how you would call it",
        "Use ```json\n{\"city\": \"Paris\"}\n``` as input.",
        "```python\nprint([get_weather(city='x')])\n```",
        "to=do: buy milk",
        "{\"na",
        // Lists that are not Python call lists (`src/grammar/call_list.rs`).
        "[see the docs](https://example.com/docs)",
        "[get_weather(city='Paris')](https://example.com)",
        "[get_weather(city=paris)]",
        "[get_weather(city='Paris'), and more]",
        "[get_weather(city=get_city())]",
        "Try [get_weather(city='Paris')] now.",
        "Sure.\n[delete_all(city='Paris')]",
    ];
    for raw in prose {
        for tools in [None, Some(WEATHER)] {
            let msg = auto_message(raw, tools);
            assert_eq!(
                msg["tool_calls"],
                serde_json::json!([]),
                "{raw:?} {tools:?}"
            );
            assert_eq!(msg["content"], raw, "{raw:?} {tools:?}: {msg}");
        }
    }
}

/// Markerless calls count under `auto` only when they name a declared tool and fit its
/// schema, or (no tools declared) any tool; a JSON call object only as the whole
/// output; a Python call list at the start of the output, or (tools declared) at the
/// start of any line.
#[test]
fn markerless_calls_under_auto() {
    let json = r#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#;
    let fenced = format!("Checking.\n```json\n{json}\n```\nDone.");
    let list = "[get_weather(city='Paris')]";
    let released = |raw: &str, tools| {
        auto_message(raw, tools)["tool_calls"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(released(json, None), 1);
    assert_eq!(released(json, Some(WEATHER)), 1);
    assert_eq!(released(&fenced, Some(WEATHER)), 1);
    assert_eq!(released(&fenced, None), 0);
    assert_eq!(released(list, Some(WEATHER)), 1);
    assert_eq!(released(list, None), 1);
    let later = format!("Checking.\n{list}\nDone.");
    assert_eq!(released(&later, Some(WEATHER)), 1);
    assert_eq!(released(&later, None), 0);
    let msg = auto_message(&later, Some(WEATHER));
    assert_eq!(msg["content"], "Checking.\n\nDone.");
    // A list the output ends in: text, unless it names a declared tool (then its calls
    // are read: a whole call released, as here with only the `]` missing, a cut one
    // reported truncated).
    let unclosed = "[get_weather(city='Paris')";
    assert_eq!(released(unclosed, None), 0);
    assert_eq!(auto_message(unclosed, None)["content"], unclosed);
    assert_eq!(released(unclosed, Some(WEATHER)), 1);
    // A JSON call object followed by text was not the whole output: not a call.
    let msg = auto_message(&format!("{json} and more"), Some(WEATHER));
    assert_eq!(msg["tool_calls"], serde_json::json!([]));
    assert_eq!(msg["incomplete_calls"][0]["reason"], "not_a_call");
    // The schema decides: a required key missing is no call.
    let bad = r#"{"name": "get_weather", "arguments": {"town": "Paris"}}"#;
    let msg = auto_message(bad, Some(WEATHER));
    assert_eq!(msg["tool_calls"], serde_json::json!([]));
    assert_eq!(msg["incomplete_calls"][0]["reason"], "not_a_call");
}

/// The message of `raw` under `dialect` with no tools, the same under every chunking.
fn named_message(dialect: Dialect, raw: &str) -> serde_json::Value {
    let config = Config::new(dialect);
    let events = support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop)
        .unwrap_or_else(|e| panic!("{raw:?}: {e}"));
    support::message(&events)
}

/// Invariant 0: a call whose parts cannot be told apart is not released. A Kimi id
/// `functions.NAME.0` (no `:INDEX`) may name `NAME` or `NAME.0`; a MiniCPM5 `<param>`
/// with no name has a value with nowhere to go.
#[test]
fn calls_that_cannot_be_read_as_meant_are_not_released() {
    let kimi = "<|tool_calls_section_begin|><|tool_call_begin|>functions.invalid.0 <|tool_call_argument_begin|>{\"city\": \"Beijing\"}<|tool_call_end|><|tool_call_begin|>functions.valid:1 <|tool_call_argument_begin|>{\"city\": \"Shanghai\"}<|tool_call_end|><|tool_calls_section_end|>";
    let minicpm = "<function name=\"get_weather\"><param>Beijing</param><param name=\"date\">2024-06-27</param></function>\n";
    for (dialect, raw, released) in [
        (Dialect::KimiK2, kimi, vec!["valid"]),
        (Dialect::MiniCpm5, minicpm, vec![]),
    ] {
        for d in [dialect, Dialect::Auto] {
            let msg = named_message(d, raw);
            let names: Vec<_> = msg["tool_calls"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["name"].as_str().unwrap().to_owned())
                .collect();
            assert_eq!(names, released, "{d:?}: {msg}");
            assert_eq!(
                msg["incomplete_calls"][0]["reason"], "invalid",
                "{d:?}: {msg}"
            );
        }
    }
}

/// Invariant 0 for XML bodies: a parameter written in a tag the dialect does not have
/// (`<city>Paris</city>` in Qwen3-Coder or MiniMax M2) is never dropped as stray text
/// from a released call; prose between the tags still is.
#[test]
fn xml_parameters_in_unknown_tags_are_not_dropped_from_a_released_call() {
    let cases = [
        (
            Dialect::Qwen3Coder,
            "<tool_call>\n<function=get_weather>\n<city>Paris</city>\n</function>\n</tool_call>",
        ),
        (
            Dialect::Qwen3Coder,
            "<tool_call>\n<function=get_weather>\n<city>Paris</city>\n<parameter=unit>\nC\n</parameter>\n</function>\n</tool_call>",
        ),
        (
            Dialect::MinimaxM2,
            "<minimax:tool_call><invoke name=\"get_weather\"><city>Paris</city></invoke></minimax:tool_call>",
        ),
        // After a parameter: its closing tag, not confirmed by `<city>`, is read as
        // content, and the value then closed by `</function>`: where it ends is unsure.
        (
            Dialect::Qwen3Coder,
            "<tool_call>\n<function=get_weather>\n<parameter=unit>\nC\n</parameter>\n<city>Paris</city>\n</function>\n</tool_call>",
        ),
    ];
    for (dialect, raw) in cases {
        let msg = named_message(dialect, raw);
        assert_eq!(msg["tool_calls"], serde_json::json!([]), "{raw:?}: {msg}");
        assert_eq!(msg["incomplete_calls"][0]["reason"], "invalid", "{msg}");
        assert_eq!(msg["content"], "", "{msg}");
    }
    // Prose, or a tag that holds nothing, loses no value: dropped, the call released.
    for raw in [
        "<tool_call>\n<function=get_weather>\nnote\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
        "<tool_call>\n<function=get_weather>\n<br>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
    ] {
        let msg = named_message(Dialect::Qwen3Coder, raw);
        assert_eq!(
            msg["tool_calls"][0]["arguments"], "{\"city\": \"Paris\"}",
            "{raw:?}: {msg}"
        );
    }
    // A wrapper around the parameters: its closing tag after the value's own closer
    // leaves where the value ends unsure; never released holding `</parameter>`.
    let wrapped = "<tool_call>\n<function=get_weather>\n<parameters>\n<parameter=city>\nParis\n</parameter>\n</parameters>\n</function>\n</tool_call>";
    let msg = named_message(Dialect::Qwen3Coder, wrapped);
    for call in msg["tool_calls"].as_array().unwrap() {
        assert_eq!(call["arguments"], "{\"city\": \"Paris\"}", "{msg}");
    }
}

/// Invariant 5: GLM's key and value tags are special tokens; outside a call (its
/// `<tool_call>` dropped) they are markup and never reach content, under `auto` and
/// named, with tools or without. The words between them stay (or are a call).
#[test]
fn glm_tags_outside_a_call_never_reach_content() {
    let raws = [
        "get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>",
        "Sure.\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>",
    ];
    for raw in raws {
        for msg in [
            auto_message(raw, None),
            auto_message(raw, Some(WEATHER)),
            named_message(Dialect::Glm, raw),
            named_message(Dialect::Hunyuan3, raw),
        ] {
            let content = msg["content"].as_str().unwrap();
            assert!(!content.contains("arg_"), "{raw:?}: {msg}");
            // Unless they were a call (`tests/name_before.rs`), the words stay.
            if msg["tool_calls"] == serde_json::json!([]) {
                assert!(
                    content.contains("city") && content.contains("Paris"),
                    "{raw:?}: {msg}"
                );
            }
        }
    }
}

/// Invariant 4: prose after `[TOOL_CALLS]` began no call, and the bytes read while the
/// body was sniffed are text again under every chunking (a `<` after a held newline was
/// lost when the two came in separate chunks).
#[test]
fn prose_after_a_call_marker_is_the_same_text_under_every_chunking() {
    let msg = named_message(Dialect::Mistral, "[TOOL_CALLS]\n<b>bold</b>");
    assert_eq!(msg["tool_calls"], serde_json::json!([]), "{msg}");
    assert_eq!(msg["content"], "\n<b>bold</b>", "{msg}");
}

/// Invariant 5 after `auto` locks: another dialect's markup in the text (its special
/// tokens, what `auto` strips before locking) is still markup, never shown; the prose
/// around it stays.
#[test]
fn other_dialects_markup_after_auto_locks_is_not_shown() {
    let cases = [
        ("[TOOL_CALLS]</tool_call>", ""),
        (
            "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call> then [TOOL_CALLS] and <|python_tag|>",
            " then  and ",
        ),
        (
            "[TOOL_CALLS][{\"name\": \"a\", \"arguments\": {}}] <|tool_call_begin|>x<|im_end|>",
            " x",
        ),
        (
            "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>ok<｜tool▁sep｜>done",
            "okdone",
        ),
        // A bracketed word that is not a token stays text.
        (
            "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call> see [Note 1]",
            " see [Note 1]",
        ),
    ];
    for (raw, content) in cases {
        let msg = auto_message(raw, None);
        assert_eq!(msg["content"], content, "{raw:?}: {msg}");
    }
}

/// Invariants 1 and 5: a well-formed call with no closer (Mistral) followed at once by
/// text (`}.`, `})`) is released as written, and the text is shown: a clean string's
/// quote that ends the whole value ends it, whatever text follows.
#[test]
fn text_right_after_a_closerless_call_is_text() {
    for (raw, content) in [
        (
            r#"[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}. Done."#,
            ". Done.",
        ),
        (
            r#"[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}) and"#,
            ") and",
        ),
        (
            r#"[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]!"#,
            "!",
        ),
    ] {
        let config = Config::new(Dialect::Mistral);
        let events = support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop)
            .unwrap_or_else(|e| panic!("{raw:?}: {e}"));
        let msg = support::message(&events);
        let calls = msg["tool_calls"].as_array().unwrap();
        assert_eq!(calls.len(), 1, "{raw:?}: {msg}");
        assert_eq!(
            calls[0]["arguments"], r#"{"city": "Paris"}"#,
            "{raw:?}: {msg}"
        );
        assert_eq!(calls[0]["repairs"], serde_json::json!([]), "{raw:?}: {msg}");
        assert_eq!(msg["content"], content, "{raw:?}: {msg}");
    }
}

/// Hunyuan 3 with its call's `<tool_call:opensource>` dropped inside the section
/// (`<tool_calls:opensource>NAME<tool_sep:opensource>...`): the section opens the call
/// (`missing_opener`); followed by the call's own opener, it is only the section.
/// Under `hunyuan3` and `auto`, under every chunking.
#[test]
fn hunyuan3_call_without_its_opener_inside_the_section() {
    let call = |name: &str| {
        format!(
            "{name}<tool_sep:opensource><arg_key:opensource>city</arg_key:opensource>\
             <arg_value:opensource>Paris</arg_value:opensource></tool_call:opensource>"
        )
    };
    let cases = [
        (
            format!("<tool_calls:opensource>{}</tool_calls:opensource>", call("get_weather")),
            vec![("get_weather", true)],
        ),
        (
            format!(
                "Checking.<tool_calls:opensource>\n{}\n<tool_call:opensource>{}</tool_calls:opensource>",
                call("get_weather"),
                call("get_time")
            ),
            vec![("get_weather", true), ("get_time", false)],
        ),
        (
            format!(
                "<tool_calls:opensource>\n<tool_call:opensource>{}\n</tool_calls:opensource>",
                call("get_weather")
            ),
            vec![("get_weather", false)],
        ),
    ];
    for dialect in [Dialect::Hunyuan3, Dialect::Auto] {
        for (raw, want) in &cases {
            let config = Config::new(dialect);
            let events = support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop)
                .unwrap_or_else(|e| panic!("{raw:?}: {e}"));
            let m = support::message(&events);
            let calls = m["tool_calls"].as_array().unwrap();
            assert_eq!(calls.len(), want.len(), "{dialect:?} {raw:?}: {m}");
            for (call, (name, repaired)) in calls.iter().zip(want) {
                assert_eq!(call["name"], *name, "{m}");
                assert_eq!(call["arguments"], r#"{"city": "Paris"}"#, "{m}");
                let missing = call["repairs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|r| r == "missing_opener");
                assert_eq!(missing, *repaired, "{dialect:?} {raw:?}: {m}");
            }
            let content = m["content"].as_str().unwrap();
            assert!(!content.contains('<') && !content.contains("Paris"), "{m}");
        }
    }
}

const ELEMENT_TOOLS: &str = r#"[
    {"type": "function", "function": {"name": "shell", "parameters": {"type": "object",
        "properties": {"command": {"type": "string"}}, "required": ["command"]}}},
    {"type": "function", "function": {"name": "read", "parameters": {"type": "object",
        "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["path"]}}},
    {"type": "function", "function": {"name": "write", "parameters": {"type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"]}}}]"#;

/// A case of drift read as calls: the output, the calls released (name, arguments),
/// their repairs, the text shown.
type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a [&'a str], &'a str);

/// The calls `msg` released: (name, arguments).
fn released(msg: &serde_json::Value) -> Vec<(&str, &str)> {
    msg["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap(),
                c["arguments"].as_str().unwrap(),
            )
        })
        .collect()
}

/// `msg` holds no call left unreleased, shows `content`, and reports `repairs` on each
/// released call.
fn all_released_as(msg: &serde_json::Value, repairs: &[&str], content: &str, what: &str) {
    assert_eq!(
        msg["incomplete_calls"],
        serde_json::json!([]),
        "{what}\n{msg}"
    );
    assert_eq!(msg["content"], content, "{what}\n{msg}");
    for call in msg["tool_calls"].as_array().unwrap() {
        assert_eq!(call["repairs"], serde_json::json!(repairs), "{what}\n{msg}");
    }
}

/// Every dialect that opens calls with a `<tool_calls>` section, and `auto`.
fn tool_calls_sections() -> Vec<Dialect> {
    let mut dialects: Vec<Dialect> = Dialect::ALL
        .iter()
        .copied()
        .filter(|d| d.openers().contains(&&b"<tool_calls>"[..]))
        .collect();
    assert!(dialects.len() >= 3, "{dialects:?}");
    dialects.push(Dialect::Auto);
    dialects
}

/// The message of `raw` under `dialect`, with `tools` or none, the same under every
/// chunking.
fn message_in(dialect: Dialect, raw: &str, tools: Option<&str>) -> serde_json::Value {
    let mut config = Config::new(dialect);
    if let Some(tools) = tools {
        config.tools = std::sync::Arc::new(toolsift::Tools::from_json(tools.as_bytes()).unwrap());
    }
    let events = support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop)
        .unwrap_or_else(|e| panic!("{dialect:?} {raw:?}: {e}"));
    support::message(&events)
}

/// Issue 37's drift: a call written as XML elements inside a `<tool_calls>` section,
/// the tool named by a `<tool_name>` element with the arguments as its siblings, or in
/// the tag (`<tool_read>`), closed by its own tag or another (`</tool_call>`), holding
/// elements or one JSON object. Read as the calls they are in every dialect with that
/// section and under `auto`, with tools declared and without; leaves typed by the
/// schema; the text after the section shown.
#[test]
fn calls_written_as_elements_in_a_tool_calls_section_are_read() {
    let cases: &[Case] = &[
        (
            "Let me look.\n<tool_calls>\n<tool_name>shell</tool_name>\n<command>ls -la</command>\n</tool_calls>",
            &[("shell", r#"{"command": "ls -la"}"#)],
            &[],
            "Let me look.\n",
        ),
        (
            "<tool_calls>\n<tool_name>shell</tool_name>\n<command>ls</command>\n<tool_name>read</tool_name>\n<path>a.rs</path>\n</tool_calls>",
            &[("shell", r#"{"command": "ls"}"#), ("read", r#"{"path": "a.rs"}"#)],
            &[],
            "",
        ),
        (
            "<tool_calls>\n<tool_read>\n<path>a.rs</path>\n<limit>20</limit>\n</tool_read>\n<tool_write>\n<path>b.rs</path>\n<content>fn main() {}</content>\n</tool_write>\n</tool_calls>\nDone.",
            &[
                ("read", r#"{"path": "a.rs", "limit": 20}"#),
                ("write", r#"{"path": "b.rs", "content": "fn main() {}"}"#),
            ],
            &[],
            "\nDone.",
        ),
        (
            "<tool_calls>\n<tool_read>\n<path>src/main.rs</path>\n</tool_call>\n</tool_calls>",
            &[("read", r#"{"path": "src/main.rs"}"#)],
            &["mismatched_tag"],
            "",
        ),
        (
            "<tool_calls>\n<tool_write>{\"path\": \"a.txt\", \"content\": \"hi\"}</tool_call>\n</tool_calls>",
            &[("write", r#"{"path": "a.txt", "content": "hi"}"#)],
            &["mismatched_tag"],
            "",
        ),
    ];
    for &dialect in &tool_calls_sections() {
        for tools in [Some(ELEMENT_TOOLS), None] {
            for &(raw, calls, repairs, content) in cases {
                let msg = message_in(dialect, raw, tools);
                let got = released(&msg);
                let typed = tools.is_some() || !raw.contains("<limit>");
                if typed {
                    assert_eq!(
                        got,
                        calls,
                        "{dialect:?} {raw:?} tools: {}\n{msg}",
                        tools.is_some()
                    );
                } else {
                    assert_eq!(got.len(), calls.len(), "{dialect:?} {raw:?}\n{msg}");
                }
                all_released_as(&msg, repairs, content, &format!("{dialect:?} {raw:?}"));
            }
        }
    }
}

/// The same forms where the call cannot be read as meant: the JSON inside the tag does
/// not close before a closing tag (the object may have gone on past it), a tool that is
/// not declared, the section's own `<tool_call>` after a stray word (never a tool named
/// `call`). Not released, never shown.
#[test]
fn calls_written_as_elements_that_cannot_be_read_are_not_released() {
    let cases = [
        (
            "<tool_calls>junk <tool_call>{\"name\": \"shell\", \"arguments\": {\"command\": \"ls\"}}</tool_call></tool_calls>",
            None,
        ),
        (
            "<tool_calls>\n<tool_write>{\"path\": \"a\", \"content\": \"x</tool_call>\n</tool_calls>",
            Some("write"),
        ),
        (
            "<tool_calls>\n<tool_write>\n<path>a.md</path>\n<content>Close with </tool_write> then\n</content>\n</tool_write>\n</tool_calls>",
            Some("write"),
        ),
        (
            "<tool_calls>\n<tool_delete>\n<path>a.rs</path>\n</tool_delete>\n</tool_calls>",
            Some("delete"),
        ),
    ];
    for &dialect in &tool_calls_sections() {
        for (raw, name) in cases {
            let msg = message_in(dialect, raw, Some(ELEMENT_TOOLS));
            assert_eq!(
                msg["tool_calls"],
                serde_json::json!([]),
                "{dialect:?} {raw:?}\n{msg}"
            );
            assert_eq!(
                msg["incomplete_calls"][0]["name"].as_str(),
                name,
                "{dialect:?} {raw:?}\n{msg}"
            );
            assert_eq!(msg["content"], "", "{dialect:?} {raw:?}\n{msg}");
        }
    }
}

/// Issue 37's drift: a call written as one self-closing tag, the arguments a JSON object
/// in an attribute whose quote broke (`"{...}'`), well quoted, or with its entities
/// escaped; several on their own lines. Read under `auto` (and after it locked onto
/// Hermes), with tools and without, under every chunking; `<tool name=` that begins no such tag stays text,
/// and an object cut by a `}'/>` inside a value is not released.
#[test]
fn a_call_as_one_self_closing_tag_is_read() {
    let cases: &[Case] = &[
        (
            "Reading it.\n<tool name=\"read\" arguments=\"{\"path\": \"a.txt\"}'/>",
            &[("read", r#"{"path": "a.txt"}"#)],
            &["mismatched_quote"],
            "Reading it.\n",
        ),
        (
            "<tool name=\"read\" arguments='{\"path\": \"a.txt\"}'/>\nDone.",
            &[("read", r#"{"path": "a.txt"}"#)],
            &[],
            "\nDone.",
        ),
        (
            "<tool name=\"write\" arguments=\"{&quot;path&quot;: &quot;a.html&quot;, &quot;content&quot;: &quot;&lt;br/&gt;&quot;}\"/>",
            &[("write", r#"{"path": "a.html", "content": "<br/>"}"#)],
            &[],
            "",
        ),
        (
            "<tool name=\"write\" arguments=\"{\"path\": \"a.html\", \"content\": \"a<br/>b\"}'/>\n<tool name=\"read\" arguments=\"{\"path\": \"b.txt\"}'/>",
            &[
                ("write", r#"{"path": "a.html", "content": "a<br/>b"}"#),
                ("read", r#"{"path": "b.txt"}"#),
            ],
            &["mismatched_quote"],
            "\n",
        ),
        (
            "Use <tool name=\"x\"> tags.\n<tool name=x> is how.\n<tool name=\"read\">",
            &[],
            &[],
            "Use <tool name=\"x\"> tags.\n<tool name=x> is how.\n<tool name=\"read\">",
        ),
    ];
    let hermes_first =
        "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"x\"}}\n</tool_call>\n";
    for dialect in [Dialect::Auto] {
        for tools in [Some(ELEMENT_TOOLS), None] {
            for &(raw, calls, repairs, content) in cases {
                // After `auto` locked onto Hermes too.
                let locked = format!("{hermes_first}{raw}");
                let msg = message_in(dialect, &locked, tools);
                assert_eq!(
                    msg["tool_calls"].as_array().unwrap().len(),
                    calls.len() + 1,
                    "{locked:?}\n{msg}"
                );
                let msg = message_in(dialect, raw, tools);
                let got = released(&msg);
                assert_eq!(got, calls, "{dialect:?} {raw:?}\n{msg}");
                all_released_as(&msg, repairs, content, &format!("{dialect:?} {raw:?}"));
            }
        }
        let cut = "<tool name=\"write\" arguments=\"{\"path\": \"a.txt\", \"content\": \"x}'/> more\"}'/>";
        let msg = message_in(dialect, cut, Some(ELEMENT_TOOLS));
        assert_eq!(
            msg["tool_calls"],
            serde_json::json!([]),
            "{dialect:?}\n{msg}"
        );
        assert_eq!(
            msg["incomplete_calls"][0]["name"], "write",
            "{dialect:?}\n{msg}"
        );
    }
}

/// A body of tags that is one JSON object (DSML's bare body, read by every grammar of
/// tags): released as written when the object closes before the tag that ends the body,
/// closed (`missing_closers`) when only containers are left open there; not released
/// when a string is left open there, since the tag may have been the string's. In
/// every form that writes its arguments as tags, with tools and without, under every
/// chunking. The body goes right before the call's closing markup.
#[test]
fn a_json_body_of_tags_cut_by_its_tag_is_not_released() {
    use toolsift::render::{Arguments, Call, Style, Turn};
    let whole = r#"{"path": "a.md", "content": "abc"}"#;
    let cut = [
        r#"{"path": "a.md", "content": "abc"#,
        r#"{"path": "a.md", "content": {"text": "abc"#,
    ];
    // Its strings closed, the tag is the model's: the object is closed.
    let (open, closed) = (
        r#"{"path": "a.md", "content": {"text": "abc"}"#,
        r#"{"path": "a.md", "content": {"text": "abc"}}"#,
    );
    let mut forms = 0;
    for &dialect in Dialect::ALL {
        for form in dialect.forms() {
            if !matches!(
                form.arguments(),
                Arguments::Params { .. } | Arguments::Elements
            ) {
                continue;
            }
            forms += 1;
            let style = Style::new().form(form.name());
            let write = |args| {
                let turn = match form.reasoning() {
                    true => Turn::new().reasoning("Plan."),
                    false => Turn::new(),
                };
                let turn = turn.call(Call::new("write", args));
                dialect.render_with(&turn, &style).unwrap().output
            };
            let none = write("{}");
            let name = none.find("write").unwrap();
            let at = form
                .closing_markup()
                .iter()
                .filter_map(|m| none[name..].find(m.trim()))
                .min()
                .map(|at| name + at)
                .unwrap_or_else(|| panic!("{none:?}"));
            let with_body = |body: &str| format!("{}{body}\n{}", &none[..at], &none[at..]);
            for tools in [Some(ELEMENT_TOOLS), None] {
                let config = || {
                    let mut config =
                        Config::new(dialect).reasoning_open(form.prompt_opens_reasoning());
                    if let Some(tools) = tools {
                        config =
                            config.tools(toolsift::Tools::from_json(tools.as_bytes()).unwrap());
                    }
                    config
                };
                let parse = |body: &str| {
                    let raw = with_body(body);
                    let events =
                        support::check_all_chunkings(&config(), raw.as_bytes(), StopReason::Stop)
                            .unwrap_or_else(|e| panic!("{dialect:?} {raw:?}: {e}"));
                    let msg = support::message(&events);
                    let context = format!("{dialect:?} {} {raw:?}\n{msg}", form.name());
                    (msg, context)
                };
                let (msg, context) = parse(whole);
                assert_eq!(released(&msg), vec![("write", whole)], "{context}");
                let (msg, context) = parse(open);
                assert_eq!(released(&msg), vec![("write", closed)], "{context}");
                let repairs = msg["tool_calls"][0]["repairs"].to_string();
                assert!(repairs.contains("missing_closers"), "{context}");
                for body in cut {
                    let (msg, context) = parse(body);
                    assert_eq!(msg["tool_calls"], serde_json::json!([]), "{context}");
                    assert_eq!(msg["incomplete_calls"][0]["reason"], "invalid", "{context}");
                }
            }
        }
    }
    assert!(forms >= 8, "{forms} forms of tags");
}

/// Invariant 0 on the drift forms no renderer writes: the project's own files
/// (`tests/fixtures/files/`) written into a call as an element's text (the tool named in
/// the tag, or by a `<tool_name>` element), as a JSON object in an element (escaped, and
/// with nothing escaped), and as a self-closing tag's JSON attribute (in either quote),
/// in every dialect with a `<tool_calls>` section and `auto`, with tools (and, for JSON,
/// without), under every chunking: released with the file byte for byte, or not
/// released. Never another content. A well-formed JSON object that holds no closing tag
/// is always released.
#[test]
fn real_files_in_the_drift_forms_are_released_exactly_or_held() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/files");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 8, "{files:?}");
    let (mut exact, mut held) = (0, 0);
    let read: Vec<(String, String)> = files
        .iter()
        .map(|f| {
            let name = f.file_name().unwrap().to_str().unwrap().to_owned();
            (name, std::fs::read_to_string(f).unwrap())
        })
        .collect();
    // Each again holding the forms' closing tags at a line's start mid-file, as a file
    // about tool calls does.
    let mut contents = read.clone();
    for (name, content) in &read {
        let mid = content[content.len() / 2..]
            .find('\n')
            .map_or(0, |i| content.len() / 2 + i + 1);
        let held = format!(
            "{}</content>\n</tool_write>\n</tool_calls>\n{}",
            &content[..mid],
            &content[mid..]
        );
        contents.push((format!("{name}+markup"), held));
    }
    for (name, content) in &contents {
        let path = name.as_str();
        let escaped = support::in_each_order(path, content);
        let raw_json = format!(r#"{{"path": "{path}", "content": "{content}"}}"#);
        // (text, well-formed, dialects)
        let mut written: Vec<(String, bool, Vec<Dialect>)> = vec![
            (
                format!("<tool_calls>\n<tool_write>\n<path>{path}</path>\n<content>{content}</content>\n</tool_write>\n</tool_calls>"),
                false,
                tool_calls_sections(),
            ),
            (
                format!("<tool_calls>\n<tool_name>write</tool_name>\n<path>{path}</path>\n<content>{content}</content>\n</tool_calls>"),
                false,
                tool_calls_sections(),
            ),
        ];
        // (With nothing escaped, a backslash the file holds reads two ways.)
        if !content.contains('\\') {
            written.push((
                format!("<tool_calls>\n<tool_write>{raw_json}</tool_write>\n</tool_calls>"),
                false,
                tool_calls_sections(),
            ));
        }
        for json in &escaped {
            written.push((
                format!("<tool_calls>\n<tool_write>{json}</tool_write>\n</tool_calls>"),
                true,
                tool_calls_sections(),
            ));
            let entities = json
                .replace('&', "&amp;")
                .replace('"', "&quot;")
                .replace('<', "&lt;")
                .replace('>', "&gt;");
            written.push((
                format!("<tool name=\"write\" arguments=\"{entities}\"/>"),
                true,
                vec![Dialect::Auto],
            ));
            if !content.contains("'/>") {
                written.push((
                    format!("<tool name=\"write\" arguments='{json}'/>"),
                    true,
                    vec![Dialect::Auto],
                ));
            }
        }
        for (raw, well_formed, dialects) in &written {
            for &dialect in dialects {
                // (Without a schema an element's text that reads as JSON is that JSON.)
                let untyped = raw.contains("<content>");
                for tools in [Some(ELEMENT_TOOLS), None] {
                    if untyped && tools.is_none() {
                        continue;
                    }
                    let mut config = Config::new(dialect);
                    if let Some(tools) = tools {
                        config =
                            config.tools(toolsift::Tools::from_json(tools.as_bytes()).unwrap());
                    }
                    let events =
                        support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop)
                            .unwrap_or_else(|e| panic!("{dialect:?} {path}: {e}"));
                    let msg = support::message(&events);
                    let calls = msg["tool_calls"].as_array().unwrap();
                    if calls.is_empty() {
                        let markup = path.ends_with("+markup");
                        assert!(!well_formed || markup, "{dialect:?} {path} {raw:?}\n{msg}");
                        held += 1;
                        continue;
                    }
                    let args: serde_json::Value =
                        serde_json::from_str(calls[0]["arguments"].as_str().unwrap()).unwrap();
                    assert_eq!(
                        (calls.len(), calls[0]["name"].as_str(), args),
                        (
                            1,
                            Some("write"),
                            serde_json::json!({"path": path, "content": content})
                        ),
                        "{dialect:?} tools: {} {path} {raw:?}",
                        tools.is_some()
                    );
                    exact += 1;
                }
            }
        }
    }
    eprintln!("drift forms: {exact} exact, {held} held");
}
