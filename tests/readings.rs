//! Released means right: the classes of wrong release that competing readings of an
//! ambiguous string fix, each checked whole, at every split point and in random chunks
//! (`support::check_all_chunkings`, which also checks every invariant).

mod support;

use std::sync::Arc;
use toolsift::{Config, Dialect, NotReleasedReason, OwnedEvent, StopReason, Tools};

fn write_file_tools() -> Arc<Tools> {
    let tools = serde_json::json!([
        {"type": "function", "function": {"name": "write_file", "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"], "additionalProperties": false}}},
        {"type": "function", "function": {"name": "run", "parameters": {
            "type": "object",
            "properties": {"cmd": {"type": "string"}, "cwd": {"type": "string"}},
            "required": ["cmd"]}}}
    ]);
    Arc::new(Tools::from_value(&tools).unwrap())
}

/// What a run released and did not, and the visible text.
#[derive(Debug, Default)]
struct Outcome {
    released: Vec<(String, serde_json::Value)>,
    held: Vec<(Option<String>, NotReleasedReason)>,
    text: String,
}

fn outcome(raw: &str, tools: bool, stop: StopReason) -> Outcome {
    let mut config = Config::new(Dialect::Hermes);
    if tools {
        config.tools = write_file_tools();
    }
    let events = support::check_all_chunkings(&config, raw.as_bytes(), stop)
        .unwrap_or_else(|e| panic!("{e}\n{raw}"));
    let mut out = Outcome::default();
    for e in events {
        match e {
            OwnedEvent::CallFinished {
                name, arguments, ..
            } => out
                .released
                .push((name, serde_json::from_str(&arguments).unwrap())),
            OwnedEvent::CallNotReleased { name, reason, .. } => out.held.push((name, reason)),
            OwnedEvent::Text(t) => out.text.push_str(&t),
            _ => {}
        }
    }
    out
}

/// `content` of the one `write_file` call released.
fn written(raw: &str) -> String {
    let out = outcome(raw, true, StopReason::Stop);
    assert!(out.text.trim().is_empty(), "text shown: {:?}", out.text);
    assert_eq!(out.released.len(), 1, "{out:?}");
    out.released[0].1["content"].as_str().unwrap().to_owned()
}

fn call(content: &str) -> String {
    format!(
        "<tool_call>{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"a\", \"content\": \"{content}\"}}}}</tool_call>"
    )
}

#[test]
fn a_quote_before_a_hash_is_content_not_the_start_of_a_comment() {
    let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\">\n<polygon fill=\"#cb0000\" points=\"1,2 3,4\"/>\n<rect width=\"4\" height=\"5\"/>\n</svg>";
    assert_eq!(written(&call(svg)), svg);
}

#[test]
fn a_script_object_followed_by_a_member_is_content() {
    let html = "<script>\nfetch(u, {\n  headers: {\"Content-Type\": \"application/json\"},\n  body: JSON.stringify(x)\n});\n</script>\n<p class=\"x\">hi</p>";
    assert_eq!(written(&call(html)), html);
}

#[test]
fn a_json_document_written_raw_is_one_string() {
    let doc = "{\n  \"name\": \"demo\",\n  \"version\": \"1.0.0\",\n  \"scripts\": {\"build\": \"tsc\", \"test\": \"jest\"},\n  \"private\": true\n}\n";
    assert_eq!(written(&call(doc)), doc);
}

#[test]
fn closers_in_the_file_do_not_end_the_call() {
    let md = "Send:\n```json\n{\"filter\": {\"state\": [\"ok\"], \"branch\": \"main\"}\n}\n```\n\nThen wait.\n";
    assert_eq!(written(&call(md)), md);
}

#[test]
fn a_backslash_quote_in_raw_text_keeps_its_backslash() {
    let sh = "#!/bin/sh\necho \"it's\"\nsed 's/\\'/x/' \"$@\"\n";
    assert_eq!(written(&call(sh)), sh);
}

#[test]
fn a_value_that_lost_its_quotes_is_not_merged_into_the_string_before_it() {
    let fixed = toolsift::repair(br#"{"a": "x", "b": fast and safe}"#).unwrap();
    assert_eq!(fixed.json, r#"{"a": "x", "b": "fast and safe"}"#);
}

#[test]
fn a_call_with_a_quote_closing_early_in_a_parallel_pair_keeps_both_calls() {
    let raw = "<tool_call>\n{\"name\": \"run\", \"arguments\": {\"cmd\": \"ls\", \"cwd\": 'src',}}\n</tool_call>\n<tool_call>\n{\"name\": \"run\", \"arguments\": {\"cmd\": \"pwd\"}}\n</tool_call>";
    let out = outcome(raw, true, StopReason::Stop);
    let args: Vec<_> = out.released.iter().map(|(_, a)| a.clone()).collect();
    assert_eq!(
        args,
        [
            serde_json::json!({"cmd": "ls", "cwd": "src"}),
            serde_json::json!({"cmd": "pwd"})
        ]
    );
}

#[test]
fn an_unquoted_value_with_blanks_is_released_with_its_name() {
    let raw = r#"<tool_call>{"name": "run", "arguments": {"cmd": ls -la}}</tool_call>"#;
    let out = outcome(raw, true, StopReason::Stop);
    assert_eq!(out.released.len(), 1, "{out:?}");
    assert_eq!(out.released[0].0, "run");
    assert_eq!(out.released[0].1, serde_json::json!({"cmd": "ls -la"}));
}

#[test]
fn a_placeholder_for_arguments_is_invalid_not_truncated() {
    let raw = r#"<tool_call>{"name": "run", "arguments": {...}}</tool_call>"#;
    let out = outcome(raw, true, StopReason::Stop);
    assert!(out.released.is_empty(), "{out:?}");
    assert_eq!(
        out.held,
        [(Some("run".to_owned()), NotReleasedReason::Invalid)]
    );
}

/// `content` of the one `write_file` call released, or `None` when it was held back;
/// never other content.
fn written_or_held(raw: &str) -> Option<String> {
    let out = outcome(raw, true, StopReason::Stop);
    assert!(out.text.trim().is_empty(), "text shown: {:?}", out.text);
    assert_eq!(out.released.len() + out.held.len(), 1, "{out:?}");
    out.released
        .first()
        .map(|(_, args)| args["content"].as_str().unwrap().to_owned())
}

#[test]
fn a_string_closed_early_without_a_competing_reading_is_not_released_unfit() {
    // Newlines escaped, quotes raw: the quote before `endpoint` was read as the end of
    // `content` with no other reading, and the rest as members the tool does not have.
    let toml = "[package]\nname = \"status-board\"\nid=\"config\">\n  {\n    \"endpoint\": \"/api/v1/runs\",\n    \"headers\": {\"Content-Type\": \"application/json\", \"Accept\": \"application/json\"},\n    \"services\": [\"api\", \"worker\", \"web\"],\n    \"retuild, push the image, roll the deployment, wait for it.\n# U";
    let raw = call(&toml.replace('\n', "\\n"));
    if let Some(content) = written_or_held(&raw) {
        assert_eq!(content, toml);
    }
}

#[test]
fn a_call_held_back_shows_no_byte_of_its_body() {
    // Nothing escaped; the readings cannot tell where `content` ends.
    let toml = "[pgakead\", \"macros\", \"net\"] }\nrustls = { versi file.'status-board = \"[0-9.]+rsion}}\"' },\n]\n\n[profile.relea\u{2000}\nlto = \"thin\"\nstrip = true\n\n[lints.rust]\nunsafe_code = agent'd\"\n";
    if let Some(content) = written_or_held(&call(toml)) {
        assert_eq!(content, toml);
    }
    // Held, it is reported with the tool's name, though the primary reading read the
    // name string on past its end.
    let out = outcome(&call(toml), true, StopReason::Stop);
    for (name, _) in &out.held {
        assert_eq!(name.as_deref(), Some("write_file"));
    }
}

#[test]
fn text_after_a_raw_call_that_its_closer_follows_was_the_body() {
    // Nothing escaped: `"}}` and a newline inside the file look like the call's end;
    // the closer after the rest of the file shows they were not.
    let md = "[lter\\\"\"}}\n```\n\n## Response\n\n```json\n[{\"service\": \"api\", \"ok\": true}]\n```\n\nStrings are JSON strings.\n";
    let raw = call(md);
    if let Some(content) = written_or_held(&raw) {
        assert_eq!(content, md);
    }
    // Text after a call that did end there is text (shown once the stream ends or a
    // closer shows it is not the body's), and the call is released.
    for raw in [
        "<tool_call>{\"name\": \"run\", \"arguments\": {\"cmd\": \"ls\"}}\nDone: listed.",
        "<tool_call>{\"name\": \"run\", \"arguments\": {\"cmd\": \"ls\"}}\nDone: listed.</tool_call>",
    ] {
        let out = outcome(raw, true, StopReason::Stop);
        assert_eq!(out.released.len(), 1, "{out:?}");
        assert_eq!(out.released[0].1, serde_json::json!({"cmd": "ls"}));
        assert_eq!(out.text.trim(), "Done: listed.");
    }
    // Cut by the token limit before a closer told what the text was: the call did not
    // finish; the text is shown.
    let raw = "<tool_call>{\"name\": \"run\", \"arguments\": {\"cmd\": \"ls\"}}\nDone: listed.";
    let out = outcome(raw, true, StopReason::Length);
    assert!(out.released.is_empty(), "{out:?}");
    assert_eq!(
        out.held,
        [(Some("run".to_owned()), NotReleasedReason::Truncated)]
    );
    assert_eq!(out.text.trim(), "Done: listed.");
}

#[test]
fn a_raw_control_byte_and_a_member_the_tool_lacks_is_not_released() {
    // Nothing escaped: the file's first quote ends `content`, and the rest reads as a
    // member `ok` (its raw control byte the only sign of a raw file).
    let json = "Sw Kiter0Z\",\n  \"ok\": \"All geTn-y\u{3}p";
    if let Some(content) = written_or_held(&call(json)) {
        assert_eq!(content, json);
    }
}

#[test]
fn a_raw_string_read_as_members_the_tool_does_not_have_is_not_released() {
    // Nothing escaped: the file's `",\n  "version": "` reads as the end of `content`
    // and a member `version`, which `write_file` does not have.
    let json = ">example/status-board\",\n  \"version\": \"2.3.\u{0}16\u{0}\",\n";
    if let Some(content) = written_or_held(&call(json)) {
        assert_eq!(content, json);
    }
}

#[test]
fn a_string_left_open_before_the_closer_is_invalid_unless_the_output_was_cut() {
    let raw = r#"<tool_call>{"name": "run", "arguments": {"cmd": "ls}</tool_call>"#;
    let out = outcome(raw, true, StopReason::Stop);
    assert_eq!(
        out.held,
        [(Some("run".to_owned()), NotReleasedReason::Invalid)]
    );
    let out = outcome(raw, true, StopReason::Length);
    assert_eq!(
        out.held,
        [(Some("run".to_owned()), NotReleasedReason::Truncated)]
    );
    // Cut inside the value with no closer: truncated, whatever the stop reason says.
    let raw = r#"<tool_call>{"name": "run", "arguments": {"cmd": "ls"#;
    let out = outcome(raw, true, StopReason::Stop);
    assert_eq!(
        out.held,
        [(Some("run".to_owned()), NotReleasedReason::Truncated)]
    );
}

#[test]
fn a_raw_file_read_as_members_then_closed_at_the_end_is_not_released() {
    // Nothing escaped, and no quote in the file taken as content: the first one ends
    // `content`, the rest reads as members `write_file` lacks, closers supplied.
    let json = " live refresh\",\n  \"license\": \"MIT\",\n  \"type\": \"module\",\n  \"exports\": {\n    \".\": {\"import\": \"./dist/index.js\"}\n  },\n  \"scripts\": {\n    \"build\": \"tsc -p tsc]\n}\n";
    if let Some(content) = written_or_held(&call(json)) {
        assert_eq!(content, json);
    }
}

#[test]
fn a_call_held_back_at_the_end_keeps_its_closer_whatever_the_chunking() {
    // Nothing escaped; not released. Its closer was read whether the readings were
    // decided when it came or at the end of the stream (no `missing_closer` either way).
    let json = "{\n  \"generated\": \"2024-06-01T12:00:05Z\",\n  \"board\": {\n    \"title\": \"Deploy status \\u2014 prod\",\n    \"columns\": [\n      {\"key\": \"service\", \"label\": \"Service\", \"width\": 160},\n      {\"key\": \"state\", \"label\": \"State\", \"width\": 80, \"render\": {\"ok\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{7f}\": \"\\u2713\", \"fail\": \"\\u2717\"}},\n   :ss\"}\n    ],\n    \"theme\": {\"fail\": \"#cb0000\", \"ok\":   {\"key\": \"updated\", \u{1}rabel\": \"Updated\",     \"service\": \"api\",\n      \"ok\": true,\n      \"updated\": \"2024-06-01T12:00:00Z\",\n      \"steps\": [\n     [   {\"name\u{1}{\": \"build\", \"ms\": 84211, \"cmd\":\"format\": \"HH:mm:ss\"}\n    ],\n    \"theme\": {\"fail\": \"#cb0000\", \"ok\": \"#2e7d32\", \"font\": \"\\\"Inter\\\", sans-serif\"}\n  },\n  \"runs\": [\n    {\n      \"service\": \"api\",\n 0    \"ok\": true,\n      \"updated\": \"2024-06-01T12:00:00Z\",\n      \"steps\": [\n        {\"name\": \"build\", \"ms\": 84211, \"cmd\": \"cargo build --release\"},\n        {\"name\": \"test\", \"ms\": 120034, \"cmd\": \"cargo test -- --test-threads=2\"},\n        {\"name\": \"push\", \"ms\": 9310, \"cmd\": \"docker push \\\"registry.example.com/team/api:3f2a1c9\\\"\"}\n      ],\n      \"env\": {\"RUST_LOG\": \"info,hyper=warn\",\u{1}{\": \"build\", \"ms\": 84211, \"cmd\":\"format\": \"HH:mm:ss\"}\n    ],\n    \"theme\": {\"fail\": \"#cb0000\", \"ok\": \"#2e7d32\", \"font\": \"\\\"Inter\\\", sans-serif\"}\n  },\n  \"runs\": [\n    {\n      \"service\": \"api\",\n 0    \"ok\": true,\n      \"updated\": \"2024-06-01T12:0\u{2}\u{3}\u{3}\u{3}\u{3}\u{3}\u{3}{\n  \"generated\": \"2024-06-01T12:00:05>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>\u{6}>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>Z\",\n  \"board\": {\n    \"title\": \"Deploy st0:00Z\",\n      \"steps\": [\n        {\"name\": \"build\", \"ms\": 84211, \"cmd\": \"cargo build --release\"},\n        {\"name\": atus \\u2014 prod\",\n    \"columns\": [\n      {\"key\": \"service\", \"label\": \"Service\", \"width\": 160},\n      {\"key\": \"state\", \"label\":\"\"State\", \"width\": 80, \"render\": {\"ok\": \"\\u2713\", _fail\": \"\\u2717\"}},\n      {\"key\": \"updatjed\", \u{1}rabel\": \"Updated\", \"fo\u{1}\u{0}\u{0}\u{10}rmat\": \"HH:mm:ss\"}\n    ],\n    \"theme\": \"test\", \"ms\": 120034{\"fail\": \"#, cb16\"cm";
    assert!(written_or_held(&call(json)).is_none());
}

#[test]
fn a_raw_file_whose_rest_was_read_as_call_members_is_not_released() {
    // Nothing escaped: `content` ends at the file's `"`, `}` closes the arguments, and
    // the rest of the file reads as members of the call object (dropped).
    let js = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@/index.d.ts\"\n    },\n    \"./styl./styles \u{3}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}[p4.2\"\ne\"";
    if let Some(content) = written_or_held(&call(js)) {
        assert_eq!(content, js);
    }
}

#[test]
fn calls_without_closers_each_followed_by_text_are_released_in_order() {
    let one = "<tool_call>{\"name\": \"run\", \"arguments\": {\"cmd\": \"ls\"}}\nListed.\n";
    let raw = one.repeat(3);
    let out = outcome(&raw, true, StopReason::Stop);
    assert_eq!(out.released.len(), 3, "{out:?}");
    assert_eq!(out.text.matches("Listed.").count(), 3, "{out:?}");
    assert!(!out.text.contains("tool_call"), "{out:?}");
}

#[test]
fn a_closing_tag_of_the_file_after_what_looked_like_the_end_is_not_the_closer() {
    // The file's `"}\n  }\n  </script>` reads as the end of the arguments, the end of
    // the call object, and a misspelled closer; the real closer after the rest of the
    // file shows the body went on.
    let html = "on && cp src/style.css-write \\\"**/*.{ts,css,je log\"}\n  }\n  </script>\n  <script>\n    const config = Jter;\n  padding: 0.75rem 1rem;\n  border-rent);\n}ig\").textContent);\n    const body = doc\n\n#runs { widt/$SERVICE\" \"$SERVICE=$imagee q::before { content: open-quote; }\u{b}\n.badge {\n  backgrument.querySeleound-image: url(\"dactor(\"#runtsa:";
    if let Some(content) = written_or_held(&call(html)) {
        assert_eq!(content, html);
    }
    // A misspelled closer after a call that did end there is still its closer.
    let raw =
        "<tool_call>{\"name\": \"run\", \"arguments\": {\"cmd\": \"ls\"}}</tool_action>\nDone.";
    let out = outcome(raw, true, StopReason::Stop);
    assert_eq!(out.released.len(), 1, "{out:?}");
    assert_eq!(out.text.trim(), "Done.");
}

#[test]
fn structure_invented_around_a_raw_file_that_does_not_fit_the_tool_is_not_released() {
    // Newlines escaped, quotes raw: the file's first quote ends `content`, and the rest
    // reads as unquoted keys and values `write_file` does not have.
    let toml =
        "{\n  atus \\u2014 prod  taous\\n = \"/0.4\u{0}\\\"\nedition = \"220u2014 pr\",tl h 1e\"";
    if let Some(content) = written_or_held(&call(&toml.replace('\n', "\\n"))) {
        assert_eq!(content, toml);
    }
}

#[test]
fn a_raw_file_whose_rest_was_read_as_keyless_arguments_is_not_released() {
    // Nothing escaped: `content` ends at the file's `"`, and the rest reads as a second
    // arguments object without its key.
    let toml = "/gition}}\" },\n  { file = \"\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0} d\", sear]\nlto= diborf\"\"\n";
    if let Some(content) = written_or_held(&call(toml)) {
        assert_eq!(content, toml);
    }
}

#[test]
fn text_before_the_closer_decided_at_the_end_of_the_stream_is_not_shown() {
    // Newlines escaped, quotes raw: the body seemed to end at the file's `"}}`, with a
    // quote still undecided when the stream ended; the text up to the closer was the
    // body's.
    let json = "{\n  \"generated\": \"2024-06-4 \n  \"board\"/:2024-06-4 \n  \"boardrd\"/:2024-06-4 \n  \"b\u{3}[packag{\n    \u{7f}\u{6}\u{8}\u{e}\"title\": \"Depapplicationoard\": {\n    \"titld the sum014 prod\",htm {\n\"}}</tool_cale\": \"Depapplic sum125 pro0?,html>\n\n  <ht m l! la\"";
    if let Some(content) = written_or_held(&call(&json.replace('\n', "\\n"))) {
        assert_eq!(content, json);
    }
}

/// A string written with its quotes raw, as the last argument of a call in every form
/// that carries JSON arguments, each way of writing strings, then the form's own
/// closing markup (DeepSeek's closing fence, then its closer, or nothing): the call is
/// released exactly as meant or not at all, no closer is named missing, and nothing of
/// the call is shown, however the output is cut. The files: a manifest whose quotes
/// read as the string's end (`"a = "b"\n"`), and Rust whose raw quotes make a reading
/// invent keys (`create_dir("/some/dir")`) and end the object at a `}` in the file,
/// before the file's own last `"}`: not released, and with no closer the text after the
/// object up to the end of the stream, ending in `}`, was the object's.
#[test]
fn a_raw_string_then_the_forms_closing_markup_shows_nothing_of_the_call() {
    let files = [
        r#"{"path": "Cargo.toml", "content": "[package]\nname = \"x\"\nversion = \"0.1\"\n"}"#,
        r#"{"path": "a.rs", "content": "use std::io;\nuse std::path::Path;\n\n/// Creates a new, empty directory at the provided path.\n///\n/// This is an async version of [`std::fs::create_dir`].\n///\n/// # Platform-specific behavior\n///\n/// This function currently corresponds to the `mkdir` function on Unix\n/// and the `CreateDirectory` function on Windows.\n/// Note that, this [may change in the future][changes].\n///\n/// [changes]: https://doc.rust-lang.org/std/io/index.html#platform-specific-behavior\n///\n/// # Errors\n///\n/// This function will return an error in the following situations, but is not\n/// limited to just these cases:\n///\n/// * User lacks permissions to create directory at `path`.\n/// * A parent of the given path doesn't exist.\n/// * `path` already exists.\n///\n/// # Examples\n///\n/// ```no_run\n/// use tokio::fs;\n///\n/// #[tokio::main]\n/// async fn main() -> io::Result<()> {\n///     fs::create_dir(\"/some/dir\").await?;\n///     Ok(())\n/// }\n/// ```\npub async fn create_dir(path: impl AsRef<Path>) -> io::Result<()> {\n    let path = path.as_ref().to_owned();\n    asyncify(move || std::fs::create_dir(path)).await\n}\n"}"#,
    ];
    let files = files.map(|f| serde_json::from_str::<serde_json::Value>(f).unwrap());
    let files = files.map(|f| {
        let (path, content) = (&f["path"], &f["content"]);
        (
            path.as_str().unwrap().to_owned(),
            content.as_str().unwrap().to_owned(),
        )
    });
    let wrong = json_forms_release_as_meant_or_hold(|_| files.to_vec());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A document about an API written raw as a file, whose examples sit in the form's own
/// markup around objects that are no call (`{"error": ...}`, `[{"service": ...}]`), as
/// a file about a fenced-JSON API does in `fenced_json`: the markup was the file's. An
/// opener followed by no call object does not bound the call, so the text after it is
/// never shown as text, and the call is released exactly as meant or not at all.
/// (`own/API.md` of the real-file check: released cut at the first example's closing
/// fence in `fenced_json`, nothing escaped, and the rest shown as text.)
#[test]
fn the_forms_own_markup_around_an_example_in_a_raw_file_is_the_files() {
    let wrong = json_forms_release_as_meant_or_hold(|form| {
        let Some((head, tail)) = markup_around_a_call(form) else {
            return Vec::new();
        };
        let content = format!(
            "# Runs API\n\nSend `{{\"services\": [\"api\"]}}`. An unknown field is an error:\n\n\
             {head}{{\"error\": {{\"code\": 400, \"message\": \"unknown field: sinse\"}}}}{tail}\n\n\
             ## Response\n\n{head}[\n  {{\"service\": \"api\", \"ok\": true}}\n]{tail}\n\n\
             Every field is a string or a boolean.\n"
        );
        vec![("API.md".to_owned(), content)]
    });
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The markup `form` writes before and after a call's object (or its name), from a
/// small call it renders: `("```json\n", "\n```")`.
fn markup_around_a_call(form: toolsift::render::Form) -> Option<(String, String)> {
    use toolsift::render::{Call, Style, Turn};
    let turn = Turn::new().call(Call::new("write_file", r#"{"path": "a", "content": "b"}"#));
    let rendered = form
        .dialect()
        .render_with(&turn, &Style::new().form(form.name()))
        .ok()?;
    let out = rendered.output;
    let name = out.find("write_file")?;
    let start = out[..name]
        .rfind('{')
        .filter(|&at| out[at..name].starts_with("{\""))
        .map_or(name, |at| out[..at].trim_end_matches('[').len());
    let end = out.rfind(['}', ']', ')'])? + 1;
    Some((out[..start].to_owned(), out[end..].to_owned()))
}

/// In every form that carries JSON arguments and each way of writing strings, a
/// `write_file` call of each of `files(form)` (path and content), its keys in each
/// order: the wrong releases (other arguments than meant, or a closer named missing)
/// and the text shown that the rendering did not hold, however the output is cut.
fn json_forms_release_as_meant_or_hold(
    files: impl Fn(toolsift::render::Form) -> Vec<(String, String)>,
) -> Vec<String> {
    use toolsift::render::{Arguments, Call, Strings, Style, Turn};
    use toolsift::Repair;
    let mut wrong = Vec::new();
    for form in Dialect::ALL.iter().flat_map(|d| d.forms()) {
        if form.arguments() != Arguments::Json {
            continue;
        }
        let args = files(form)
            .iter()
            .flat_map(|(path, content)| support::in_each_order(path, content))
            .collect::<Vec<_>>();
        for (strings, args) in Strings::ALL
            .into_iter()
            .flat_map(|s| args.iter().map(move |a| (s, a)))
        {
            let meant: serde_json::Value = serde_json::from_str(args).unwrap();
            let turn = Turn::new().call(Call::new("write_file", args));
            let style = Style::new().form(form.name()).strings(strings);
            let Ok(rendered) = form.dialect().render_with(&turn, &style) else {
                continue;
            };
            let mut config = Config::new(form.dialect());
            config.tools = write_file_tools();
            let raw = rendered.output.as_bytes();
            let shown = support::shown_however_cut(&config, raw);
            let events = support::run_cuts(&config, raw, &[], StopReason::Stop);
            for event in &events {
                if let OwnedEvent::CallFinished {
                    arguments, repairs, ..
                } = event
                {
                    let got: serde_json::Value = serde_json::from_str(arguments).unwrap();
                    if got != meant || repairs.contains(Repair::MissingCloser) {
                        wrong.push(format!(
                            "{} {} {}: released {arguments} {repairs:?}",
                            form.name(),
                            strings.name(),
                            meant["path"]
                        ));
                    }
                }
            }
            if shown.text.trim() != rendered.text.trim() {
                wrong.push(format!(
                    "{} {} {}: shown {:?}",
                    form.name(),
                    strings.name(),
                    meant["path"],
                    shown.text
                ));
            }
        }
    }
    wrong
}
