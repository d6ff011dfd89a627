//! A marker delivered as one special token (`Parser::push_token` with its id in
//! `Config::special_tokens`) gives the same message as the same marker spelled out in
//! text pieces, for dialects whose markers are single tokens.

mod support;

use toolsift::{Config, Dialect, OwnedEvent, Parser, StopReason};

/// A token stream: `(Some(id), bytes)` is a special token, `(None, bytes)` text.
type Tokens = &'static [(Option<u32>, &'static str)];

fn run_tokens(dialect: Dialect, tokens: Tokens) -> Vec<OwnedEvent> {
    let mut config = Config::new(dialect);
    config.special_tokens = tokens.iter().filter_map(|(id, _)| *id).collect();
    let mut p = Parser::with_config(config);
    let mut out = Vec::new();
    for (id, bytes) in tokens {
        match id {
            Some(id) => p.push_token(*id, bytes.as_bytes()),
            None => p.push(bytes.as_bytes()),
        }
        while let Some(e) = p.next_event() {
            out.push(e.into_owned());
        }
    }
    p.finish(StopReason::Stop);
    while let Some(e) = p.next_event() {
        out.push(e.into_owned());
    }
    out
}

/// The same output spelled as text, split into small pieces inside the markers.
fn run_text(dialect: Dialect, tokens: Tokens) -> Vec<OwnedEvent> {
    let raw: String = tokens.iter().map(|(_, b)| *b).collect();
    let cuts: Vec<usize> = (1..raw.len()).step_by(3).collect();
    support::run_cuts(
        &Config::new(dialect),
        raw.as_bytes(),
        &cuts,
        StopReason::Stop,
    )
}

fn same(dialect: Dialect, tokens: Tokens) {
    let by_token = run_tokens(dialect, tokens);
    let by_text = run_text(dialect, tokens);
    support::check(dialect, &by_token).unwrap();
    let a = support::message(&by_token);
    assert_eq!(a, support::message(&by_text), "{dialect}");
    assert!(
        !a["tool_calls"].as_array().unwrap().is_empty(),
        "{dialect}: {a}"
    );
}

#[test]
fn harmony_tokens_equal_text() {
    same(
        Dialect::Harmony,
        &[
            (Some(200005), "<|channel|>"),
            (None, "analysis"),
            (Some(200008), "<|message|>"),
            (None, "Use the tool <|"),
            (Some(200007), "<|end|>"),
            (Some(200006), "<|start|>"),
            (None, "assistant"),
            (Some(200005), "<|channel|>"),
            (None, "commentary to=functions.f "),
            (Some(200003), "<|constrain|>"),
            (None, "json"),
            (Some(200008), "<|message|>"),
            (None, "{\"a\": 1}"),
            (Some(200012), "<|call|>"),
        ],
    );
}

#[test]
fn seed_oss_tokens_equal_text() {
    same(
        Dialect::SeedOss,
        &[
            (Some(7), "<seed:think>"),
            (None, "plan <seed:"),
            (Some(8), "</seed:think>"),
            (None, "ok <"),
            (Some(9), "<seed:tool_call>"),
            (
                None,
                "\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n",
            ),
            (Some(10), "</seed:tool_call>"),
        ],
    );
}

#[test]
fn glm_tokens_equal_text() {
    same(
        Dialect::Glm,
        &[
            (None, "Text <tool_"),
            (Some(151352), "<tool_call>"),
            (None, "get_weather"),
            (Some(151356), "<arg_key>"),
            (None, "city"),
            (Some(151357), "</arg_key>"),
            (Some(151358), "<arg_value>"),
            (None, "Paris"),
            (Some(151359), "</arg_value>"),
            (Some(151353), "</tool_call>"),
        ],
    );
}
