//! The request decides what may be released (`Config::tool_choice`,
//! `Config::parallel_calls`), in every dialect: for each of `Dialect::ALL`, its first
//! fixture with a clean released call (and its first with two, for parallel calls) is
//! run under every chunking with each choice. A call the request does not allow is
//! reported with its reason and feedback, never released and never streamed; the text
//! is what it is without the gate, so no markup is shown. A dialect added without such
//! a fixture fails here.

mod support;

use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use toolsift::{Config, Dialect, OwnedEvent, ParallelCalls, StopReason, ToolChoice, Tools};

struct Fixture {
    name: String,
    raw: Vec<u8>,
    tools: Option<Tools>,
    reasoning_open: bool,
    released: Vec<String>,
}

/// Per dialect, the fixtures (in file order) that release at least one call cleanly and
/// report none.
fn fixtures() -> HashMap<Dialect, Vec<Fixture>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/parse.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let mut out: HashMap<Dialect, Vec<Fixture>> = HashMap::new();
    for line in text.lines() {
        let fx: Value = serde_json::from_str(line).unwrap();
        let dialect = Dialect::from_name(fx["dialect"].as_str().unwrap()).unwrap();
        let expect = &fx["expect"];
        let calls = expect["tool_calls"].as_array().unwrap();
        let clean = !calls.is_empty()
            && calls
                .iter()
                .all(|c| c["repairs"].as_array().unwrap().is_empty())
            && expect["incomplete_calls"].as_array().unwrap().is_empty()
            && fx.get("stop").is_none()
            && fx.get("limits").is_none()
            && fx.get("unknown_tool").is_none();
        if !clean {
            continue;
        }
        let tools = fx
            .get("tools")
            .map(|t| Tools::from_json(t.to_string().as_bytes()).unwrap());
        out.entry(dialect).or_default().push(Fixture {
            name: fx["name"].as_str().unwrap().to_owned(),
            raw: fx["raw"].as_str().unwrap().as_bytes().to_vec(),
            tools,
            reasoning_open: fx.get("reasoning_open").and_then(Value::as_bool) == Some(true),
            released: calls
                .iter()
                .map(|c| c["name"].as_str().unwrap().to_owned())
                .collect(),
        });
    }
    out
}

fn config(d: Dialect, fx: &Fixture) -> Config {
    let mut config = Config::new(d).reasoning_open(fx.reasoning_open);
    if let Some(tools) = &fx.tools {
        config.tools = Arc::new(tools.clone());
    }
    config
}

/// The message under every chunking (each run checked, all agreeing).
fn run(config: &Config, raw: &[u8]) -> (Value, Vec<OwnedEvent>) {
    let events = support::check_all_chunkings(config, raw, StopReason::Stop)
        .unwrap_or_else(|e| panic!("{e}"));
    (support::message(&events), events)
}

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_owned())
        .collect()
}

/// What `choice` must do to the fixture's calls: the names released and the names
/// reported with `tool_choice`.
fn expected(choice: &ToolChoice, released: &[String]) -> (Vec<String>, Vec<String>) {
    released.iter().cloned().partition(|n| match choice {
        ToolChoice::None => false,
        ToolChoice::Function(only) => **only == **n,
        _ => true,
    })
}

#[test]
fn tool_choice_gates_every_dialect() {
    let all = fixtures();
    let mut missing = Vec::new();
    for &d in Dialect::ALL {
        let Some(fx) = all.get(&d).and_then(|list| list.first()) else {
            missing.push(d.name());
            continue;
        };
        let (free, _) = run(&config(d, fx), &fx.raw);
        assert_eq!(names(&free["tool_calls"]), fx.released, "{}", fx.name);
        let first = fx.released[0].clone();
        let choices = [
            ToolChoice::None,
            ToolChoice::Required,
            ToolChoice::Function(first.as_str().into()),
            ToolChoice::Function(format!("{first}_other").into()),
        ];
        for choice in choices {
            let (msg, events) = run(&config(d, fx).tool_choice(choice.clone()), &fx.raw);
            let (allowed, refused) = expected(&choice, &fx.released);
            let what = format!("{} under {choice:?}", fx.name);
            assert_eq!(names(&msg["tool_calls"]), allowed, "{what}");
            let reported = msg["incomplete_calls"].as_array().unwrap();
            assert_eq!(names(&msg["incomplete_calls"]), refused, "{what}");
            for r in reported {
                assert_eq!(r["reason"], "tool_choice", "{what}");
                assert!(
                    r["feedback"].as_str().unwrap().contains("tool_choice"),
                    "{what}: {r}"
                );
            }
            // Not streamed, and the text is the text without the gate: no markup shown.
            let streamed = events
                .iter()
                .filter(|e| matches!(e, OwnedEvent::CallStarted { .. }))
                .count();
            assert_eq!(streamed, allowed.len(), "{what}: a refused call streamed");
            assert_eq!(msg["content"], free["content"], "{what}");
            assert_eq!(msg["reasoning"], free["reasoning"], "{what}");
            // A required call that none released is reported, once, before End.
            let must_call = matches!(choice, ToolChoice::Required | ToolChoice::Function(_));
            assert_eq!(
                unmet(&events).is_some(),
                must_call && allowed.is_empty(),
                "{what}: {events:?}"
            );
        }
    }
    assert!(
        missing.is_empty(),
        "dialects without a fixture that releases a call cleanly: {missing:?}"
    );
}

/// The feedback of the response's `ToolChoiceUnmet`, if any.
fn unmet(events: &[OwnedEvent]) -> Option<&str> {
    events.iter().find_map(|e| match e {
        OwnedEvent::ToolChoiceUnmet { feedback } => Some(feedback.as_str()),
        _ => None,
    })
}

/// A response with no call, in every dialect: a request that requires one (any tool,
/// or one named) gets `ToolChoiceUnmet` with feedback naming what it required, counted
/// in `Stats`; `auto` and `none` never do.
#[test]
fn a_required_call_not_made_is_reported_in_every_dialect() {
    let tools = Tools::from_json(
        br#"[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]"#,
    )
    .unwrap();
    for &d in Dialect::ALL {
        for (choice, says) in [
            (ToolChoice::Auto, None),
            (ToolChoice::None, None),
            (ToolChoice::Required, Some("get_weather")),
            (
                ToolChoice::Function("get_weather".into()),
                Some("call get_weather"),
            ),
        ] {
            let config = Config::new(d)
                .tools(tools.clone())
                .tool_choice(choice.clone());
            let (msg, events) = run(&config, b"It is sunny in Paris today.");
            let what = format!("{} under {choice:?}", d.name());
            assert_eq!(msg["content"], "It is sunny in Paris today.", "{what}");
            match says {
                None => assert_eq!(unmet(&events), None, "{what}"),
                Some(text) => {
                    let feedback = unmet(&events).unwrap_or_else(|| panic!("{what}: not reported"));
                    assert!(
                        feedback.contains(text) && feedback.contains("tool_choice"),
                        "{what}: {feedback}"
                    );
                }
            }
            let mut parser = toolsift::Parser::with_config(config);
            parser.push(b"It is sunny.");
            parser.finish(StopReason::Stop);
            while parser.next_event().is_some() {}
            assert_eq!(
                parser.stats().tool_choice_unmet,
                u64::from(says.is_some()),
                "{what}"
            );
        }
    }
}

#[test]
fn one_call_per_response_in_every_dialect_with_parallel_calls() {
    let all = fixtures();
    let mut covered = 0;
    for &d in Dialect::ALL {
        let Some(fx) = all
            .get(&d)
            .and_then(|list| list.iter().find(|f| f.released.len() > 1))
        else {
            continue;
        };
        covered += 1;
        let (free, _) = run(&config(d, fx), &fx.raw);
        let gated = config(d, fx).parallel_calls(ParallelCalls::FirstOnly);
        let (msg, _) = run(&gated, &fx.raw);
        assert_eq!(names(&msg["tool_calls"]), fx.released[..1], "{}", fx.name);
        assert_eq!(
            names(&msg["incomplete_calls"]),
            fx.released[1..],
            "{}",
            fx.name
        );
        for r in msg["incomplete_calls"].as_array().unwrap() {
            assert_eq!(r["reason"], "parallel_calls", "{}", fx.name);
        }
        assert_eq!(msg["content"], free["content"], "{}", fx.name);
        // With the one allowed tool named, the first call still counts as the one.
        let (named, _) = run(
            &gated.tool_choice(ToolChoice::Function(fx.released[0].as_str().into())),
            &fx.raw,
        );
        assert_eq!(names(&named["tool_calls"]), fx.released[..1], "{}", fx.name);
    }
    // Most dialects write parallel calls; those whose format has one call per response
    // (GigaChat 3, ...) are skipped.
    assert!(
        covered * 4 >= Dialect::ALL.len() * 3,
        "only {covered} dialects covered"
    );
}

#[test]
fn a_refused_call_is_counted_and_a_later_allowed_one_released() {
    let raw = b"<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>\n<tool_call>{\"name\": \"b\", \"arguments\": {\"x\": 1}}</tool_call>";
    let mut parser = toolsift::Parser::with_config(
        Config::new(Dialect::Hermes).tool_choice(ToolChoice::Function("b".into())),
    );
    let events = support::run_with(&mut parser, raw, &[], StopReason::Stop);
    let msg = support::message(&events);
    assert_eq!(names(&msg["tool_calls"]), ["b"]);
    assert_eq!(
        msg["incomplete_calls"][0]["feedback"],
        "a: the request allows only b (tool_choice); call b"
    );
    assert_eq!(parser.stats().tool_choice, 1);
    assert_eq!(parser.stats().released_clean, 1);
}

#[test]
fn markup_stripped_and_calls_in_reasoning_are_counted() {
    let raw = b"<think>Maybe <tool_call>{\"name\": \"a\"}</tool_call> later.</think>Hi</tool_call><|im_end|>";
    let mut parser = toolsift::Parser::with_config(Config::new(Dialect::Hermes));
    let events = support::run_with(&mut parser, raw, &[], StopReason::Stop);
    let msg = support::message(&events);
    assert_eq!(msg["content"], "Hi");
    assert_eq!(
        msg["reasoning"],
        "Maybe <tool_call>{\"name\": \"a\"}</tool_call> later."
    );
    assert_eq!(parser.stats().calls_in_reasoning, 1);
    assert_eq!(parser.stats().markup_stripped, 2);
}
