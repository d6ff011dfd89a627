//! Characters of every width cut by chunk ends, in text and in reasoning, next to
//! markers and marker bytes: every API (`push`, `feed`, `feed` with `Feed`s dropped)
//! at every split into two and three chunks gives the events of the whole run, with
//! every byte counted once (`run_api` checks `Stats::bytes`). The text path holds a
//! cut character itself (`Parser::feed` and `push`), so these cuts are its edge.

mod support;

use support::{check, merge, run_api, Api};
use toolsift::{Config, Dialect, Parser, StopReason};

const CASES: &[(Dialect, &str)] = &[
    (Dialect::Hermes, "hello café naïve über"),
    (Dialect::Hermes, "€ ✓ 日本語 x"),
    (Dialect::Hermes, "😀 a𝄞b 😀"),
    (Dialect::Hermes, "é<é a < ü </é"),
    (
        Dialect::Hermes,
        "é<tool_call>{\"name\": \"f\", \"arguments\": {\"s\": \"ü\"}}</tool_call>€",
    ),
    (Dialect::Hermes, "<think>é€😀</think>日本 ✓"),
    (Dialect::Auto, "naïve € 😀 [x] <y>"),
    (
        Dialect::Qwen3Coder,
        "über<tool_call>\n<function=f>\n<parameter=a>\nü\n</parameter>\n</function>\n</tool_call>ü",
    ),
    (Dialect::Gemma4, "café 😀 ✓"),
];

fn cut_sets(len: usize) -> Vec<Vec<usize>> {
    let mut sets = vec![(1..len).collect::<Vec<_>>()];
    for a in 1..len {
        sets.push(vec![a]);
        for b in a + 1..len {
            sets.push(vec![a, b]);
        }
    }
    sets
}

#[test]
fn characters_cut_anywhere_give_the_events_of_the_whole_run() {
    for &(dialect, text) in CASES {
        let config = Config::new(dialect);
        let raw = text.as_bytes();
        let mut p = Parser::with_config(config.clone());
        let whole = run_api(&mut p, raw, &[], StopReason::Stop, Api::Push);
        check(dialect, &whole).unwrap_or_else(|e| panic!("{text:?} whole: {e}"));
        let want = merge(&whole);
        for cuts in cut_sets(raw.len()) {
            for api in [Api::Push, Api::Feed, Api::FeedDropped] {
                p.reset();
                let got = run_api(&mut p, raw, &cuts, StopReason::Stop, api);
                check(dialect, &got).unwrap_or_else(|e| panic!("{text:?} {api:?} {cuts:?}: {e}"));
                assert_eq!(merge(&got), want, "{text:?} {api:?} at {cuts:?}");
            }
        }
    }
}
