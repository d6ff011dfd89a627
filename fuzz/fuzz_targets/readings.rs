//! Released means right, as a fuzz oracle: any text written into a `write_file` call in
//! one of the four ways small models write files (`tests/real_files`) is released with
//! exactly its content (or with only escape sequences read as escapes), or not released;
//! never with other content, and the same whatever the chunking.
#![no_main]

mod common;
#[path = "../../tests/real_files/classify.rs"]
#[allow(dead_code)]
mod classify;
#[path = "../../tests/real_files/embed.rs"]
#[allow(dead_code)]
mod embed;

use classify::{classify, Class};
use common::{check, header, merge, run, Chunking};
use embed::Way;
use libfuzzer_sys::fuzz_target;
use toolsift::{Config, Dialect, Parser, StopReason, Tools};

fuzz_target!(|data: &[u8]| {
    // Header: the way (1 byte), a chunking (6 bytes); then the file's text.
    let ((way, chunking), text): ((u8, Chunking), _) = header(data, 7);
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    // A file holding the dialect's own markers (`<|im_end|>`, `</tool_call>`) cannot
    // be written into a call unambiguously: the marker acts.
    if Dialect::Hermes
        .markers()
        .iter()
        .any(|m| text.as_bytes().windows(m.len()).any(|w| w == *m))
    {
        return;
    }
    let way = Way::ALL[usize::from(way) % 4];
    let raw = embed::output(way, "a.txt", text);
    let mut config = Config::new(Dialect::Hermes);
    config = config.tools(
        Tools::from_value(&serde_json::json!([{"type": "function", "function": {
            "name": "write_file",
            "parameters": {"type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"], "additionalProperties": false}}}]))
        .unwrap(),
    );
    let whole = run(
        &mut Parser::with_config(config.clone()),
        raw.as_bytes(),
        &Chunking([0; 6]),
        StopReason::Stop,
    );
    let cut = run(
        &mut Parser::with_config(config),
        raw.as_bytes(),
        &chunking,
        StopReason::Stop,
    );
    for (name, got) in [("whole", &whole), ("chunked", &cut)] {
        if let Err(e) = check(Dialect::Hermes, got) {
            panic!("{name}: {e}");
        }
        let outcome = classify(&got.events, way, "a.txt", text);
        assert!(
            outcome.class != Class::Wrong,
            "{name}, way {}: {}",
            way.number(),
            outcome.detail
        );
    }
    assert_eq!(
        merge(&whole.events),
        merge(&cut.events),
        "chunking {chunking:?} differs from the whole input"
    );
});
