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
