//! Values holding the dialect's own markup (issue 35, "XML-bodied values holding the
//! dialect's own markup"): a coding agent writing a file about tool calls writes
//! `</parameter>`, `</function>`, `</tool_call>` (or its dialect's equivalents) raw
//! inside a value. The whole call tells where the value ends: the call is released
//! exactly as meant, or not released, and no byte of it is ever shown as text.
//!
//! Every class runs in every dialect whose first form writes values raw, enumerated
//! from `Dialect::ALL` by `Form::arguments`, whole, byte at a time and in random chunks.

mod support;

use support::{in_each_order, merge, random_cuts, run_cuts, shown, write_file_tools, Outcome};
use toolsift::render::{Arguments, Call, Form, Style, Turn};
use toolsift::{Config, Dialect, OwnedEvent, StopReason};

const PREAMBLE: &str = "I'll write the file.";

/// A file about tool calls, long enough to hold markup at several places.
const FILE: &str =
    "# Tool calls\n\nThe model writes its call in tags.\nEach parameter is one element.\n\
                    The parser reads them as they stream.\nA value may hold anything.\n\
                    Even the closing tags themselves.\nThat is what this file shows.\n";

/// The first form of every dialect that writes string values raw (tags, delimiters,
/// elements), in `Dialect::ALL` order.
fn raw_value_forms() -> Vec<Form> {
    Dialect::ALL
        .iter()
        .map(|d| d.forms()[0])
        .filter(|f| !matches!(f.arguments(), Arguments::Json | Arguments::Python))
        .collect()
}

/// Render `write_file` with the form's closing markup inserted in `content` at `at`,
/// run it under several chunkings (which must agree), and classify.
fn outcome(form: Form, at: &[usize]) -> Outcome {
    outcome_of(form, FILE, at)
}

/// [`outcome`] of a file with `content`, its call's keys in each order: the worst.
fn outcome_of(form: Form, content: &str, at: &[usize]) -> Outcome {
    let outcomes =
        in_each_order("notes.md", content).map(|args| match outcome_of_call(form, &args, at) {
            Outcome::Wrong(why) => Outcome::Wrong(format!("{args:.40}...: {why}")),
            other => other,
        });
    let [a, b] = outcomes;
    match (a, b) {
        (w @ Outcome::Wrong(_), _) | (_, w @ Outcome::Wrong(_)) => w,
        (Outcome::Held, _) | (_, Outcome::Held) => Outcome::Held,
        _ => Outcome::Exact,
    }
}

/// [`outcome`] of a call with the arguments `args`.
fn outcome_of_call(form: Form, args: &str, at: &[usize]) -> Outcome {
    let mut turn = Turn::new().call(Call::new("write_file", args));
    if form.text_before() {
        turn = turn.text(PREAMBLE);
    }
    let style = Style::new().form(form.name()).markup("content", at);
    let rendered = form.dialect().render_with(&turn, &style).unwrap();
    let raw = rendered.output.as_bytes();
    let config = Config::new(form.dialect()).tools(write_file_tools());
    let whole = merge(&run_cuts(&config, raw, &[], StopReason::Stop));
    let bytes: Vec<usize> = (1..raw.len()).collect();
    for cuts in [bytes, random_cuts(raw.len(), 7, 9)] {
        let events = merge(&run_cuts(&config, raw, &cuts, StopReason::Stop));
        assert_eq!(
            events,
            whole,
            "{}: the result depends on the chunking",
            form.name()
        );
    }
    shown(&whole).outcome(&rendered.arguments[0], &rendered.text)
}

/// Note in `wrong` (after the form, `what`) a file with `content` in `form` that is not
/// released exact or held.
fn exact_or_held(form: Form, content: &str, what: &str, wrong: &mut Vec<String>) {
    match outcome_of(form, content, &[]) {
        Outcome::Exact | Outcome::Held => {}
        other => wrong.push(format!(
            "{} ({}){what}: {other:?}",
            form.dialect(),
            form.name()
        )),
    }
}

/// Each call released with other arguments than meant, when `write_file` with `content`
/// is written in `form`, its keys in each order (none when the form cannot write it).
fn released_not_as_meant(form: Form, content: &str) -> Vec<String> {
    in_each_order("notes.md", content)
        .iter()
        .flat_map(|args| call_released_not_as_meant(form, args))
        .collect()
}

/// [`released_not_as_meant`] of a call with the arguments `args`.
fn call_released_not_as_meant(form: Form, args: &str) -> Vec<String> {
    let turn = Turn::new().call(Call::new("write_file", args));
    let Ok(rendered) = form
        .dialect()
        .render_with(&turn, &Style::new().form(form.name()))
    else {
        return Vec::new();
    };
    let config = Config::new(form.dialect()).tools(write_file_tools());
    let raw = rendered.output.as_bytes();
    let events = merge(&run_cuts(&config, raw, &[], StopReason::Stop));
    let meant: serde_json::Value = serde_json::from_str(&rendered.arguments[0]).unwrap();
    let mut wrong = Vec::new();
    for event in &events {
        if let OwnedEvent::CallFinished { arguments, .. } = event {
            let got: serde_json::Value = serde_json::from_str(arguments).unwrap();
            if got != meant {
                let (dialect, name, output) = (form.dialect(), form.name(), &rendered.output);
                wrong.push(format!(
                    "{dialect} ({name}): {output:?} released {arguments}"
                ));
            }
        }
    }
    wrong
}

/// A `write_file` call with the arguments `args` (JSON text, its keys in the order
/// written) as `form` writes it.
fn written_call(form: Form, args: &str) -> String {
    form.dialect()
        .render_with(
            &Turn::new().call(Call::new("write_file", args)),
            &Style::new().form(form.name()),
        )
        .unwrap()
        .output
}

/// A small `write_file` call as `form` writes it.
fn small_call(form: Form) -> String {
    written_call(form, r#"{"path": "a", "content": "b"}"#)
}

/// Each of `forms` with `write_file`'s arguments `path` and `content`, in each order of
/// their keys ([`in_each_order`]).
fn in_each_order_for(forms: Vec<Form>, path: &str, content: &str) -> Vec<(Form, String)> {
    let orders = in_each_order(path, content);
    forms
        .into_iter()
        .flat_map(|f| orders.clone().map(|args| (f, args)))
        .collect()
}

/// Each of `forms` with two `write_file` calls' arguments (`first`, `second`: a path
/// and a content each), both in one order of their keys, in each order.
fn two_in_each_order_for(
    forms: Vec<Form>,
    first: (&str, &str),
    second: (&str, &str),
) -> Vec<(Form, String, String)> {
    let [a1, a2] = in_each_order(first.0, first.1);
    let [b1, b2] = in_each_order(second.0, second.1);
    forms
        .into_iter()
        .flat_map(|f| [(f, a1.clone(), b1.clone()), (f, a2.clone(), b2.clone())])
        .collect()
}

/// Places in `FILE` (line starts and inside words), one per piece of closing markup.
fn places(n: usize) -> Vec<usize> {
    [20, 66, 101, 150, 190, 230]
        .into_iter()
        .take(n)
        .filter(|&p| p < FILE.len())
        .collect()
}

/// Dialects of tags whose calls end at a section token (`</minimax:tool_call>`) that
/// is not the call's own closer: text after a function's closer there is bounded by
/// the next call or the end of the stream, and a section token inside a value is
/// content, so the classes of a call's closer inside a value do not apply (every other
/// class runs in them too, [`tagged`]).
const SECTION_CLOSED: &[&str] = &[
    "minimax_m2",
    "deepseek_v32",
    "hunyuan3",
    "muse_glimmer",
    "dots",
    "deepseek_v41",
    "gigachat35",
    // The form's last closing markup is the section's (`</ifm|tool_calls>`) or the
    // message's (`<|end|>` of a channel), not the call's closer alone.
    "k2_horizon",
    "beam",
];

/// Forms whose values are read by tags and whose calls end at a closer of their own:
/// their closing markup is a value's closer, the function's and the call's.
fn tagged_with_closer() -> Vec<Form> {
    raw_value_forms()
        .into_iter()
        .filter(|f| matches!(f.arguments(), Arguments::Params { .. }))
        .filter(|f| f.closing_markup().len() >= 3)
        .filter(|f| !SECTION_CLOSED.contains(&f.dialect().name()))
        .collect()
}

fn is_tagged_with_closer(form: Form) -> bool {
    tagged_with_closer()
        .iter()
        .any(|f| f.dialect() == form.dialect())
}

/// Qwen3-Coder, `own/paths.py` of the real-file check: the value holds `</parameter>`,
/// later `</function>`, later `</tool_call>`, then more of the file, then the real
/// closers. The call ended at the inserted `</tool_call>` and was refused, and the rest
/// of the file (markup included) was shown as text. The real closers further on tell
/// that the markup was the value's: released exact.
/// Gemma 4 and FunctionGemma (delimited strings): the call, refused at the inserted
/// closer, showed the rest of the file; then it was held, the delimiter inside the
/// value closing it; released exact now, what follows each delimiter read in Gemma's
/// syntax ([`a_delimiter_inside_a_value_then_what_cannot_follow_a_value_is_content`]).
/// (MiniMax M3's elements are not covered yet: its
/// namespace marker inside a value is dropped, as a special token anywhere in its
/// body is.)
#[test]
fn a_value_holding_every_closer_of_its_call_is_read_to_the_real_closers() {
    let mut wrong = Vec::new();
    let forms = raw_value_forms()
        .into_iter()
        .filter(|f| !matches!(f.arguments(), Arguments::Elements));
    for form in forms {
        let n = form.closing_markup().len();
        let got = outcome(form, &places(n));
        let want_exact = is_tagged_with_closer(form) || form.arguments() == Arguments::Delimited;
        match got {
            Outcome::Exact => {}
            Outcome::Held if !want_exact => {}
            other => wrong.push(format!("{} ({}): {other:?}", form.dialect(), form.name())),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A dialect's own string delimiter inside a value (Gemma's `<|"|>`, FunctionGemma's
/// `<escape>`), followed by what cannot follow a value in that syntax: a letter (in a
/// word), a comment (the syntax has none), a blank then a word. Every delimiter
/// closed the string, and the call was held: the delimiter is content (what follows
/// it is read in the dialect's syntax), and the call is released exact, with the
/// call's own closer inside the value too. Every form whose strings are delimited, in
/// every dialect.
#[test]
fn a_delimiter_inside_a_value_then_what_cannot_follow_a_value_is_content() {
    const SOURCE: &str = "fn main() {\n    let word = split(\"package\");\n    // the end\n    \
                          word\n}\n";
    let at = |s: &str, k: usize| SOURCE.find(s).unwrap() + k;
    // Taken in turn: a delimiter, the call's closer, a delimiter, ... (each form's
    // closing markup begins with its delimiter).
    let places = [
        at("main", 2),
        at("split", 2),
        at("// the", 0),
        at("package", 3),
        at("word\n}", 0),
    ];
    let forms: Vec<Form> = Dialect::ALL
        .iter()
        .flat_map(|d| d.forms())
        .filter(|f| f.arguments() == Arguments::Delimited)
        .collect();
    assert!(
        forms.len() >= 2,
        "Gemma 4 and FunctionGemma delimit strings"
    );
    let mut wrong = Vec::new();
    for form in forms {
        assert!(form.closing_markup().len() >= 2, "{}", form.name());
        match outcome_of(form, SOURCE, &places) {
            Outcome::Exact => {}
            other => wrong.push(format!("{} ({}): {other:?}", form.dialect(), form.name())),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The call's closer alone inside a value, text after it, then the real closers
/// (`content` = `...</tool_call>\nend...`): released cut at the closer, the rest of the
/// file shown. Released exact now in every dialect of tags with a closer; in the
/// others, where a section token is no bound, exact or held.
#[test]
fn the_calls_closer_inside_a_value_is_content_when_the_real_closers_follow() {
    let mut wrong = Vec::new();
    for form in tagged() {
        let last = form.closing_markup().len() - 1;
        // Every place but the last gets the earlier markup at the file's end, so the
        // call's closer (the last piece) lands in the middle of the file.
        let mut at = vec![FILE.len(); last];
        at.push(101);
        at.sort_unstable();
        let got = outcome(form, &at);
        if got != Outcome::Exact && !matches!(got, Outcome::Held) {
            wrong.push(format!("{} ({}): {got:?}", form.dialect(), form.name()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A value's closer and the function's, side by side inside the value, then more of
/// the file and the real closers (`criterion/with_inputs.rs`: `use criterion::{` +
/// `</parameter></function>` + `criterion_group, ...`): the call was released cut
/// there and the rest of the file shown. The text after the function's closer holds
/// the body's own markup before the call's closer: the body went on, so the call is
/// not released and nothing of it is shown.
#[test]
fn text_after_a_functions_closer_holding_the_bodys_markup_was_the_body() {
    let mut wrong = Vec::new();
    for form in tagged() {
        if form.closing_markup().len() < 3 {
            continue;
        }
        // The value's and the function's closers at one place; the call's at the end.
        let at = [40, 40, FILE.len()];
        match outcome(form, &at) {
            Outcome::Exact | Outcome::Held => {}
            other => wrong.push(format!("{} ({}): {other:?}", form.dialect(), form.name())),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every form whose values are read by tags: with a closer of the call's own, or ended
/// by the function's closing tag or a section token (no closer).
fn tagged() -> Vec<Form> {
    raw_value_forms()
        .into_iter()
        .filter(|f| matches!(f.arguments(), Arguments::Params { .. }))
        .collect()
}

/// The body's closing markup but its last piece (a value's closer and the function's,
/// `</parameter></invoke>`) side by side inside a value, then more of the file, then
/// the real closers, in every form of tags: those with no closer of the call's own
/// included (MiniMax M2's `</invoke>` ends a call and `</minimax:tool_call>` a section:
/// `clap/examples/git.md` of the real-file check was released cut there, and the rest
/// of the file shown as text). The text after the function's closer, up to the next
/// call or the end of the stream, holds the body's markup: the body went on, so the
/// call is released exact or not at all, and nothing of it is shown.
#[test]
fn a_functions_closing_tags_inside_a_value_are_never_where_the_call_ends() {
    let mut wrong = Vec::new();
    for form in tagged() {
        let n = form.closing_markup().len();
        for place in [40, 101] {
            // Every piece but the last at one place, the last at the file's end.
            let mut at = vec![place; n.saturating_sub(1).max(1)];
            if n > 1 {
                at.push(FILE.len());
            }
            match outcome(form, &at) {
                Outcome::Exact | Outcome::Held => {}
                other => wrong.push(format!(
                    "{} ({}) at {place}: {other:?}",
                    form.dialect(),
                    form.name()
                )),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The same value (a function's closing tags inside it, then more of the file), the
/// stream cut by the token limit further on in the file: the function's closer may
/// have been the file's, and the call's end never came. Not released (truncated) in
/// every form of tags, however cut; a form with no closer of its own ended the call at
/// the closing tags and released it cut, since no closer could tell.
#[test]
fn a_functions_closing_tags_inside_a_value_then_the_token_limit_is_not_a_release() {
    let mut wrong = Vec::new();
    for (form, args) in in_each_order_for(tagged(), "notes.md", FILE) {
        let n = form.closing_markup().len();
        let at = vec![40; n.saturating_sub(1).max(1)];
        let turn = Turn::new().call(Call::new("write_file", &args));
        let style = Style::new().form(form.name()).markup("content", &at);
        let output = form.dialect().render_with(&turn, &style).unwrap().output;
        // Cut inside the file, well past the markup.
        let Some(cut) = output.find("as they stream") else {
            continue;
        };
        let raw = &output.as_bytes()[..cut];
        let config = Config::new(form.dialect()).tools(write_file_tools());
        match support::check_all_chunkings(&config, raw, StopReason::Length) {
            Ok(events) if shown(&events).released.is_empty() => {}
            Ok(events) => wrong.push(format!(
                "{} ({}): {:?} released {:?}",
                form.dialect(),
                form.name(),
                String::from_utf8_lossy(raw),
                shown(&events).released
            )),
            Err(e) => wrong.push(format!("{} ({}): {e}", form.dialect(), form.name())),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The call's closer alone at the end of the value, then the stream ends: the model
/// dropped its value's and function's closers. The call ends at its closer (released,
/// `missing_closer`), as before the closer could be content.
#[test]
fn a_calls_closer_with_only_text_after_it_ends_the_call() {
    for (form, args) in in_each_order_for(tagged_with_closer(), "a.txt", "line") {
        let closer = *form.closing_markup().last().unwrap();
        let turn = Turn::new().call(Call::new("write_file", &args));
        let rendered = form.dialect().render(&turn).unwrap();
        let out = &rendered.output;
        // Cut the output after the value, and write the call's closer and text there.
        let Some(cut) = out.find("line") else {
            continue;
        };
        let raw = format!("{}line{closer}\nDone.", &out[..cut]);
        let config = Config::new(form.dialect()).tools(write_file_tools());
        let whole = merge(&run_cuts(&config, raw.as_bytes(), &[], StopReason::Stop));
        let bytes: Vec<usize> = (1..raw.len()).collect();
        let split = merge(&run_cuts(&config, raw.as_bytes(), &bytes, StopReason::Stop));
        assert_eq!(whole, split, "{}: chunking", form.name());
        let released: Vec<&str> = whole
            .iter()
            .filter_map(|e| match e {
                OwnedEvent::CallFinished { arguments, .. } => Some(arguments.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(released.len(), 1, "{}: {raw:?} gave {whole:?}", form.name());
        let args: serde_json::Value = serde_json::from_str(released[0]).unwrap();
        assert_eq!(args["content"], "line", "{}: {raw:?}", form.name());
        let text: String = whole
            .iter()
            .filter_map(|e| match e {
                OwnedEvent::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert!(text.ends_with("Done."), "{}: text {text:?}", form.name());
    }
}

/// Every dialect of tags with a closer is covered (the list is the code's own).
#[test]
fn the_tagged_dialects_are_enumerated() {
    let names: Vec<&str> = tagged_with_closer()
        .iter()
        .map(|f| f.dialect().name())
        .collect();
    assert!(names.contains(&"qwen3_coder"), "{names:?}");
    assert!(names.len() >= 3, "{names:?}");
    for name in SECTION_CLOSED {
        assert!(
            Dialect::ALL.iter().any(|d| d.name() == *name),
            "{name}: no such dialect"
        );
    }
}

/// The call's closer inside a value (its value's and function's closers dropped), then
/// the next call: the first call ended at its closer (released, `missing_closer`), and
/// the next is read as a call, not as the first one's value.
#[test]
fn a_calls_closer_then_the_next_call_ends_the_first() {
    let calls = two_in_each_order_for(tagged_with_closer(), ("a.txt", "line"), ("b.txt", "more"));
    for (form, first, second) in calls {
        let closer = *form.closing_markup().last().unwrap();
        let out = form
            .dialect()
            .render(&Turn::new().call(Call::new("write_file", &first)))
            .unwrap()
            .output;
        let next = form
            .dialect()
            .render(&Turn::new().call(Call::new("write_file", &second)))
            .unwrap()
            .output;
        let Some(cut) = out.find("line") else {
            continue;
        };
        let raw = format!("{}line{closer}\n{next}", &out[..cut]);
        let config = Config::new(form.dialect()).tools(write_file_tools());
        let whole = merge(&run_cuts(&config, raw.as_bytes(), &[], StopReason::Stop));
        let bytes: Vec<usize> = (1..raw.len()).collect();
        let split = merge(&run_cuts(&config, raw.as_bytes(), &bytes, StopReason::Stop));
        assert_eq!(whole, split, "{}: chunking", form.name());
        let released: Vec<serde_json::Value> = whole
            .iter()
            .filter_map(|e| match e {
                OwnedEvent::CallFinished { arguments, .. } => {
                    Some(serde_json::from_str(arguments).unwrap())
                }
                _ => None,
            })
            .collect();
        assert_eq!(released.len(), 2, "{}: {raw:?} gave {whole:?}", form.name());
        assert_eq!(released[0]["content"], "line", "{}: {raw:?}", form.name());
        assert_eq!(released[1]["content"], "more", "{}: {raw:?}", form.name());
    }
}

/// The call's closer inside a value, then text holding another dialect's opener
/// (`</seed:tool_call>` ... `<tool_call>`: found by the readings fuzz target in
/// Seed-OSS, which took Qwen3-Coder's opener for its own and released the call cut at
/// the closer). Only the form's own opener is a next call: every marker of every other
/// dialect is content here, and the call is read to its real closers.
#[test]
fn a_calls_closer_inside_a_value_then_another_dialects_opener_is_content() {
    let mut wrong = Vec::new();
    for form in tagged() {
        let closer = *form.closing_markup().last().unwrap();
        // The form's own markup: its dialect's markers and the tags of a call it
        // writes (a whole call of its own after the closer is the next test's).
        let own = form.dialect().markers();
        let written = small_call(form);
        let foreign = Dialect::Auto
            .markers()
            .into_iter()
            .filter(|m| !own.iter().any(|o| m.windows(o.len()).any(|w| w == *o)))
            .filter_map(|m| std::str::from_utf8(m).ok())
            .filter(|m| !written.contains(m));
        for marker in foreign {
            let content = format!(
                "{}{closer}{}{marker}{}",
                &FILE[..101],
                &FILE[101..150],
                &FILE[150..]
            );
            exact_or_held(form, &content, &format!(", {marker:?}"), &mut wrong);
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The call's closer inside a value, then text, then a whole call of the form: a file
/// about tool calls holding an example, or a call whose value's and function's closers
/// were dropped followed by text and the next call. The bytes read the same up to the
/// real closers, so neither is released cut: the file's call is released exact or held,
/// and of the model's two calls only what was meant is released (found by the readings
/// fuzz target in Qwen3-Coder: the first call released cut, the text shown).
#[test]
fn a_calls_closer_inside_a_value_then_text_and_a_call_is_never_released_cut() {
    let mut wrong = Vec::new();
    for (form, first, second) in
        two_in_each_order_for(tagged(), ("a.txt", "line"), ("b.txt", "more"))
    {
        let closer = *form.closing_markup().last().unwrap();
        let example = written_call(form, &second);
        // A file holding the closer, text and a whole call.
        let file = format!(
            "{}{closer}{}{example}{}",
            &FILE[..101],
            &FILE[101..150],
            &FILE[150..]
        );
        exact_or_held(form, &file, " file", &mut wrong);
        // A call cut after its value by its closer, text, then the next call.
        let config = Config::new(form.dialect()).tools(write_file_tools());
        let whole = written_call(form, &first);
        let Some(cut) = whole.find("line") else {
            continue;
        };
        let raw = format!("{}line{closer}\nThen the second.\n{example}", &whole[..cut]);
        let events = merge(&run_cuts(&config, raw.as_bytes(), &[], StopReason::Stop));
        for event in &events {
            if let OwnedEvent::CallFinished { arguments, .. } = event {
                let got: serde_json::Value = serde_json::from_str(arguments).unwrap();
                if !["line", "more"].iter().any(|c| got["content"] == *c) {
                    wrong.push(format!(
                        "{} ({}) calls: released {arguments}",
                        form.dialect(),
                        form.name()
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The value holds its own and its function's closers, later the call's closer, then
/// text, then the start of a call followed by a sentence rather than a call (the
/// rendered call cut before its tool's name, or its first tag alone), then the rest of
/// the file and the real closers. Found by the readings fuzz target in Qwen3-Coder: the
/// text between the inserted closer and the opener was shown, and a nameless call
/// reported at the opener. The same with the opener followed by a JSON object's members
/// (a JSON file's `<tool_call>      "service": "a",`, read as a call whose tool's name is
/// quoted), or by a word and a tag no body holds after its name (`<tool_call>main\n
/// </header>`, read as GLM's tool `main`): the text before the opener was shown, found
/// by ten-minute readings runs. An opener that begins no call is the value's text: the
/// call is released exact or held, and nothing of it is shown.
#[test]
fn an_opener_followed_by_no_call_inside_a_value_is_the_values() {
    let mut wrong = Vec::new();
    for form in tagged() {
        let markup = form.closing_markup();
        let (closer, inner) = markup.split_last().unwrap();
        let inner = inner.concat();
        let written = small_call(form);
        let Some(name) = written.find("write_file") else {
            continue;
        };
        let head = written[..name].trim_start();
        let first_tag = head.find('>').map_or(head, |end| &head[..=end]);
        let members = "      \"service\": \"worker\",\n      \"ok\": false,\n";
        for opener in [head, first_tag] {
            for after in ["`. Send JSON with it.\n", members, "main\n</header>\n"] {
                let content = format!(
                    "{}{inner}{}{closer}{}{opener}{after}{}",
                    &FILE[..40],
                    &FILE[40..101],
                    &FILE[101..150],
                    &FILE[150..]
                );
                let what = format!(", {opener:?} then {after:?}");
                exact_or_held(form, &content, &what, &mut wrong);
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The body's closing tags inside a value, then right where the call's closer belongs
/// an opener of the form followed by no call, then the rest of the file and the real
/// closers. Found by ten-minute readings runs in Qwen3-Coder
/// (`</function><tool_call><<main>`): the opener was read as the next call, the closer
/// taken as dropped, and the call released cut. The same with a section's opener first
/// (Step 3's `<｜tool_calls_begin｜>`), and with a message header that frames no call
/// (Muse Glimmer's `<|start|>` then prose, or its header then an invoke of no name). An
/// opener that begins no call is the value's text there too: released exact or held,
/// nothing of it shown.
#[test]
fn an_opener_of_no_call_where_the_closer_belongs_is_the_values() {
    let mut wrong = Vec::new();
    for form in tagged() {
        let markup = form.closing_markup();
        let inner = markup.split_last().unwrap().1.concat();
        let written = small_call(form);
        let Some(name) = written.find("write_file") else {
            continue;
        };
        let head = written[..name].trim_start();
        let first_tag = head.find('>').map_or(head, |end| &head[..=end]);
        for opener in [head, first_tag] {
            for after in ["`. Send JSON with it.\n", "main\n</header>\n"] {
                let content = format!("{}{inner}{opener}{after}{}", &FILE[..40], &FILE[40..]);
                let what = format!(", {inner:?} {opener:?} then {after:?}");
                exact_or_held(form, &content, &what, &mut wrong);
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The same with the opener followed by a long run of blanks: whether it begins a call
/// is judged from a bounded look-ahead, so pushed a byte at a time the work stays within
/// the bound (`support::check_all_chunkings`) and the wait ends, whatever the cut.
#[test]
fn an_opener_followed_by_a_long_run_of_blanks_is_judged_in_bounded_work() {
    for form in tagged() {
        let markup = form.closing_markup();
        let (closer, inner) = markup.split_last().unwrap();
        let inner = inner.concat();
        let written = small_call(form);
        let Some(name) = written.find("write_file") else {
            continue;
        };
        let head = written[..name].trim_start();
        let opener = head.find('>').map_or(head, |end| &head[..=end]);
        let content = format!(
            "{}{inner}{}{closer}{opener}{}Send it.\n",
            &FILE[..40],
            &FILE[40..101],
            " ".repeat(2000)
        );
        // (The work bound does not depend on the order of the keys.)
        let [args, _] = in_each_order("a", &content);
        let style = Style::new().form(form.name()).markup("content", &[]);
        let raw = form
            .dialect()
            .render_with(&Turn::new().call(Call::new("write_file", &args)), &style)
            .unwrap()
            .output;
        let config = Config::new(form.dialect()).tools(write_file_tools());
        if let Err(e) = support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop) {
            panic!("{} ({}): {e}", form.dialect(), form.name());
        }
    }
}

/// A value holding its form's closing markup back to back, blanks between or not
/// (`</arg_value></tool_call>`, `</parameter>\n</function>\n</tool_call>`, the function's
/// closer dropped, or the call's with the dialect's end-of-turn token further on), then
/// more of the file, at its start or in the middle: up to there
/// the output reads as a whole call (found by the readings fuzz target in GLM and
/// Qwen3-Coder: released cut, or empty, and the rest of the file shown). What follows
/// the call's closer up to its bound holds the closer again: the call is released exact
/// or not at all, and none of it is shown.
#[test]
fn a_value_holding_its_closing_markup_back_to_back_is_never_released_cut() {
    let mut wrong = Vec::new();
    for form in tagged() {
        let markup = form.closing_markup();
        let closer = *markup.last().unwrap();
        // Every run of the markup that ends with the call's closer, and the value's
        // closer then the call's (the function's dropped).
        let mut runs: Vec<Vec<&str>> = (0..markup.len() - 1)
            .map(|i| markup[i..].to_vec())
            .collect();
        runs.push(vec![markup[0], closer]);
        // And the body's markup without the closer, the file then holding the dialect's
        // end-of-turn token (`</parameter></function>` ... `<|im_end|>`: found by
        // `.ci/run`'s readings run in Qwen3-Coder).
        let eot = form.end_of_turn().unwrap_or("");
        runs.extend((0..markup.len() - 1).map(|i| markup[i..markup.len() - 1].to_vec()));
        for run in &runs {
            for gap in ["", "\n", " "] {
                let written = run.join(gap);
                for content in [
                    format!("{written}\nthe rest of the file\n"),
                    format!("{}{written}-00T1 is it\n{}", &FILE[..66], &FILE[66..]),
                    format!(
                        "{}{written}{{\"key\": 1}} an e{eot}rror\n{}",
                        &FILE[..66],
                        &FILE[66..]
                    ),
                ] {
                    exact_or_held(form, &content, &format!(", {written:?}"), &mut wrong);
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A value holding a parameter's closing tag and then a broken opener of another
/// (`</parameter><parameter=i.log"},` with no `>`: found by the readings fuzz target in
/// Seed-OSS). Read as a new parameter, its key is no declared one; the call is released
/// exactly as meant or not at all, in every form that writes values raw, whatever its
/// own tags are.
#[test]
fn a_broken_parameter_opener_inside_a_value_is_never_released_as_a_key() {
    let contents = [
        "abc\\\\ap</parameter><parameter=i.log\"},\nmore text\n",
        "x</parameter>\n<parameter=a b\nmore\n",
        "x</arg_value><arg_key>k\"}\nmore\n",
        "x</parameter><parameter name=\"k\nmore\n",
    ];
    let mut wrong = Vec::new();
    for form in raw_value_forms() {
        for content in contents {
            wrong.extend(released_not_as_meant(form, content));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `content` holding the form's own markup between two values, a value's end then the
/// opener of `key` (which the tool does not declare), as the form writes it and with no
/// blanks around it, in the middle of a file and at its end: each call released not as
/// meant, in every form that writes values raw.
fn undeclared_key_in_a_value(key: &str) -> Vec<String> {
    let mut wrong = Vec::new();
    for form in raw_value_forms() {
        let rendered = written_call(form, r#"{"content": "C1C1", "title": "T2T2"}"#);
        let (Some(a), Some(b)) = (rendered.find("C1C1"), rendered.find("T2T2")) else {
            panic!(
                "{} ({}): {rendered:?} lost a value",
                form.dialect(),
                form.name()
            );
        };
        let between = &rendered[a + 4..b];
        for markup in [between.to_owned(), between.replace(['\n', ' '], "")] {
            let markup = markup.replace("title", key);
            for content in [
                format!("{}{markup}{}", &FILE[..66], &FILE[66..]),
                format!("{}{markup}", &FILE[..66]),
            ] {
                wrong.extend(released_not_as_meant(form, &content));
            }
        }
    }
    wrong
}

/// A value holding a value's end then the opener of a key that is no name
/// (`initial</parameter><parameter=-scale=0">` in an HTML file: found by `.ci/run`'s
/// readings run in Seed-OSS, released with the file cut there and the undeclared key
/// `-scale=0"` holding its rest). Read as markup, the call has a key no model writes as
/// a parameter; read as content, it fits: the call is released exactly as meant or not
/// at all.
#[test]
fn a_values_end_then_an_opener_of_no_name_inside_a_value_is_never_released_as_a_key() {
    let mut wrong = Vec::new();
    for key in ["-scale=0\"", "a b"] {
        wrong.extend(undeclared_key_in_a_value(key));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The same with a key that is a name the tool does not declare (`title`): read as
/// markup it is a parameter the model made up (real traffic holds such calls, released
/// with what their schema says), read as content the call fits. Known failure
/// `undeclared-name-after-a-raw-value` (fuzz/known_failures.json): released with the
/// value cut and the key, until the readings weigh a raw value's markup as they weigh a
/// quote.
#[test]
#[ignore = "known failure undeclared-name-after-a-raw-value (fuzz/known_failures.json)"]
fn a_values_end_then_an_undeclared_names_opener_inside_a_value_is_never_released_as_a_key() {
    let wrong = undeclared_key_in_a_value("title");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A value ending in `,KEY:`, or holding `,KEY:` right before the form's own first
/// closing markup (Gemma's delimiter: `a,i:<|"|>b`): read as a string whose closer was
/// lost and a new member, its key no declared one (found by the readings fuzz target in
/// Gemma 4 and FunctionGemma). Released exactly as meant or not at all, in every form
/// that writes values raw.
#[test]
fn a_member_like_text_inside_a_value_is_never_released_as_a_key() {
    let mut wrong = Vec::new();
    for form in raw_value_forms() {
        let markup = form.closing_markup()[0];
        let contents = [
            "abc\nlog,10:".to_owned(),
            format!("a,i:{markup}b"),
            format!("x = 1,\"k\":{markup}\nmore\n"),
        ];
        for content in &contents {
            wrong.extend(released_not_as_meant(form, content));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A call of every tagged form, then text longer than the arguments' limit with no
/// bound in it: the text after a body of tags is held to the call's bound, and the
/// limit is one (memory stays bounded). The call is released exact, every byte of the
/// text shown, however the input is cut.
#[test]
fn text_after_a_tagged_call_past_the_limit_releases_the_call_and_shows_the_text() {
    let limits = toolsift::Limits {
        max_args_bytes: 256,
        ..toolsift::Limits::default()
    };
    let after = "Done. ".repeat(100);
    let mut seen = 0;
    for (form, args) in in_each_order_for(tagged(), "a.txt", "line") {
        let turn = Turn::new()
            .call(Call::new("write_file", &args))
            .text_after(&after);
        let Ok(rendered) = form
            .dialect()
            .render_with(&turn, &Style::new().form(form.name()))
        else {
            continue;
        };
        let config = Config::new(form.dialect())
            .tools(write_file_tools())
            .limits(limits.clone());
        let shown = support::shown_however_cut(&config, rendered.output.as_bytes());
        let got = shown.outcome(&rendered.arguments[0], &rendered.text);
        assert_eq!(
            got,
            Outcome::Exact,
            "{}: {:?}",
            form.name(),
            rendered.output
        );
        assert!(
            shown.text.contains(&after),
            "{}: {:?}",
            form.name(),
            shown.text
        );
        seen += 1;
    }
    // Most tagged forms write text after a call (the check cannot pass on none).
    assert!(seen * 2 >= tagged_with_closer().len(), "{seen} forms");
}

/// A call whose head was dropped, begun at its first parameter (`<parameter=path>` with
/// no `<tool_call>` or function tag before it: `missing_opener`), has no name to send
/// before its arguments. What the grammar judges about it before anything is sent (the
/// call's closer inside a value, then text and another call: not released) held only
/// when a push had already sent part of it; read whole, the judgment was lost and the
/// call was refused for its missing name instead (found by a ten-minute chunking run
/// under `auto`). Every form of tags, under its dialect and `auto`, is cut
/// at every byte: the result is the same however the output is cut.
#[test]
fn a_call_begun_at_its_first_parameter_is_judged_the_same_however_cut() {
    let mut wrong = Vec::new();
    for (form, first, second) in
        two_in_each_order_for(tagged(), ("a.txt", "line"), ("b.txt", "more"))
    {
        let closer = *form.closing_markup().last().unwrap();
        let (first, example) = (written_call(form, &first), written_call(form, &second));
        // The first parameter's tag: the last `<` before its key (the keys come in
        // the order the arguments' map keeps).
        let Some(key) = ["path", "content"]
            .iter()
            .filter_map(|k| first.find(k))
            .min()
        else {
            continue;
        };
        let Some(head) = first[..key].rfind('<') else {
            continue;
        };
        let Some(cut) = first.find("line") else {
            continue;
        };
        let raw = format!(
            "{}line{closer})>Then the second.\n{example}",
            &first[head..cut]
        );
        for dialect in [form.dialect(), Dialect::Auto] {
            let config = Config::new(dialect);
            if let Err(e) = support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop)
            {
                wrong.push(format!("{dialect} ({}): {raw:?}: {e}", form.name()));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// A value holding part of its form's closing markup back to back (a closer between
/// dropped: `</parameter></tool_call>`, `</parameter></function>`), then text, then any
/// opener of its dialect (`<tool_call>`, or `<function=` whose own opener was dropped),
/// then more of the file: read as the call ending there with a closer missing, text,
/// and the next call, which also lost its opener or is no call at all. That cannot be
/// told from the file (found by the readings fuzz target in Qwen3-Coder: released cut,
/// the text shown): the call is released exact or not at all, and nothing of it is
/// shown. Every form of tags, every opener of its dialect.
#[test]
fn a_value_holding_part_of_its_closing_markup_then_text_and_an_opener_is_never_released_cut() {
    let mut wrong = Vec::new();
    for form in tagged() {
        let markup = form.closing_markup();
        // Two pieces of the markup back to back with those between dropped, and the
        // markup with the call's closer dropped.
        let mut runs: Vec<String> = Vec::new();
        for i in 0..markup.len() {
            for j in i + 2..markup.len() {
                runs.push(format!("{}{}", markup[i], markup[j]));
            }
        }
        runs.push(markup[..markup.len() - 1].concat());
        for run in &runs {
            for opener in form.dialect().openers() {
                let opener = String::from_utf8_lossy(opener);
                let content = format!(
                    "{}{run}\nSome text here.\n{opener}more of the file\n{}",
                    &FILE[..66],
                    &FILE[66..]
                );
                let what = format!(", {run:?} then {opener:?}");
                exact_or_held(form, &content, &what, &mut wrong);
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// An opener of a form of tags and the call's closer right after it (no name, no
/// arguments: no call), then text and the opener again (found by the chunking fuzz
/// target under `auto`, in reasoning: `<function=</tool_call>` then text, reported as a
/// call whose closing tags came in a value when read whole, nothing when cut). An empty
/// body is no call, and nothing of it is a value: the same however cut, nothing
/// released, the text kept. Every opener of every dialect of tags.
#[test]
fn an_empty_call_then_text_and_an_opener_is_no_call_however_cut() {
    let mut wrong = Vec::new();
    for form in tagged() {
        let closer = *form.closing_markup().last().unwrap();
        for opener in form.dialect().openers() {
            let opener = String::from_utf8_lossy(opener);
            let raw = format!("{opener}{closer}parameter>\nSome text.\n{opener}{closer}more");
            let config = Config::new(form.dialect());
            match support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop) {
                Ok(events) if shown(&events).released.is_empty() => {}
                Ok(events) => {
                    wrong.push(format!("{raw:?}: released {:?}", shown(&events).released))
                }
                Err(e) => wrong.push(format!("{raw:?}: {e}")),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Two whole calls with text between them (`Head`, a call, `TXT`, a call, `Tail`, as
/// MiniCPM 5 writes calls one a line among text; Aphrodite's
/// `test_multiple_calls_interleaved_text`), in every form of tags where two calls
/// written one after the other read as two: both released as meant and the text kept.
/// A call with no closer of its own waits for its bound, and text after it is held
/// there; text between two calls is not a value going on.
#[test]
fn two_calls_with_text_between_are_both_released_and_the_text_kept() {
    let mut wrong = Vec::new();
    let mut covered = Vec::new();
    for (form, a, b) in two_in_each_order_for(tagged(), ("a.txt", "first"), ("b.txt", "second")) {
        let (first, second) = (written_call(form, &a), written_call(form, &b));
        let a: serde_json::Value = serde_json::from_str(&a).unwrap();
        let b: serde_json::Value = serde_json::from_str(&b).unwrap();
        let config = Config::new(form.dialect()).tools(write_file_tools());
        let released = |raw: &str| -> Option<Vec<serde_json::Value>> {
            let events =
                support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop).ok()?;
            let shown = shown(&events);
            let args = shown
                .released
                .iter()
                .map(|a| serde_json::from_str(a).unwrap());
            Some(args.collect())
        };
        // Only where the two renders, one after the other in text, are two calls.
        let together = format!("Head\n{first}\n{second}\nTail\n");
        if released(&together) != Some(vec![a.clone(), b.clone()]) {
            continue;
        }
        covered.push(form.dialect().name());
        let raw = format!("Head\n{first}\nTXT\n{second}\nTail\n");
        match support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop) {
            Ok(events) => {
                let shown = shown(&events);
                let got: Vec<serde_json::Value> = shown
                    .released
                    .iter()
                    .map(|a| serde_json::from_str(a).unwrap())
                    .collect();
                let kept = ["Head", "TXT", "Tail"]
                    .iter()
                    .all(|t| shown.text.contains(t));
                if got != [a.clone(), b.clone()] || !kept {
                    wrong.push(format!(
                        "{} ({}): {raw:?}: released {got:?}, text {:?}",
                        form.dialect(),
                        form.name(),
                        shown.text
                    ));
                }
            }
            Err(e) => wrong.push(format!("{} ({}): {e}", form.dialect(), form.name())),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(covered.contains(&"minicpm5"), "{covered:?}");
    assert!(covered.contains(&"minimax_m2"), "{covered:?}");
}
