//! Released means right, as a fuzz oracle, in every dialect: any text written by
//! `Dialect::render` into a `write_file` call of a dialect and form drawn from the
//! header, in one of the ways small models write files (`tests/real_files`: four ways
//! into a JSON or Python string, raw or holding the dialect's own closing markup in an
//! XML or Gemma value), is released with exactly its content (or with only escape
//! sequences read as escapes), or not released; never with other content, and the same
//! whatever the chunking.
#![no_main]

mod common;
#[path = "../../tests/real_files/classify.rs"]
#[allow(dead_code)]
mod classify;
#[path = "../../tests/real_files/embed.rs"]
#[allow(dead_code)]
mod embed;

use classify::{classify, Class, Expect};
use common::{check, header, merge, run, Chunking};
use embed::Way;
use libfuzzer_sys::fuzz_target;
use toolsift::{Config, Dialect, Parser, StopReason, Tools};

fuzz_target!(|data: &[u8]| {
    // Header: the dialect (1 byte), its form (1), the way (1), a chunking (6 bytes);
    // then the file's text.
    let ((dialect, form, way, chunking), text): ((u8, u8, u8, Chunking), _) = header(data, 9);
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let dialect = Dialect::ALL[usize::from(dialect) % Dialect::ALL.len()];
    let forms = dialect.forms();
    let form = forms[usize::from(form) % forms.len()];
    let ways = Way::of(form);
    let way = ways[usize::from(way) % ways.len()];
    // A file holding the dialect's own markers (`<|im_end|>`, `</tool_call>`) written
    // as it is cannot be read unambiguously: the marker acts. The markup way inserts
    // them on purpose; there, a call may be held, never released wrong.
    if way != Way::WithMarkup
        && dialect
            .markers()
            .iter()
            .any(|m| text.as_bytes().windows(m.len()).any(|w| w == *m))
    {
        return;
    }
    let seed = u64::from_le_bytes([
        chunking.0[0],
        chunking.0[1],
        chunking.0[2],
        chunking.0[3],
        chunking.0[4],
        chunking.0[5],
        0,
        1,
    ]);
    let written = embed::output(form, way, "a.txt", text, seed);
    let raw = written.raw.as_bytes();
    let config = Config::new(dialect).tools(
        Tools::from_value(&serde_json::json!([{"type": "function", "function": {
            "name": "write_file",
            "parameters": {"type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"], "additionalProperties": false}}}]))
        .unwrap(),
    );
    let whole = run(
        &mut Parser::with_config(config.clone()),
        raw,
        &Chunking([0; 6]),
        StopReason::Stop,
    );
    let cut = run(
        &mut Parser::with_config(config),
        raw,
        &chunking,
        StopReason::Stop,
    );
    let expect = Expect {
        way,
        python: form.arguments() == toolsift::render::Arguments::Python,
        path: "a.txt",
        written: &written,
    };
    for (name, got) in [("whole", &whole), ("chunked", &cut)] {
        if let Err(e) = check(dialect, got) {
            panic!("{} ({}) {name}: {e}", dialect.name(), form.name());
        }
        let outcome = classify(&got.events, &expect);
        assert!(
            outcome.class != Class::Wrong,
            "{} ({}) {name}, way {}: {}{}",
            dialect.name(),
            form.name(),
            way.label(),
            outcome.detail,
            if back_to_back(form.closing_markup(), &written.content) {
                " (the file holds its closing markup back to back)"
            } else {
                ""
            }
        );
    }
    assert_eq!(
        merge(&whole.events),
        merge(&cut.events),
        "{} ({}): chunking {chunking:?} differs from the whole input",
        dialect.name(),
        form.name()
    );
});

/// Whether `content` holds two of the form's closing markups back to back (blanks
/// between allowed), the earlier of the form's list first (`</arg_value></tool_call>`,
/// `</parameter> </tool_call>`): then the file reads as the end of a whole call (a
/// closer between them dropped), a known class (fuzz/known_failures.json).
fn back_to_back(markup: &[&str], content: &str) -> bool {
    markup.iter().enumerate().any(|(i, first)| {
        content.match_indices(first).any(|(at, m)| {
            let rest = content[at + m.len()..].trim_start_matches(|c: char| c.is_ascii_whitespace());
            markup[i + 1..].iter().any(|next| rest.starts_with(next))
        })
    })
}
