//! Prose right after a call's opener (`<tool_call>not json at all`, GigaChat's
//! `function call<|role_sep|>` followed by words): no body begins with two words, so
//! the opener began no call. The prose is text, nothing is released, and nothing is
//! reported `truncated` when the model ended its turn (invariant 6: truncation is
//! never the reason for a grammar error). Harmony's header reads the same: a header
//! whose first word is no role, channel or recipient is text. Every opener of every
//! dialect, whole and under every chunking, but those listed in `prose_is_the_calls`.

mod support;

use toolsift::{Config, Dialect, StopReason};

/// Openers after which prose is not text, each for its reason; after them the prose
/// is still never released.
fn prose_is_the_calls(opener: &str) -> bool {
    // A label saying a call follows (`labelled` forms): what follows is call syntax
    // that does not parse, reported, never shown.
    const LABELS: &[&str] = &["```tool_call", "```tool_code", "TOOL CALL:"];
    // A marker from the middle of a call whose opener was swallowed (the name is held
    // before it): the call's own syntax, cut.
    const MID_CALL: &[&str] = &["<parameter=", "<arg_key>", "[CALL_ID]"];
    // The body's JSON began with the opener: broken JSON, cut at the end.
    let json_begun = opener.ends_with(['{', '[']);
    json_begun || LABELS.iter().any(|l| opener.starts_with(l)) || MID_CALL.contains(&opener)
}

/// The events of `raw` under every chunking, or `None` with why noted in `wrong`.
fn however_cut(
    config: &Config,
    raw: &str,
    what: &str,
    wrong: &mut Vec<String>,
) -> Option<Vec<toolsift::OwnedEvent>> {
    match support::check_all_chunkings(config, raw.as_bytes(), StopReason::Stop) {
        Ok(events) => Some(events),
        Err(e) => {
            wrong.push(format!("{what} {raw:?}: {e}"));
            None
        }
    }
}

#[test]
fn prose_after_an_opener_is_text_and_never_truncated() {
    let mut wrong = Vec::new();
    for &dialect in Dialect::ALL {
        for opener in dialect.openers() {
            let opener = String::from_utf8_lossy(opener);
            for prose in ["not json at all", "\nI will check the weather now."] {
                for closed in [false, true] {
                    let mut raw = format!("Let me see.\n{opener}{prose}");
                    if closed {
                        raw.push_str("\nThanks.");
                    }
                    let config = Config::new(dialect);
                    let Some(events) = however_cut(&config, &raw, dialect.name(), &mut wrong)
                    else {
                        continue;
                    };
                    let shown = support::shown(&events);
                    let words = prose.trim_start();
                    let wrong_outcome = match prose_is_the_calls(&opener) {
                        true => !shown.released.is_empty(),
                        false => {
                            !shown.released.is_empty()
                                || shown.held > 0
                                || !shown.text.contains(words)
                        }
                    };
                    if wrong_outcome {
                        wrong.push(format!("{} {raw:?}: {shown:?}", dialect.name()));
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} cases:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// The waits are bounded (docs/design.md, the pending-buffer table): a first word
/// after an opener is held up to 128 bytes (past it, the body reads it, here as a name
/// too long to be one), and the rest of a tag after a tag prefix up to 128 bytes (past
/// it, the prefix was a bare marker and the bytes are text).
#[test]
fn the_first_word_and_a_prefixed_tag_are_held_at_most_128_bytes() {
    let run = |dialect: Dialect, raw: &str| {
        let events =
            support::check_all_chunkings(&Config::new(dialect), raw.as_bytes(), StopReason::Stop)
                .unwrap_or_else(|e| panic!("{raw:?}: {e}"));
        support::message(&events)
    };
    for (len, prose) in [(120, true), (200, false)] {
        let raw = format!("<tool_call>{} and more words</tool_call>", "w".repeat(len));
        let m = run(Dialect::Hermes, &raw);
        let shown = m["content"].as_str().unwrap().contains("and more words");
        assert_eq!(shown, prose, "{len}: {m}");
        assert_eq!(m["tool_calls"], serde_json::json!([]), "{m}");
    }
    for (len, tag) in [(120, true), (200, false)] {
        let raw = format!(
            "<｜DSML｜{}>\n<｜DSML｜parameter name=\"a\" string=\"true\">x</｜DSML｜parameter>\n</｜DSML｜invoke>",
            "t".repeat(len)
        );
        let m = run(Dialect::DeepseekDsml, &raw);
        let shown = m["content"].as_str().unwrap().contains("tttt");
        assert_eq!(shown, !tag, "{len}: {m}");
        assert_eq!(m["tool_calls"], serde_json::json!([]), "{m}");
    }
}

/// A stray word between a call's opener and its body (`<tool_call>junk <function=f>`,
/// `<tool_call>junk {"name": "f", ...}`, `[TOOL_CALLS]junk f[ARGS]...`): the word is
/// never released as the tool's name, and the call is released exactly as meant or
/// not at all. A body's own name tag after the word is read as the body
/// (`stray_text`); a whole call object after it, read as the arguments of a tool named
/// by the word, is not released unless the word is a declared tool; after a wrapper
/// (Hunyuan 3's section), the word is text; before a list of call objects (Mistral's
/// pre-v11 `[TOOL_CALLS] junk [{...}]`, vLLM's regex fallback), it is stray and the
/// calls are read; so is a call object after it where no body reads a name first
/// (`<|python_tag|>junk {"name": ...}`). A name holding the word (`junk get_weather`
/// then the form's separator, markup or arguments) is a call not released. Nothing of
/// the call is ever shown. Every form of every dialect, with tools declared and not,
/// under the dialect and, where the form takes part, `auto`, however cut.
#[test]
fn a_stray_word_after_an_opener_is_never_released_as_the_name() {
    use toolsift::render::{Call, InAuto, Style, Turn};
    use toolsift::{OwnedEvent, Tools};
    let args = r#"{"city": "Paris"}"#;
    let tools = Tools::from_json(
        br#"[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]"#,
    )
    .unwrap();
    let mut wrong = Vec::new();
    let mut seen = 0;
    for &dialect in Dialect::ALL {
        for form in dialect.forms() {
            let turn = Turn::new().call(Call::new("get_weather", args));
            let Ok(rendered) = dialect.render_with(&turn, &Style::new().form(form.name())) else {
                continue;
            };
            let out = &rendered.output;
            // Right after the first of the dialect's openers the output holds.
            let Some((at, opener)) = dialect
                .openers()
                .into_iter()
                .filter_map(|o| {
                    let o = std::str::from_utf8(o).ok()?;
                    out.find(o).map(|at| (at, o))
                })
                .min_by_key(|&(at, _)| at)
            else {
                continue;
            };
            let cut = at + opener.len();
            let raw = format!("{}junk {}", &out[..cut], &out[cut..]);
            seen += 1;
            // A list of call objects after the word: the word is stray, the call read
            // (unless the word joins a label, "```jsonjunk": another fence).
            let joins = opener.ends_with(|c: char| c.is_ascii_alphanumeric());
            let markerless = opener.starts_with(['{', '[']);
            let list = !joins && out[cut..].trim_start().starts_with("[{");
            let mut dialects = vec![dialect];
            if form.auto() == InAuto::Yes {
                dialects.push(Dialect::Auto);
            }
            for run_as in dialects {
                for declared in [false, true] {
                    let mut config = Config::new(run_as);
                    if declared {
                        config = config.tools(tools.clone());
                    }
                    let what = format!("{run_as} ({})", form.name());
                    let Some(events) = however_cut(&config, &raw, &what, &mut wrong) else {
                        continue;
                    };
                    // Nothing of the call is shown (a wrapper's word is text); where the
                    // opener begins the body (markerless JSON, a list) or the word joins
                    // it, none of it was a call.
                    let shown = support::shown(&events);
                    if !markerless && !joins && !matches!(shown.text.trim(), "" | "junk") {
                        wrong.push(format!(
                            "{run_as} ({}), tools {declared}: {raw:?} showed {:?}",
                            form.name(),
                            shown.text
                        ));
                    }
                    if list && declared && shown.released.len() != 1 {
                        wrong.push(format!(
                            "{run_as} ({}): {raw:?} released no call",
                            form.name()
                        ));
                    }
                    for event in &events {
                        if let OwnedEvent::CallFinished {
                            name,
                            arguments,
                            repairs,
                            ..
                        } = event
                        {
                            let got: serde_json::Value = serde_json::from_str(arguments).unwrap();
                            let meant: serde_json::Value = serde_json::from_str(args).unwrap();
                            // The word was dropped, not shown: a repair, named
                            // (invariant 7); or it is text, or a call reported. (A
                            // header that only switches to a segment whose content
                            // carries the calls, Muse Glimmer's `to=functions`, is
                            // dropped whole before any call begins.)
                            let reported = events
                                .iter()
                                .any(|e| matches!(e, OwnedEvent::CallNotReleased { .. }));
                            let segment = opener == "<|start|>" && raw.contains("to=functions<");
                            let named = repairs.contains(toolsift::Repair::StrayText)
                                || shown.text.contains("junk")
                                || reported
                                || segment;
                            if name != "get_weather" || got != meant || !named {
                                wrong.push(format!(
                                    "{run_as} ({}), tools {declared}: {raw:?} released {name} {arguments} {repairs:?}",
                                    form.name()
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(seen > 50, "only {seen} forms have an opener");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A well-formed call whose arguments are a whole call object (`{"name": "get_weather",
/// "arguments": {...}}`, a dispatching tool's) in every form of every dialect that
/// writes JSON arguments: released as written, tools declared or not (invariant 1).
/// Only a name written right before such arguments with no separator
/// (`<tool_call>junk {"name": ...}`) may be a stray word, and that call is not released
/// without its tool (`a_stray_word_after_an_opener_is_never_released_as_the_name`).
#[test]
fn a_well_formed_call_whose_arguments_are_a_call_object_is_released_as_written() {
    use toolsift::render::{Arguments, Call, Style, Turn};
    use toolsift::Tools;
    let args = r#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#;
    let meant: serde_json::Value = serde_json::from_str(args).unwrap();
    let tools = Tools::from_json(
        br#"[{"type":"function","function":{"name":"dispatch","parameters":{"type":"object","properties":{"name":{"type":"string"},"arguments":{"type":"object"}}}}}]"#,
    )
    .unwrap();
    let mut wrong = Vec::new();
    let mut seen = 0;
    for &dialect in Dialect::ALL {
        for form in dialect.forms() {
            if form.arguments() != Arguments::Json {
                continue;
            }
            let turn = Turn::new().call(Call::new("dispatch", args));
            let Ok(rendered) = dialect.render_with(&turn, &Style::new().form(form.name())) else {
                continue;
            };
            seen += 1;
            let raw = &rendered.output;
            for declared in [false, true] {
                let mut config = Config::new(dialect);
                if declared {
                    config = config.tools(tools.clone());
                }
                let what = format!("{dialect} ({}), tools {declared}", form.name());
                let Some(events) = however_cut(&config, raw, &what, &mut wrong) else {
                    continue;
                };
                let shown = support::shown(&events);
                let released: Vec<serde_json::Value> = shown
                    .released
                    .iter()
                    .map(|a| serde_json::from_str(a).unwrap())
                    .collect();
                if released != [meant.clone()] {
                    wrong.push(format!(
                        "{what}: {raw:?} released {released:?}, {} held",
                        shown.held
                    ));
                }
            }
        }
    }
    assert!(seen > 20, "only {seen} forms write JSON arguments");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
