//! Regression tests for crashes found by the fuzz targets (`fuzz/`). Each test names
//! the target that found it and the bug it caught.

mod support;

use support::write_file_tools;
use toolsift::{Config, Dialect, OwnedEvent, StopReason};

/// repair_vs_serde: a top-level number or literal ending the input (`null`, `true`,
/// `1`) was reported as `missing_closers`, so valid JSON came back with a repair, and
/// repairing `repair("f")` (= `null`) again changed its repairs.
#[test]
fn top_level_scalar_at_end_is_not_a_missing_closer() {
    for s in ["null", "true", "false", "1", "-0.5e3", " 7 ", "\n null"] {
        let fixed = toolsift::repair(s.as_bytes()).unwrap();
        assert_eq!(fixed.json, s, "{s:?}");
        assert!(fixed.repairs.is_empty(), "{s:?}: {:?}", fixed.repairs);
    }
    // Cut inside a literal or a number: still reported.
    for (s, want) in [("nul", "null"), ("1e", "1"), ("[1", "[1]")] {
        let fixed = toolsift::repair(s.as_bytes()).unwrap();
        assert_eq!(fixed.json, want, "{s:?}");
        assert!(
            fixed.repairs.contains(toolsift::Repair::MissingClosers),
            "{s:?}"
        );
    }
}

/// repair_vs_serde: a trailing comma before a closer that matches no open container
/// (`{"a":2,]}`) left the repairer in its after-comma state with the comma already
/// dropped; the next closer sliced an empty buffer and panicked. Same for a missing
/// value (`{"a":]}`), which wrote `:null` twice.
#[test]
fn mismatched_closer_after_trailing_comma_or_missing_value() {
    for (s, want) in [
        ("{\"a\":2,]}", "{\"a\":2}"),
        ("{\"a\":true, ]}", "{\"a\":true }"),
        ("{\"a\":]}", "{\"a\":null}"),
        ("{\"a\" ]}", "{\"a\" :null}"),
        ("[1,}]", "[1]"),
    ] {
        let fixed = toolsift::repair(s.as_bytes()).unwrap();
        assert_eq!(fixed.json, want, "{s:?}");
        assert!(
            fixed.repairs.contains(toolsift::Repair::RedundantCloser),
            "{s:?}"
        );
    }
}

/// repair_vs_serde: a container where an object key belongs, right after a comma
/// (`[{x,[]]`), wrote the held comma and left the repairer in its after-comma state
/// with nothing held; the next closer sliced the empty buffer and panicked. A stray
/// container after a member (`{"a":1 [`) wrote a comma that the next member wrote again.
#[test]
fn stray_container_at_a_key_position() {
    for s in [
        &b"[{\xfd,[]]"[..],
        b"{\"a\":1 [\"b\":2}",
        b"{\"a\":1, [ \"b\":2}",
        b"{[}",
    ] {
        let fixed = toolsift::repair(s).unwrap();
        let v: serde_json::Value = serde_json::from_str(&fixed.json).unwrap();
        assert!(fixed.repairs.contains(toolsift::Repair::StrayText), "{s:?}");
        if s.starts_with(b"{\"a\"") {
            assert_eq!(v, serde_json::json!({"a": 1, "b": 2}), "{s:?}");
        }
    }
}

/// sse: the event bound was checked on raw bytes before invalid UTF-8 was replaced by
/// U+FFFD (three bytes for one), so an event could hold three times `max_event_bytes`.
#[test]
#[cfg(feature = "codec")]
fn sse_event_bound_counts_replaced_invalid_utf8() {
    use tokio_util::codec::Decoder;
    let mut dec = toolsift::sse::SseFrameDecoder::with_max_event_bytes(100);
    let mut body = bytes::BytesMut::from(&b"data: "[..]);
    body.extend_from_slice(&[0xff; 60]);
    body.extend_from_slice(b"\n\ndata: ok\n\n");
    let first = dec.decode(&mut body);
    assert!(first.is_err(), "60 invalid bytes keep 180: over the bound");
    let next = dec.decode(&mut body).unwrap().unwrap();
    assert_eq!(
        next.data, "ok",
        "the stream goes on after the oversized event"
    );
}

/// push and chunking: text around a stripped marker joined into a marker. `</tool_c`
/// was released as text when `<` showed it was not `</tool_call>`, the `</tool_call>`
/// that followed was stripped, and `all>` completed a new `</tool_call>` in the visible
/// text. Now text that could join is held until what follows the stripped marker decides.
#[test]
fn no_marker_spliced_around_a_stripped_marker() {
    let cases: [(toolsift::Dialect, &[u8], &str); 4] = [
        (toolsift::Dialect::Hermes, b"</tool_c</tool_call>all>", ""),
        (
            toolsift::Dialect::Hermes,
            b"a </tool_c</tool_call>xyz",
            "a </tool_cxyz",
        ),
        (
            toolsift::Dialect::Hermes,
            b"</tool_c</tool_call></tool_call>all> ok",
            " ok",
        ),
        (toolsift::Dialect::Auto, b"x</tool_c<|im_end|>all>y", "xy"),
    ];
    for (dialect, raw, want) in cases {
        let config = toolsift::Config::new(dialect);
        let cuts: Vec<usize> = (1..raw.len()).collect();
        for cuts in [&[][..], &cuts[..]] {
            let mut p = toolsift::Parser::with_config(config.clone());
            let mut text = String::new();
            let mut at = 0;
            for &cut in cuts.iter().chain([&raw.len()]) {
                p.push(&raw[at..cut]);
                at = cut;
                while let Some(ev) = p.next_event() {
                    if let toolsift::Event::Text(t) = ev {
                        text.push_str(t);
                    }
                }
            }
            p.finish(toolsift::StopReason::Stop);
            while let Some(ev) = p.next_event() {
                if let toolsift::Event::Text(t) = ev {
                    text.push_str(t);
                }
            }
            assert_eq!(
                text,
                want,
                "{dialect} {:?} in {} chunks",
                String::from_utf8_lossy(raw),
                cuts.len() + 1
            );
        }
    }
}

/// push: a call begun by a weak opener (Gemma's bare `call:` at the start of a line)
/// took its name before it had begun, so it was built with no index and no id: the
/// second call of `<|tool_call>call:ls{}<tool_call|>call:ls{}` came out as call 0 again,
/// with id "".
#[test]
fn weak_opener_call_gets_its_own_index_and_id() {
    for dialect in [toolsift::Dialect::Gemma4, toolsift::Dialect::Auto] {
        let mut p = toolsift::Parser::new(dialect);
        p.push(b"<|tool_call>call:ls{}<tool_call|>call:ls{}");
        p.finish(toolsift::StopReason::Stop);
        let mut started = Vec::new();
        while let Some(ev) = p.next_event() {
            if let toolsift::Event::CallStarted { index, id, .. } = ev {
                started.push((index.0, id.to_owned()));
            }
        }
        assert_eq!(
            started,
            [(0, "call_0".to_owned()), (1, "call_1".to_owned())],
            "{dialect}"
        );
    }
}

/// sse: an unfinished line was bounded by its raw length (field name included), a
/// finished one by its value alone, so a line near the bound was over it when split and
/// within it when whole. Both now use the raw line. And the ending of a line whose start
/// was dropped while split counted as a blank line, ending the discarded event early.
#[test]
#[cfg(feature = "codec")]
fn sse_bound_does_not_depend_on_the_split() {
    use tokio_util::codec::Decoder;
    let body = b"data: 0123456789\n\ndata: ok\n\n: a long comment line 0123456789\n\ndata: end\n\ndata: a line over the bound\ndata: same event\n\ndata: last\n\n";
    let decode = |cuts: &[usize]| {
        let mut dec = toolsift::sse::SseFrameDecoder::with_max_event_bytes(16);
        let mut buf = bytes::BytesMut::new();
        let mut out = Vec::new();
        let mut at = 0;
        for &cut in cuts.iter().chain([&body.len()]) {
            buf.extend_from_slice(&body[at..cut]);
            at = cut;
            loop {
                match dec.decode(&mut buf) {
                    Ok(Some(ev)) => out.push(Ok(ev.data)),
                    Ok(None) => break,
                    Err(e) => out.push(Err(e.category())),
                }
            }
        }
        out
    };
    let whole = decode(&[]);
    for cut in 1..body.len() {
        assert_eq!(decode(&[cut]), whole, "split at {cut}");
    }
    assert_eq!(decode(&(1..body.len()).collect::<Vec<_>>()), whole);
    assert!(whole.contains(&Ok("end".to_owned())), "{whole:?}");
    assert!(!whole.contains(&Ok("same event".to_owned())), "{whole:?}");
    assert_eq!(whole.last(), Some(&Ok("last".to_owned())), "{whole:?}");
}

/// push and chunking: after the previous fix, a weak opener past `max_calls` began its
/// call when its name arrived, the limit ended it at once, and the grammar's next write
/// found no open call and panicked ("a call is open"). Past the limit a weak opener is
/// now text.
#[test]
fn weak_opener_past_the_call_limit_is_text() {
    let mut config = toolsift::Config::new(toolsift::Dialect::Gemma4);
    config.limits.max_calls = 1;
    let mut p = toolsift::Parser::with_config(config);
    p.push(b"<|tool_call>call:ls{}<tool_call|>call:ls{a:1}\nafter");
    p.finish(toolsift::StopReason::Stop);
    let (mut released, mut text) = (0, String::new());
    while let Some(ev) = p.next_event() {
        match ev {
            toolsift::Event::CallFinished { .. } => released += 1,
            toolsift::Event::Text(t) => text.push_str(t),
            _ => {}
        }
    }
    assert_eq!(released, 1);
    assert_eq!(text, "call:ls{a:1}\nafter");
}

/// push (fixed): a marker spliced through two removals. `<tool` is released when `<|im_`
/// shows it is not `<tool_call>`; `</function>` is stripped (the text held for one join,
/// `<|im_`, then forms `<|im_end|>`, stripped too), and `_call>` completed `<tool_call>`
/// with the `<tool` already released. Now the joinable end of the shown text is kept
/// in front of the held bytes, and a marker that would begin in it is broken: `_call>`
/// is dropped.
#[test]
fn no_marker_spliced_through_two_removals() {
    let mut p = toolsift::Parser::new(toolsift::Dialect::Auto);
    p.push(b"<tool<|im_</function>end|>_call>\nx");
    p.finish(toolsift::StopReason::Stop);
    let mut text = String::new();
    while let Some(ev) = p.next_event() {
        if let toolsift::Event::Text(t) = ev {
            text.push_str(t);
        }
    }
    assert!(!text.contains("<tool_call>"), "{text:?}");
}

/// push and chunking (fixed with the two above): the rule for text on both sides of
/// removed markup. Bytes not shown yet join as if written contiguously (a marker they
/// form acts: the first cases); a marker that would begin in text already shown (after
/// nested removals, or across reasoning or a call, which is not held back) is broken:
/// its bytes after the removal are dropped. Whole, byte by byte and at every split.
#[test]
fn markers_joined_across_removed_markup() {
    use toolsift::Dialect::{Auto, Gemma4, Harmony, Hermes, Qwen3Coder};
    let cases: [(toolsift::Dialect, &[u8], &str); 14] = [
        // One removal: the held text joins and acts.
        (Hermes, b"</tool_c</tool_call>all>", ""),
        (
            Auto,
            b"x</tool_call:<end_function_response>opensource>y",
            "xy",
        ),
        (Hermes, b"a\n</tool_c<|im_end|>all>b", "a\nb"),
        // Nested removals: the shown `<tool` stays, what would complete it is dropped,
        // as often as it comes.
        (Auto, b"<tool<|im_</function>end|>_call>\nx", "<tool\nx"),
        (Auto, b"<tool<|im_</function>end|>_call>_call>ok", "<toolok"),
        (
            Hermes,
            b"<tool<<<|im_end|>|im_end|>|im_end|>_call>ok",
            "<tool<_call>ok",
        ),
        // Across reasoning (empty or not) and a call: the content is one text.
        (Hermes, b"<tool<think></think>_call>x", "<toolx"),
        (Hermes, b"<tool<think>a</think>_call>x", "<toolx"),
        (
            Hermes,
            b"<tool<tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>_call>x",
            "<toolx",
        ),
        (
            Qwen3Coder,
            b"ab</<think></think>function>all>\nx",
            "ab</all>\nx",
        ),
        (
            Harmony,
            b"ab<|con<|channel|>anal<|start|>ysis<|message|>strain|>\nx",
            "ab<|con\nx",
        ),
        // Two joinable ends in a row, after text (fuzz, fifth session): the text path
        // backed off the second (`<|tool_response` + `>`) but showed the first, which
        // then joined `|>` into `<|message|>` once the second had gone.
        (Auto, b"e<|message<|tool_response</invoke>>|>", "e<|message"),
        // A weak opener joined across a strip counts at a line start only, however split.
        (Gemma4, b"x ca<turn|>ll:f{}", "x "),
        (Gemma4, b"x\nca<turn|>ll:f{}", "x\n"),
    ];
    for (dialect, raw, want) in cases {
        let config = toolsift::Config::new(dialect);
        let events = support::check_all_chunkings(&config, raw, toolsift::StopReason::Stop)
            .unwrap_or_else(|e| panic!("{dialect} {:?}: {e}", String::from_utf8_lossy(raw)));
        let text: String = events
            .iter()
            .filter_map(|e| match e {
                toolsift::OwnedEvent::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(text, want, "{dialect} {:?}", String::from_utf8_lossy(raw));
    }
}

/// chunking: a character held across a split was completed by any continuation bytes
/// and replaced by one U+FFFD, while whole text followed `from_utf8` (`E0 80` is two
/// errors, since `80` cannot follow `E0`): the replacements depended on the split.
#[test]
fn invalid_utf8_replacement_does_not_depend_on_the_split() {
    for raw in [
        &b"a\xe0\x80b"[..],
        b"o\xf0\x90\xdf\x90\xdf\x90\xe2\x82 o",
        b"\xed\xa0\x80x\xf4\x90\x80\x80\xc3",
        b"\xe2\x82\xac\xe2\x82",
    ] {
        let run = |cuts: &[usize]| {
            let mut p = toolsift::Parser::new(toolsift::Dialect::Hermes);
            let mut text = String::new();
            let mut at = 0;
            for &cut in cuts.iter().chain([&raw.len()]) {
                p.push(&raw[at..cut]);
                at = cut;
                while let Some(ev) = p.next_event() {
                    if let toolsift::Event::Text(t) = ev {
                        text.push_str(t);
                    }
                }
            }
            p.finish(toolsift::StopReason::Stop);
            while let Some(ev) = p.next_event() {
                if let toolsift::Event::Text(t) = ev {
                    text.push_str(t);
                }
            }
            text
        };
        let whole = run(&[]);
        assert_eq!(whole, String::from_utf8_lossy(raw), "{raw:?}");
        for cut in 1..raw.len() {
            assert_eq!(run(&[cut]), whole, "{raw:?} split at {cut}");
        }
        assert_eq!(
            run(&(1..raw.len()).collect::<Vec<_>>()),
            whole,
            "{raw:?} bytes"
        );
    }
}

/// push and chunking: an array of calls in one Hermes envelope past `max_calls`: the
/// element over the limit was reported, then the grammar's next write for it found no
/// open call and panicked ("a call is open"). It is now dropped.
#[test]
fn envelope_array_past_the_call_limit() {
    let mut config = toolsift::Config::new(toolsift::Dialect::Hermes);
    config.limits.max_calls = 1;
    let mut p = toolsift::Parser::with_config(config);
    p.push(b"<tool_call>\n[{\"name\": \"a\", \"arguments\": {\"x\": 1}}, {\"name\": \"b\", \"arguments\": {\"y\": 2}}]\n</tool_call>after");
    p.finish(toolsift::StopReason::Stop);
    let (mut released, mut over, mut text) = (0, 0, String::new());
    while let Some(ev) = p.next_event() {
        match ev {
            toolsift::Event::CallFinished { .. } => released += 1,
            toolsift::Event::CallNotReleased { reason, .. } => {
                assert_eq!(reason, toolsift::NotReleasedReason::LimitExceeded);
                over += 1;
            }
            toolsift::Event::Text(t) => text.push_str(t),
            _ => {}
        }
    }
    assert_eq!((released, over), (1, 1));
    assert!(text.ends_with("after"), "{text:?}");
}

/// push: `auto` locking onto a dialect while a call written inside reasoning was open
/// (calls in reasoning extracted) rebuilt the reasoning tables, and the block's index
/// (Gemma's channel, second in `auto`) pointed past the locked dialect's one table:
/// index out of bounds when the call returned to the reasoning block.
#[test]
fn auto_lock_inside_reasoning_keeps_the_block() {
    let mut config = toolsift::Config::new(toolsift::Dialect::Auto);
    config = config.in_reasoning(toolsift::InReasoning::Extract);
    let mut p = toolsift::Parser::with_config(config);
    p.push(b"<|channel>thought<tool_call>\n{\"name\": \"f\", \"arguments\": {\"x\": 0}}\n</tool_call>more<channel|>after");
    p.finish(toolsift::StopReason::Stop);
    let (mut released, mut text, mut reasoning) = (0, String::new(), String::new());
    while let Some(ev) = p.next_event() {
        match ev {
            toolsift::Event::CallFinished { .. } => released += 1,
            toolsift::Event::Text(t) => text.push_str(t),
            toolsift::Event::Reasoning(t) => reasoning.push_str(t),
            _ => {}
        }
    }
    assert_eq!(released, 1);
    assert_eq!(reasoning, "more");
    assert_eq!(text, "after");
}

/// repair_vs_serde: a top-level string followed by blanks is decided only at the end of
/// the input; the blanks read past it were dropped, so `"a"\n` (the repair of `a\nb`)
/// came back without its newline.
#[test]
fn blanks_after_a_top_level_string_decided_at_the_end_are_kept() {
    for s in ["\"a\"\n", "\"a\"  ", "\"x y\" \n "] {
        let fixed = toolsift::repair(s.as_bytes()).unwrap();
        assert_eq!(fixed.json, s);
        assert!(fixed.repairs.is_empty());
    }
}

/// push (fixed; found at the end of the first session): in `auto`, pushed in chunks of
/// [1, 3, 7, 2, 5, 11], text around removed markers joined into `</tool_call:opensource>`
/// in the visible text. Cause: Gemma's weak opener `call:` inside `</tool_call:` was
/// rejected (not at a line start) by releasing the text before it, `</tool_`, so the
/// stripped `<end_function_response>` after it found nothing to hold, and `opensource>`
/// completed the marker. A rejected weak opener is now skipped by the search, leaving
/// the text before it undecided. The input is the fuzz artifact after its 8-byte header.
#[test]
fn marker_spliced_in_auto_hunyuan3() {
    let raw: &[u8] = &[
        60, 116, 111, 111, 108, 95, 99, 97, 108, 108, 58, 111, 112, 60, 47, 102, 117, 110, 99, 116,
        105, 111, 110, 95, 99, 101, 110, 115, 111, 117, 114, 99, 101, 62, 103, 101, 97, 104, 95,
        116, 116, 101, 119, 101, 114, 60, 97, 114, 103, 95, 107, 101, 121, 58, 111, 112, 101, 110,
        115, 111, 117, 114, 99, 101, 62, 99, 105, 116, 121, 60, 47, 97, 114, 103, 95, 107, 101,
        121, 58, 111, 112, 101, 110, 115, 111, 112, 101, 110, 115, 111, 117, 114, 99, 101, 62, 103,
        101, 116, 95, 119, 101, 97, 116, 104, 101, 114, 60, 97, 114, 103, 95, 107, 101, 121, 58,
        111, 112, 101, 110, 115, 111, 103, 95, 118, 97, 108, 117, 58, 101, 115, 112, 101, 111, 111,
        110, 117, 114, 99, 101, 62, 60, 47, 116, 111, 111, 108, 95, 99, 97, 108, 108, 58, 60, 101,
        110, 100, 95, 102, 117, 110, 99, 116, 105, 111, 110, 95, 114, 101, 115, 112, 111, 110, 115,
        101, 62, 111, 112, 101, 110, 115, 111, 117, 114, 99, 101, 62,
    ];
    let mut p = toolsift::Parser::new(toolsift::Dialect::Auto);
    let mut text = String::new();
    let mut at = 0;
    for n in [1usize, 3, 7, 2, 5, 11].iter().cycle() {
        if at >= raw.len() {
            break;
        }
        let end = (at + n).min(raw.len());
        p.push(&raw[at..end]);
        at = end;
        while let Some(ev) = p.next_event() {
            if let toolsift::Event::Text(t) = ev {
                text.push_str(t);
            }
        }
    }
    p.finish(toolsift::StopReason::Stop);
    while let Some(ev) = p.next_event() {
        if let toolsift::Event::Text(t) = ev {
            text.push_str(t);
        }
    }
    assert!(!text.contains("</tool_call:opensource>"), "{text:?}");
}

/// chunking (fixed; found at the end of the first session): Qwen3-Coder, a Hermes body
/// whose name string swallows the `"arguments"` key, then invalid bytes: `</parameter>`
/// (a marker Qwen3-Coder strips, so it ends an unfinished body) cut the call object, the
/// repairer closed it, and the call was released with `{}` (`missing_arguments`). `{}`
/// stands in only for arguments the model did not write: a call object that a marker
/// closed before the model did (even the call's own closer: the next finding had the
/// arguments swallowed the same way and then `</tool_call>`), with no arguments, is now
/// reported, not released (`invalid`; cut by the end of the stream, `truncated` as
/// before).
#[test]
fn garbled_body_cut_before_its_arguments_is_not_released() {
    let raw: &[u8] = &[
        10, 10, 60, 116, 111, 111, 108, 95, 99, 97, 108, 108, 62, 10, 123, 34, 110, 97, 109, 101,
        34, 58, 32, 34, 114, 109, 34, 34, 97, 32, 44, 114, 103, 117, 109, 101, 110, 116, 115, 34,
        58, 32, 123, 34, 112, 97, 116, 104, 34, 58, 32, 34, 47, 85, 115, 101, 114, 115, 47, 100,
        97, 118, 105, 100, 47, 109, 108, 120, 45, 115, 127, 97, 107, 47, 114, 117, 110, 115, 47,
        112, 105, 95, 95, 109, 108, 120, 45, 99, 111, 109, 109, 117, 110, 105, 116, 121, 95, 81,
        119, 101, 110, 51, 45, 48, 46, 54, 66, 45, 98, 102, 49, 54, 95, 95, 110, 101, 115, 116,
        101, 100, 45, 111, 98, 106, 101, 45, 116, 99, 97, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        60, 47, 112, 97, 114, 97, 109, 101, 116, 101, 114, 62, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 114, 115, 47, 100, 97,
        118, 105, 100, 47, 109, 108, 120, 45, 115, 127, 97, 107, 47, 114, 117, 110, 115, 47, 112,
        105, 95, 95, 109, 108, 120, 45, 99, 111, 109, 109, 117, 110, 105, 116, 121, 95, 81, 119,
        101, 110, 51, 45, 48, 46, 54, 66, 45, 98, 102, 49, 54, 95,
    ];
    let mut p = toolsift::Parser::new(toolsift::Dialect::Qwen3Coder);
    p.push(raw);
    p.finish(toolsift::StopReason::Stop);
    let mut reported = 0;
    while let Some(ev) = p.next_event() {
        match ev {
            toolsift::Event::CallFinished { arguments, .. } => panic!("released {arguments:?}"),
            toolsift::Event::CallNotReleased { reason, .. } => {
                assert_eq!(reason, toolsift::NotReleasedReason::Invalid);
                reported += 1;
            }
            _ => {}
        }
    }
    assert_eq!(reported, 1);
}

/// The rule of the test above, by case: `{}` for a call object the model finished
/// without arguments; a call object a marker closed before its arguments is reported,
/// never `{}`; one cut inside its arguments keeps what was written (the marker's closers
/// are a repair). A name+args body: `{}` when its closer follows the separator, reported
/// when another marker does.
#[test]
fn no_empty_arguments_for_a_call_cut_before_them() {
    use toolsift::Dialect::{Hermes, KimiK2, Mistral, Qwen3Coder};
    // (dialect, raw, released arguments, or None for reported)
    let cases: [(toolsift::Dialect, &str, Option<&str>); 17] = [
        (
            Hermes,
            r#"<tool_call>{"name": "f"}</tool_call>"#,
            Some("{}"),
        ),
        (Hermes, r#"<tool_call>{"name": "f"</tool_call>"#, None),
        (
            Hermes,
            r#"<tool_call>{"name": "f", "arguments": </tool_call>"#,
            None,
        ),
        (Hermes, r#"<tool_call>{"name": "f"} <|im_end|>"#, Some("{}")),
        (
            Hermes,
            r#"<tool_call>{"name": "f", "arguments": null}</tool_call>"#,
            Some("{}"),
        ),
        (
            Hermes,
            r#"<tool_call>{"name": "f", "arguments": null}<|im_end|>"#,
            Some("{}"),
        ),
        (Hermes, r#"<tool_call>{"name": "f"<|im_end|>"#, None),
        (
            Hermes,
            r#"<tool_call>{"name": "f", "arguments": <|im_end|>"#,
            None,
        ),
        (
            Hermes,
            r#"<tool_call>{"name": "f", "arguments": null <|im_end|>"#,
            None,
        ),
        (
            Hermes,
            r#"<tool_call>{"name": "f", "arguments": {"a": 1<|im_end|>"#,
            Some(r#"{"a": 1}"#),
        ),
        (
            Qwen3Coder,
            r#"<tool_call>{"name": "f", "x": 1</parameter>"#,
            None,
        ),
        (Mistral, "[TOOL_CALLS]f[ARGS]</s>", None),
        (Mistral, r#"[TOOL_CALLS][{"name": "f"</s>"#, None),
        (
            KimiK2,
            "<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|><|tool_call_end|>",
            Some("{}"),
        ),
        (
            KimiK2,
            "<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|><|im_end|>",
            None,
        ),
        // An array: the finished element is released, the cut one reported.
        (
            Hermes,
            r#"<tool_call>[{"name": "a"}, {"name": "f"<|im_end|>"#,
            None,
        ),
        (
            Hermes,
            r#"<tool_call>[{"name": "a"}, {"name": "f"}<|im_end|>"#,
            Some("{}"),
        ),
    ];
    for (dialect, raw, want) in cases {
        let config = toolsift::Config::new(dialect);
        let events =
            support::check_all_chunkings(&config, raw.as_bytes(), toolsift::StopReason::Stop)
                .unwrap_or_else(|e| panic!("{dialect} {raw:?}: {e}"));
        let outcome = events.iter().rev().find_map(|e| match e {
            toolsift::OwnedEvent::CallFinished { arguments, .. } => Some(Some(arguments.as_str())),
            toolsift::OwnedEvent::CallNotReleased { reason, .. } => {
                assert_eq!(*reason, toolsift::NotReleasedReason::Invalid, "{raw:?}");
                Some(None)
            }
            _ => None,
        });
        assert_eq!(outcome, Some(want), "{dialect} {raw:?}");
    }
}

/// Found while fixing the splices above (by reading, not by a fuzzer): at `finish`, the
/// bytes held at the end of a reasoning block were read with the text markers and a
/// lone `<` came out as visible text.
#[test]
fn held_reasoning_at_the_end_stays_reasoning() {
    for (raw, open) in [(&b"<think>abc <"[..], false), (b"abc <", true)] {
        let mut config = toolsift::Config::new(toolsift::Dialect::Hermes);
        config.reasoning_open = open;
        let events = support::check_all_chunkings(&config, raw, toolsift::StopReason::Stop)
            .unwrap_or_else(|e| panic!("{:?}: {e}", String::from_utf8_lossy(raw)));
        let reasoning: String = events
            .iter()
            .filter_map(|e| match e {
                toolsift::OwnedEvent::Reasoning(t) => Some(t.as_str()),
                toolsift::OwnedEvent::Text(t) => panic!("text {t:?}"),
                _ => None,
            })
            .collect();
        assert_eq!(reasoning, "abc <");
    }
}

/// chunking (fixed; found in the run after the fixes above): in `auto`, Kimi's weak
/// opener `functions.` at a line start began a call whose name took in `<`, `|`, `>`
/// (bytes of its separator); the space after rejected it, and the opener and name were
/// emitted as text unread: `functions.py<|tool_call> later.` showed Gemma's opener, and
/// `functions.f<|im_end|>` an end-of-turn token. The rejected bytes are now read as text
/// (after the opener's first byte), so the markers in them act.
#[test]
fn rejected_weak_call_bytes_are_read_as_text() {
    let cases: [(&[u8], &str, usize); 4] = [
        (
            b"Edit the f{\0ile\nfunctions.py<|tool_call> later.",
            "Edit the f{\0ile\nfunctions.py",
            1,
        ),
        (b"functions.f<|im_end|> ok", "functions.f ok", 0),
        (b"functions.f</tool_call> ok", "functions.f ok", 0),
        (b"x\ncall:f<|im_end|> y", "x\ncall:f y", 0),
    ];
    for (raw, want, reported) in cases {
        let config = toolsift::Config::new(toolsift::Dialect::Auto);
        let events = support::check_all_chunkings(&config, raw, toolsift::StopReason::Stop)
            .unwrap_or_else(|e| panic!("{:?}: {e}", String::from_utf8_lossy(raw)));
        let text: String = events
            .iter()
            .filter_map(|e| match e {
                toolsift::OwnedEvent::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        let not_released = events
            .iter()
            .filter(|e| matches!(e, toolsift::OwnedEvent::CallNotReleased { .. }))
            .count();
        assert_eq!((text.as_str(), not_released), (want, reported), "{raw:?}");
    }
}

/// chunking (fixed; found in the run after the fix above, minimized by `cargo fuzz
/// tmin`): a call object closed by the call's own `</tool_call>` with no arguments was
/// still released with `{}`, here after a garbled start that a model's arguments could
/// as well have been lost in. And since the closer was only read at `finish` (the
/// look-ahead held it), the call also got `missing_closer`. Now it is reported, with no
/// `missing_closer`.
#[test]
fn call_object_closed_by_its_closer_without_arguments_is_reported() {
    let raw = b"<tool_call>{name\"\"/</tool_call>|";
    let config = toolsift::Config::new(toolsift::Dialect::Auto);
    let events = support::check_all_chunkings(&config, raw, toolsift::StopReason::Stop)
        .unwrap_or_else(|e| panic!("{e}"));
    let reported: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            toolsift::OwnedEvent::CallFinished { arguments, .. } => panic!("released {arguments}"),
            toolsift::OwnedEvent::CallNotReleased {
                reason, repairs, ..
            } => Some((*reason, repairs.contains(toolsift::Repair::MissingCloser))),
            _ => None,
        })
        .collect();
    assert_eq!(reported, [(toolsift::NotReleasedReason::Invalid, false)]);
}

/// chunking (fixed; found in this round's third run, minimized by `cargo fuzz tmin`; it
/// panicked before the round's changes too): `auto` with calls in reasoning extracted
/// locked onto FunctionGemma when `<start_function_call>` began a call inside the
/// reasoning block: `start_call` locks while the mode is still the block's, which the
/// guard of `auto_lock_inside_reasoning_keeps_the_block` did not count as inside
/// reasoning, and the block's index then pointed past the locked tables: index out of
/// bounds. A lock from inside reasoning is now skipped there too.
#[test]
fn auto_lock_at_a_call_begun_inside_reasoning() {
    let mut config = toolsift::Config::new(toolsift::Dialect::Auto);
    config = config.reasoning_open(true);
    config = config.in_reasoning(toolsift::InReasoning::Extract);
    for raw in [
        &b"<start_function_call>{}|"[..],
        b"x<start_function_call>call:f{}<end_function_call>y",
    ] {
        support::check_all_chunkings(&config, raw, toolsift::StopReason::Stop)
            .unwrap_or_else(|e| panic!("{:?}: {e}", String::from_utf8_lossy(raw)));
    }
}

/// chunking (fixed; found in this round's fourth run, minimized by `cargo fuzz tmin`;
/// it failed before the round's changes too): a key without a value (`"arguments",`)
/// gets `null` from the repairer at once, before the byte that ends it. An output that
/// ended right after that `null` streamed it as argument bytes, while whole it was seen
/// complete and became `{}` with `missing_arguments`: the call's repairs, and even
/// whether it was released, depended on the split. A scalar arguments value is now
/// judged whole.
#[test]
fn scalar_arguments_are_judged_whole() {
    let config = toolsift::Config::new(toolsift::Dialect::Hermes);
    let raw = br#"<tool_call>{"arguments", "name": "f"}</tool_call>"#;
    let events = support::check_all_chunkings(&config, raw, toolsift::StopReason::Stop)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(events.iter().any(|e| matches!(e,
        toolsift::OwnedEvent::CallFinished { arguments, repairs, .. }
            if arguments == "{}" && repairs.contains(toolsift::Repair::MissingArguments))));
}

/// fuzz smoke, chunking (fixed): the strict fast path took a well-formed call object
/// pushed whole while the byte-at-a-time repairer, whose look-ahead reads past the
/// object, saw `<|actin=` (not a terminator) follow it and made the quote after the
/// name content. A value now takes the fast path only when a blank, a closer or a whole
/// terminator follows it (the same fix as the next test, found by the fuzz smoke run).
#[test]
fn strict_fast_path_needs_what_the_look_ahead_needs_after_the_value() {
    let raw: &[u8] = b"Sure. <functio|plugin|>\n{\"name\": \"get_weather\", \"parameters\": \
        {\"city\": \"Paris\"}}<|action_end|>\n<|action_start|><|plugin|>\n{\"name\": \
        \"get_weather\", \"parameters\": {\"city\": \"Tokyo\"}}<|actin=get_weather>\
        {\"city\": \"Paris\"}</function><function9get_weather>{\"city\": \"Tokyo\"}\
        </function><|eot_id|>";
    let config = toolsift::Config::new(toolsift::Dialect::Auto);
    let stop = toolsift::StopReason::Stop;
    let whole = support::merge(&support::run_cuts(&config, raw, &[], stop));
    let cuts: Vec<usize> = (1..raw.len()).collect();
    let bytes = support::merge(&support::run_cuts(&config, raw, &cuts, stop));
    assert_eq!(whole, bytes);
}

/// chunking (fourth round, found in its first run): the strict fast path
/// (`json/strict.rs`) took a well-formed call object pushed whole as read, but the
/// byte-at-a-time repairer also looks past the object: its last string's closing quote
/// ends the string only if the object is followed by a blank, a closer or the call's
/// terminator. Here `}<o/tol_call>` follows, so under any split `"main.go"` went on as a
/// string (`unescaped_quote`) and the call was cut, while whole it was projected and
/// rejected as not an object: the events depended on the split. The fast path now
/// leaves a value to the repairer unless what follows ends it for the look-ahead too.
#[test]
fn strict_path_needs_what_follows_the_value() {
    let config = toolsift::Config::new(toolsift::Dialect::Hermes);
    for raw in [
        &br#"<tool_call>{"name": "read_file", "arguments": "main.go"}<o/tol_call>"#[..],
        br#"<tool_call>{"name": "read_file", "arguments": "main.go"}</tool_call>"#,
        br#"<tool_call>{"name": "f", "arguments": {"a": "b"}}x</tool_call>"#,
        br#"<tool_call>{"name": "f", "arguments": {"a": "b"}} </tool_call>"#,
    ] {
        support::check_all_chunkings(&config, raw, toolsift::StopReason::Stop)
            .unwrap_or_else(|e| panic!("{:?}: {e}", String::from_utf8_lossy(raw)));
    }
}

/// chunking (fourth round, second run, minimized by `cargo fuzz tmin`): in Hermes (and
/// `auto`), `<tool_call><<` cut by the end of the stream reported `unquoted_string`
/// whole but not when split between the two `<`. The body sniff held the first `<` (it
/// may begin `<function=`); when the JSON body chosen then ended inside the held bytes,
/// the grammar became a bodiless sniff carrying the rest, and the call's repairs were
/// read as those of a sniff still choosing: none. Its repairer's repairs now count.
#[test]
fn held_angle_brackets_after_an_opener() {
    for (raw, dialect) in [
        (&b"\n<tool_call>\n<<"[..], toolsift::Dialect::Auto),
        (b"<tool_call><<", toolsift::Dialect::Hermes),
    ] {
        let config = toolsift::Config::new(dialect);
        support::check_all_chunkings(&config, raw, toolsift::StopReason::Stop)
            .unwrap_or_else(|e| panic!("{:?}: {e}", String::from_utf8_lossy(raw)));
    }
}

/// Found in review (no bug seen): grammars built on the repairer read a large push in
/// 64 KiB slices, and the envelope may take a call whole (strict path) or in slices. A
/// body longer than several slices, pushed whole, must end at the same byte and give
/// the same events as in small chunks, with the text after it intact.
#[test]
fn bodies_longer_than_a_grammar_slice_end_where_they_end() {
    let content = "0123456789abcdef".repeat(12 * 1024); // 192 KiB, three slices
    let cases: [(toolsift::Dialect, String); 4] = [
        (
            toolsift::Dialect::Hermes,
            format!("<tool_call>\n{{\"name\": \"w\", \"arguments\": {{\"c\": \"{content}\"}}}}\n</tool_call>after"),
        ),
        (
            toolsift::Dialect::Hermes,
            // Broken (a raw newline): the repairer reads it, slice by slice.
            format!("<tool_call>\n{{\"name\": \"w\", \"arguments\": {{\"c\": \"{content}\n\"}}}}\n</tool_call>after"),
        ),
        (
            toolsift::Dialect::Gemma4,
            format!("<|tool_call>call:w{{c:<|\"|>{content}<|\"|>}}<tool_call|>after"),
        ),
        (
            toolsift::Dialect::Pythonic,
            format!("[w(c=\"{content}\")]after"),
        ),
    ];
    let stop = toolsift::StopReason::Stop;
    for (dialect, raw) in cases {
        let config = toolsift::Config::new(dialect);
        let raw = raw.as_bytes();
        let whole = support::merge(&support::run_cuts(&config, raw, &[], stop));
        let cuts: Vec<usize> = (7..raw.len()).step_by(7).collect();
        let small = support::merge(&support::run_cuts(&config, raw, &cuts, stop));
        assert_eq!(whole, small, "{}", dialect.name());
        support::check(dialect, &whole).unwrap_or_else(|e| panic!("{}: {e}", dialect.name()));
        let released = whole.iter().any(|e| {
            matches!(e, toolsift::OwnedEvent::CallFinished { arguments, .. }
                if arguments.contains(content.as_str()))
        });
        assert!(released, "{}: {whole:?}", dialect.name());
        assert!(
            matches!(whole.iter().rev().find(|e| matches!(e, toolsift::OwnedEvent::Text(_))),
                Some(toolsift::OwnedEvent::Text(t)) if t.ends_with("after")),
            "{}",
            dialect.name()
        );
    }
}

/// The call path holds a backslash a chunk ends with inside a string argument: the
/// escape it begins, simple or not, whole or cut off by the end, reads as if unsplit.
#[test]
fn escapes_split_across_chunks_inside_a_string_argument() {
    use toolsift::{Config, Dialect, OwnedEvent, StopReason};
    // A long plain run first: the call path takes over once the repairer holds nothing.
    let long = "x".repeat(300);
    let call = |content: &str, end: &str| {
        format!(r#"<tool_call>{{"name": "w", "arguments": {{"c": "{long}{content}{end}"#)
    };
    let args = |content: &str| format!(r#"{{"c": "{long}{content}"}}"#);
    let escapes = r#"a\"b\\c\nd\te\/f\u00e9g\dh\\\\\u0041\\"#;
    let cases = [
        (
            call(escapes, r#""}}</tool_call>"#),
            StopReason::Stop,
            Some(args(&escapes.replace(r"\d", r"\\d"))),
        ),
        (call(r#"ab\"#, ""), StopReason::Length, None),
        (call(r#"ab\"#, ""), StopReason::Stop, None),
    ];
    for (raw, stop, want) in &cases {
        let (raw, stop, want) = (raw.as_str(), *stop, want.as_deref());
        let config = Config::new(Dialect::Hermes);
        let events = support::check_all_chunkings(&config, raw.as_bytes(), stop)
            .unwrap_or_else(|e| panic!("{raw:?}: {e}"));
        // Chunks of every size up to 9 at every offset: some begin inside the string
        // with nothing held and end with a backslash.
        let whole = support::merge(&events);
        for size in 2..=9 {
            for offset in 0..size {
                let cuts: Vec<usize> = (offset.max(1)..raw.len()).step_by(size).collect();
                let got = support::run_cuts(&config, raw.as_bytes(), &cuts, stop);
                support::check(Dialect::Hermes, &got).unwrap();
                assert_eq!(
                    support::merge(&got),
                    whole,
                    "{raw:?} in {size}-byte chunks from {offset}"
                );
            }
        }
        let outcome = events.iter().find_map(|e| match e {
            OwnedEvent::CallFinished { arguments, .. } => Some(Some(arguments.as_str())),
            OwnedEvent::CallNotReleased { .. } => Some(None),
            _ => None,
        });
        assert_eq!(outcome, Some(want), "{raw:?}");
    }
}

/// performance (fourth session): a quote in a value string followed by a byte no string
/// end can be followed by (`class="a"`) is read as content on the string path, with no
/// look-ahead. It must leave the string marked malformed, as a look-ahead's answer does:
/// with a schema, a later quote followed by an undeclared key is then content too. A
/// quote at a chunk's end takes the look-ahead, so every split must agree.
#[test]
fn a_quote_read_as_content_without_a_look_ahead_marks_the_string_malformed() {
    let tools = serde_json::json!([{"name": "write_file", "parameters": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}}
    }}]);
    let mut config = toolsift::Config::new(toolsift::Dialect::Hermes);
    config.tools = std::sync::Arc::new(toolsift::schema::Tools::from_value(&tools).unwrap());
    let raw = br#"<tool_call>{"name": "write_file", "arguments": {"path": "a.html", "content": "<p class="a">hi", "style": "x"}}</tool_call>"#;
    let events = support::check_all_chunkings(&config, raw, toolsift::StopReason::Stop)
        .unwrap_or_else(|e| panic!("{e}"));
    let args: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            toolsift::OwnedEvent::CallFinished { arguments, .. } => Some(arguments.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        args,
        [r#"{"path": "a.html", "content": "<p class=\"a\">hi\", \"style\": \"x"}"#]
    );
}

/// performance (fourth session): `\d` in a value string is kept as text (`\\d`) and
/// counted as a repair on the string path too, however the input is split.
#[test]
fn an_invalid_escape_on_the_string_path_is_kept_and_counted() {
    let config = toolsift::Config::new(toolsift::Dialect::Hermes);
    let raw =
        br#"<tool_call>{"name": "f", "arguments": {"re": "^\d+\w$", "n": "a\qb"}}</tool_call>"#;
    let events = support::check_all_chunkings(&config, raw, toolsift::StopReason::Stop)
        .unwrap_or_else(|e| panic!("{e}"));
    let finished: Vec<(&str, Vec<&str>)> = events
        .iter()
        .filter_map(|e| match e {
            toolsift::OwnedEvent::CallFinished {
                arguments, repairs, ..
            } => Some((
                arguments.as_str(),
                repairs.iter().map(|r| r.name()).collect(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        finished,
        [(
            r#"{"re": "^\\d+\\w$", "n": "a\\qb"}"#,
            vec!["invalid_escape"]
        )]
    );
}

/// review (fourth session): a quote or a backslash a chunk ends with inside a string
/// argument is held by the parser for the next chunk. When the stream ends there, the
/// call is cut: reported as not released, with the members it completed, the same at
/// every split (the held byte itself completes nothing: a member ends at `,` or `}`).
#[test]
fn a_call_cut_after_a_held_byte_is_reported_cut_at_every_split() {
    let config = toolsift::Config::new(toolsift::Dialect::Hermes);
    for raw in [
        &br#"<tool_call>{"name": "f", "arguments": {"a": "x", "b": "y""#[..],
        br#"<tool_call>{"name": "f", "arguments": {"a": "x", "b": "y"#,
    ] {
        let events = support::check_all_chunkings(&config, raw, toolsift::StopReason::Length)
            .unwrap_or_else(|e| panic!("{}: {e}", String::from_utf8_lossy(raw)));
        let completed: Vec<&str> = events
            .iter()
            .filter_map(|e| match e {
                toolsift::OwnedEvent::CallNotReleased { completed, .. } => Some(completed.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            completed,
            [r#"{"a": "x"}"#],
            "{}",
            String::from_utf8_lossy(raw)
        );
    }
}

/// chunking (`-jobs=2`, fourth session; left open then): in `hermes`,
/// `<tool_call>\n<function=W<|n{\n</function>\n` and the end of the stream released
/// `{}` with `missing_closers` among its repairs, and the oracle called it a call cut
/// off by the end of stream. It is not: the model closed the function element itself
/// (`</function>`, a body closer in a `<tool_call>` wrapper), so its begun arguments
/// keep what was written with the closers supplied, the rule of
/// `no_empty_arguments_for_a_call_cut_before_them`; only the wrapper's closer is
/// missing, a repair. The oracle now counts a body's closer at the end of the output
/// as the model's own end (`Dialect::body_closers`). The same body cut before its
/// closer is still truncated, whatever the stop reason.
#[test]
fn a_body_closed_by_its_own_closer_is_not_cut_off() {
    use toolsift::{Dialect, NotReleasedReason, OwnedEvent, Repair, StopReason};
    assert!(Dialect::Hermes
        .body_closers()
        .contains(&&b"</function>"[..]));
    // Qwen3-Coder strips `</function>` in text: a marker, not only a body closer.
    assert!(Dialect::Qwen3Coder.markers().contains(&&b"</function>"[..]));
    assert!(!Dialect::Qwen3Coder
        .body_closers()
        .contains(&&b"</function>"[..]));
    let config = toolsift::Config::new(Dialect::Hermes);
    for stop in [StopReason::Stop, StopReason::Length] {
        for (raw, released) in [
            ("<tool_call>\n<function=W<|n{\n</function>\n", true),
            ("<tool_call>\n<function=W>{\"a\": 1\n</function>\n", true),
            ("<tool_call>\n<function=W>{\"a\": 1\n", false),
        ] {
            // The whole run's events (every other split agrees with them).
            let events = support::check_all_chunkings(&config, raw.as_bytes(), stop)
                .unwrap_or_else(|e| panic!("{raw:?}: {e}"));
            let mut outcome = None;
            for ev in &events {
                match ev {
                    OwnedEvent::CallFinished { repairs, .. } => {
                        assert!(repairs.contains(Repair::MissingClosers), "{raw:?}");
                        outcome = Some(true);
                    }
                    OwnedEvent::CallNotReleased { reason, .. } => {
                        assert_eq!(*reason, NotReleasedReason::Truncated, "{raw:?}");
                        outcome = Some(false);
                    }
                    _ => {}
                }
            }
            assert_eq!(outcome, Some(released), "{raw:?} {stop:?}: {events:?}");
        }
    }
}

/// chunking (fifth session): in `auto`, a DeepSeek call whose arguments
/// (`{y": "/` and a stray byte) another marker of the dialect (`<｜tool▁sep｜>`) ended,
/// with `>` after it, was released at `finish` with `missing_closers`, and the oracle
/// called it cut off by the end of stream because the output does not end with a
/// marker. The marker supplied the closers (a repair, as for any marker that ends a
/// call's arguments), and `>` after it is shown as text: the stream went on after the
/// call. The oracle now also accepts a call that text follows. (Since `y"` followed
/// by a colon reads as a key that lost its opening quote, the found input's marker
/// falls inside a string; the string is closed here to keep the marker where
/// structure is expected.)
#[test]
fn a_call_ended_by_a_marker_then_text_is_not_cut_off() {
    use toolsift::{Dialect, OwnedEvent, Repair, StopReason};
    let raw = "<｜tool▁call▁begin｜>ger<｜tool▁sep｜>{\"y\": \"/\x10\" <｜tool▁sep｜>>";
    let config = toolsift::Config::new(Dialect::Auto);
    let events = support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop)
        .unwrap_or_else(|e| panic!("{e}"));
    let finished = events.iter().position(|e| {
        matches!(e, OwnedEvent::CallFinished { repairs, .. } if repairs.contains(Repair::MissingClosers))
    });
    let text = events
        .iter()
        .position(|e| matches!(e, OwnedEvent::Text(t) if t == ">"));
    assert!(
        matches!((finished, text), (Some(f), Some(t)) if f < t),
        "{events:?}"
    );
}

/// chunking: in an array body, a repair that writes nothing (a dropped redundant closer)
/// right after a call object's `}` was given to that call when both came in one chunk
/// and to none when split there, so the call's repairs depended on the chunking. A
/// repair now stands where the step that made it began.
#[test]
fn array_call_repairs_do_not_depend_on_the_chunking() {
    let raw = "Checking both. <|tools_prefix|>[{\"look<|im_end|> {\"order_id\": \"AP-2\"}}, \
               \x07\0\0\0\0\0\0\0{\"open_issue\":g\"], \"extra\": {\"n\": [1, {\"k\": null}]}}}]\
               <|t\u{3000}s_suffix|>";
    let config = toolsift::Config::new(toolsift::Dialect::Auto);
    support::check_all_chunkings(&config, raw.as_bytes(), toolsift::StopReason::Stop)
        .unwrap_or_else(|e| panic!("{e}"));
}

/// chunking: a call object with no arguments key, under a tight `max_args_bytes`, was
/// kept whole for reading its members when its output came in one piece, and dropped
/// (past the limit) when it came in several, so the report of the call (not released:
/// no name) depended on the chunking. The limit now applies to the object at its end.
#[test]
fn object_without_arguments_key_keeps_the_limit_however_cut() {
    let raw: &[u8] = b"\x00\x01\x03\x07\x02\x05\x0b\x00\x00\x01\x00\x00\x00<tool_call>\x0a{\"\x00\x00\x01\x03\x07\x8e\xe38\x8e\xe3\x00t|><tool_call>{\"name\": beditb, a\x02+\"gumen\x05\x0b\x00\x00\x00ts\": {py\"}]}}</toco_";
    let mut config = toolsift::Config::new(toolsift::Dialect::Hermes);
    config = config.limits(toolsift::Limits {
        max_args_bytes: 96,
        max_depth: 4,
        max_held_bytes: 24,
        lookahead: 12,
        max_calls: 2,
        max_name_bytes: 12,
    });
    config = config.invalid(toolsift::Invalid::HoldBack);
    support::check_all_chunkings(&config, raw, toolsift::StopReason::Stop)
        .unwrap_or_else(|e| panic!("{e}"));
}

/// chunking: a call not released because its one reading may have misread a raw string
/// reported as completed the members of that reading past the argument deltas it had
/// sent, so a client's deltas and the report disagreed. It reports only what was sent.
#[test]
fn a_misread_call_reports_only_what_it_sent() {
    let raw: &[u8] = b"\x00<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>\n<tool_call>\n{\"name\": \"g\", \"argumentsnk>\x00<\": \"g\", \"arguments\": {\"a\": \"x \": {\"a\": \"x \"y\" z\"}}\n</tool_call>";
    let config = toolsift::Config::new(toolsift::Dialect::Qwen3Coder);
    let cuts = [1, 79, 82, 89, 91];
    let events = support::run_cuts(&config, raw, &cuts, toolsift::StopReason::Stop);
    let mut sent = String::new();
    for event in &events {
        match event {
            toolsift::OwnedEvent::ArgsDelta { index, fragment } if index.0 == 1 => {
                sent.push_str(fragment)
            }
            toolsift::OwnedEvent::CallNotReleased { completed, .. } => {
                assert!(
                    sent.starts_with(completed.trim_end_matches('}')) || completed == "{}",
                    "completed {completed:?}, sent {sent:?}"
                );
            }
            _ => {}
        }
    }
    support::check_all_chunkings(&config, raw, toolsift::StopReason::Stop)
        .unwrap_or_else(|e| panic!("{e}"));
}

/// chunking (`../shared/fuzz-findings/chunking-08df6fb1`): text after a call's body,
/// held while the closer may still come, is bounded by `max_args_bytes`. The bound was
/// judged at the end of each chunk and a marker found in the same chunk won, so a
/// closer (or the next call's opener) completed past the bound ended the held text in
/// the input pushed whole and not in a chunking that ended past the bound. The bound
/// is met at the byte that passes it: a marker counts only if it is complete by then.
#[test]
fn held_text_after_a_body_meets_the_size_limit_at_the_same_byte_however_cut() {
    use toolsift::{Config, Dialect, InReasoning, Limits, OwnedEvent, StopReason};
    let max = 96;
    // The body ends at `-` (`>` cannot go on a bare value); from `>` on the text is held.
    let opener = "<tool_call>-";
    let closer = "</tool_call>";
    let next_call = "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>";
    for dialect in [Dialect::Hermes, Dialect::Xlam, Dialect::Auto] {
        for in_reasoning in [false, true] {
            let mut config = Config::new(dialect).limits(Limits {
                max_args_bytes: max,
                ..Limits::default()
            });
            if in_reasoning {
                config = config
                    .reasoning_open(true)
                    .in_reasoning(InReasoning::Extract);
            }
            for filler in (max - 14..max - 8).chain([max + 8]) {
                for (after, marker) in [(closer, closer), (next_call, "<tool_call>")] {
                    let raw = format!("{opener}>{}{after}", "a".repeat(filler));
                    let events =
                        support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop)
                            .unwrap_or_else(|e| {
                                panic!("{dialect}, reasoning {in_reasoning}, {raw:?}: {e}")
                            });
                    // The held text is `>`, the filler, then the marker: in time when it
                    // is complete at most one byte past the bound.
                    let in_time = 1 + filler + marker.len() <= max + 1;
                    let shown: String = events
                        .iter()
                        .filter_map(|e| match e {
                            OwnedEvent::Text(t) | OwnedEvent::Reasoning(t) => Some(t.as_str()),
                            _ => None,
                        })
                        .collect();
                    if in_reasoning && after == closer {
                        // In reasoning a closer read as text stays (nothing strips it).
                        assert_eq!(
                            shown.contains(closer),
                            !in_time,
                            "{dialect}, filler {filler}: {shown:?}"
                        );
                    }
                    // Before its closer, in time, the text was the rest of the call's
                    // body (not released: `-` is no call): not shown. Past the bound,
                    // or before another call's opener, it is text.
                    let swallowed = in_time && after == closer;
                    assert_eq!(
                        shown.starts_with('>') && shown.contains(&"a".repeat(filler)),
                        !swallowed,
                        "{dialect}, reasoning {in_reasoning}, filler {filler}: {shown:?}"
                    );
                }
            }
        }
    }
}

/// chunking (found by the 10-minute run of this round): a call body chosen by sniffing
/// (`<tool_call>` then JSON or XML) that ended inside the bytes held while sniffing
/// left no JSON grammar behind, so the text after it was not held as a body that may
/// have gone on: the call got `missing_closer` in one chunking and not in another. A
/// JSON call object is judged one, however its bytes were split.
#[test]
fn a_sniffed_json_body_ending_where_it_was_chosen_may_go_on_like_any_other() {
    use toolsift::Dialect::{Auto, Hermes, Qwen3Coder};
    let cases: [(&[u8], &[toolsift::Dialect]); 4] = [
        // The finding, then the form it was minimized to (XML markup in them is text
        // under Hermes).
        (
            b"<tool_call>\n<function}Glob>\n<parameter=pattern>\n/Users/david/mlx-soak/(uns/whisperer_model_code.json\n</parameter>\n</function>\n</tool_call>",
            &[Qwen3Coder, Auto],
        ),
        (b"<tool_call><<parameter=</tool_call>", &[Qwen3Coder, Auto]),
        (
            b"<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}} tail\"}}</tool_call>",
            &[Hermes, Qwen3Coder, Auto],
        ),
        (
            b"<tool_call>[{\"name\": \"f\", \"arguments\": {}}]x\"}}</tool_call> after",
            &[Hermes, Qwen3Coder, Auto],
        ),
    ];
    for (raw, dialects) in cases {
        for &dialect in dialects {
            let config = toolsift::Config::new(dialect);
            support::check_all_chunkings(&config, raw, toolsift::StopReason::Stop)
                .unwrap_or_else(|e| panic!("{dialect} {:?}: {e}", String::from_utf8_lossy(raw)));
        }
    }
}

/// chunking (found by the 10-minute run of this round; a KNOWN FAILURE, ignored): a
/// call whose competing readings forked (a weak quote) ends its primary reading, then a
/// closing tag follows (`</n>`, a misspelled closer). The closer misspelled is the
/// call's closer unless the real one follows it; the readings decide that on the bytes
/// read so far (`follow` in src/grammar/envelope/readings.rs), so a chunk that ends
/// right after the tag takes it for the closer and the input pushed whole does not:
/// repairs and visible text differ with the split. Waiting for the real closer instead
/// makes both inputs pass, but then text after a misspelled closer waits for the end of
/// the stream and, past `max_args_bytes`, is skipped with the call: the readings need
/// the held-text rule of `Parser::held_text` (release as text at the limit). The
/// `engine` branch rewrites the readings (issue 35); un-ignore this test there.
#[test]
#[ignore = "known failure: the forked readings judge a misspelled closer on the bytes of the chunk (issue 35)"]
fn a_misspelled_closer_after_a_forked_body_is_judged_by_what_follows_however_cut() {
    let cases: [&[u8]; 2] = [
        b"<tool_call>{r>\n{s\"\n\"}}</n></tool_call>",
        // The finding as found (Hermes, default settings).
        b"<tool_call>\n{\"name\"\x02\x00\x01\x03\x07\x02\x05\x0b\x00\x00\x00\x00\x00\x00Now I can use the Edit tool with the exact strings in the file to modify the three occurrences.\n\n<tool_call>\n<function=Edit>\n<parameter=file_path>\n/Users/david/flags.js\n</parameter>\n<par: \"f\", \"arguments\": {\"s\": \"write </tool_callameter=old_string>\n  debug: false,\n</parameter>\n<parameter=new_string>\n  debug: true,\n</parameter>\xff\xe2\x8e8\xe3\x8e8\xe3ion>\n</tool_call>\n<tool_call>\n<function=Edit>\n<parameter=file_path>\n/Users/david/flags.js\n</parameter>\n<parameter=new_string>\nfuturespires: 7\n</parameter>\n<par: \"f\", \"arguments\": {\"s\": \"write </tool_callameter=old_string>\n  debug: false,\n</parameter>\n<parameter=new_string>\n  debug: true,\n</parameter>\xff\xe2\x8e8\xe3\x8e8\xe3ion>\n</tool_call>\n<tool_call>\n<function=Edit>\n<parameter=file_path>\n/Users/david/flags.js\n</parameter>\n<parameter=new_string>\nfuturespires: 7\n</parameter>\n<parameter=old_string>\nfulayout: 42\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=Edit>\n<parameter=file_path>\n/Users/david/flags.js\n</parameter>\n<parameter=new_string>\nfallback: 'none',\n</parameter>\n<parameter=old_> here\"}}\n</tool_castring>\nfallback: null,\n</parameter>\n</function>\n\n<parameter=old_string>\nfulayout: 42\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=Edit>\n<parameter=file_path>\n/Users/david/flags.js\n</parameter>\n<parameter=new_string>\nfallback: 'none',\n</parameter>\n<parameter=old_> here\"}}\n</tool_castring>\nfallback: null,\n</parameter>\n</function>\n</tool_llcall>>",
    ];
    let config = toolsift::Config::new(toolsift::Dialect::Hermes);
    for raw in cases {
        support::check_all_chunkings(&config, raw, toolsift::StopReason::Stop)
            .unwrap_or_else(|e| panic!("{:?}: {e}", String::from_utf8_lossy(raw)));
    }
}

/// Under `auto`, Python calls in a ```tool_call fence whose strings were repaired (a
/// quote taken as content, a raw control character), then the fence written twice:
/// pushed whole the second ``` is lost from the text, pushed in pieces it is shown
/// (known failure `doubled-fence-after-a-repaired-fenced-call`, found by ten-minute
/// chunking runs, shrunk; issue 35).
#[test]
#[ignore = "known failure: a doubled fence after a repaired fenced call shows or not with the split (issue 35)"]
fn a_doubled_fence_after_a_repaired_fenced_call_is_shown_however_cut() {
    let cases: [&[u8]; 2] = [
        b"```tool_callt(\"\"\"\")\nd(''');``````",
        b"```tool_callt(\"\x1b\")\nn(\"\x1b\")\nr``````",
    ];
    let config = toolsift::Config::new(toolsift::Dialect::Auto);
    for raw in cases {
        support::check_all_chunkings(&config, raw, toolsift::StopReason::Stop)
            .unwrap_or_else(|e| panic!("{:?}: {e}", String::from_utf8_lossy(raw)));
    }
}

/// readings (found by the 10-minute run of this round): a file written into a call with
/// its backslashes raw holds `\ud800` as text; read as an escape it is a lone surrogate,
/// no character, and was replaced by U+FFFD: the call was released with content the
/// file does not have. A lone surrogate escape keeps its backslash, as an invalid escape
/// does, so the text comes back as written, wherever it stands in the string.
#[test]
fn a_lone_surrogate_escape_is_the_text_as_written() {
    use toolsift::{Config, Dialect, OwnedEvent, StopReason};
    for (written, meant) in [
        (
            r"light an\ud800, no framework",
            r"light an\ud800, no framework",
        ),
        (r"low \udc00 half", r"low \udc00 half"),
        (r"high \ud83d then \u0041", r"high \ud83d then A"),
        (r"a pair \ud83d\ude00 stays", "a pair \u{1f600} stays"),
    ] {
        let raw = format!(
            "<tool_call>{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"a.css\", \"content\": \"/* {written} */\\n:root {{}}\"}}}}</tool_call>"
        );
        for dialect in [Dialect::Hermes, Dialect::Auto] {
            let events = support::check_all_chunkings(
                &Config::new(dialect),
                raw.as_bytes(),
                StopReason::Stop,
            )
            .unwrap_or_else(|e| panic!("{raw:?}: {e}"));
            let content = events.iter().find_map(|e| match e {
                OwnedEvent::CallFinished { arguments, .. } => {
                    let v: serde_json::Value = serde_json::from_str(arguments).unwrap();
                    Some(v["content"].as_str().unwrap().to_owned())
                }
                _ => None,
            });
            assert_eq!(
                content.as_deref(),
                Some(format!("/* {meant} */\n:root {{}}").as_str()),
                "{dialect} {raw:?}"
            );
        }
    }
    let fixed = toolsift::repair(br#"["\ud800"]"#).unwrap();
    assert_eq!(fixed.json, r#"["\\ud800"]"#);
    assert!(fixed.repairs.contains(toolsift::Repair::LoneSurrogate));
}

/// push (found by the 10-minute run of this round): a call cut mid-stream by a limit
/// (`max_args_bytes`; also the depth and held-bytes limits) reported as completed a
/// member whose closing quote its deltas still held back, undecided (the quote may
/// not end the string): the report said more than the deltas and more than was known.
/// It reports its members only as far as it sent them, as an ambiguous call does.
#[test]
fn a_call_cut_by_a_limit_reports_its_members_only_as_far_as_it_sent_them() {
    use toolsift::{Config, Dialect, Invalid, Limits, StopReason, Tools, UnknownTool};
    // The fuzz target's tight limits and tools, unknown tools forwarded, invalid calls
    // held back; `auto`.
    let tools = r#"[{"type":"function","function":{"name":"write_file","parameters":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}}},
        {"type":"function","function":{"name":"read_file","parameters":{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"},"recursive":{"type":"boolean"},"tags":{"type":"array","items":{"type":"string"}}},"required":["path"]}}}]"#;
    let raw: &[u8] = b"[g\x00\x00\x00\x00\x00\x00\x00\x00<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"\\vb'evb'v\x02\"q\\\"\"}}</toot_weather(cil_call>ty='San Francisco', met and afteric='cel='rSan F";
    for open in [false, true] {
        let config = Config::new(Dialect::Auto)
            .reasoning_open(open)
            .limits(Limits {
                max_args_bytes: 96,
                max_depth: 4,
                max_held_bytes: 24,
                lookahead: 12,
                max_calls: 2,
                max_name_bytes: 12,
            })
            .tools(Tools::from_json(tools.as_bytes()).unwrap())
            .unknown_tool(UnknownTool::Forward)
            .invalid(Invalid::HoldBack);
        support::check_all_chunkings(&config, raw, StopReason::Stop)
            .unwrap_or_else(|e| panic!("reasoning open {open}: {e}"));
    }
}

/// chunking (found by the 10-minute run of this round): the same for a call cut by the
/// end of the stream (`length`): bytes the deltas held back were decided only by the
/// end, after the call had stopped, and the report counted them as completed members
/// the client never saw. Checked here on the finding, whole, byte at a time and in the
/// chunking that found it.
#[test]
fn a_call_cut_by_the_end_of_the_stream_reports_its_members_only_as_far_as_it_sent_them() {
    use toolsift::{Config, Dialect, InReasoning, Invalid, OwnedEvent, StopReason, UnknownTool};
    let raw: &[u8] = b"\xff\xff\x01\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xba\xff\xff\xff\xff\xff\xff\xff\xff\xd7\xff\xff\xff\xff\xff\x03\x00\x01\x03\x07\x02\x05\x0b\x00\x00\x00\x00\x00\x00<|tool_call>call:write{con\xff\xff\xff\xff\xff\x00\x00\x01\x03\x07\x02\x05\x0b\x00\x00\x00\xb3\x00\x00\x00<\xef\xbd\x9cDS\xe2\x80\x82ML\xef\xbd\x9cfunc[ion_calls>\n<\xef\xbd\x9cDSML\xef\xbd\x9cinvoke name=\"wri\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x0b\x00\x00\x00\x00\x06\x00\x00<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": [[[[[[[[[[[\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n[\"name\": \"get_weather\", \"arguments\": {\"city\": ML\xef\xbd\x9cpara|meter na]]]]]]]]]]]]]]]]]me=\x02c]]]]\x00ntent\" string=]]]]]]]]]]>\"true\"]]}}\n</tool_ca>ll>abc";
    let config = Config::new(Dialect::Qwen3Coder)
        .in_reasoning(InReasoning::Extract)
        .unknown_tool(UnknownTool::Forward)
        .invalid(Invalid::HoldBack);
    let found = [117usize, 101, 1, 0, 1, 3];
    let mut cuts = Vec::new();
    let (mut at, mut i) = (0, 0);
    while at < raw.len() {
        at += (found[i % 6] % 65).min(raw.len() - at);
        if at < raw.len() && found[i % 6] % 65 > 0 {
            cuts.push(at);
        }
        i += 1;
    }
    for cuts in [Vec::new(), (1..raw.len()).collect(), cuts] {
        let events = support::run_cuts(&config, raw, &cuts, StopReason::Length);
        let mut sent = std::collections::BTreeMap::<u32, String>::new();
        for event in &events {
            match event {
                OwnedEvent::ArgsDelta { index, fragment } => {
                    sent.entry(index.0).or_default().push_str(fragment)
                }
                OwnedEvent::CallNotReleased {
                    index, completed, ..
                } => {
                    let sent = sent.get(&index.0).map_or("", String::as_str);
                    assert!(
                        sent.is_empty()
                            || completed == "{}"
                            || sent.starts_with(completed.trim_end_matches('}')),
                        "completed {completed:?}, sent {sent:?}"
                    );
                }
                _ => {}
            }
        }
    }
}

/// Every call `output` releases, parsed whole by `dialect` with `write_file` declared:
/// (name, arguments).
fn released(dialect: toolsift::Dialect, output: &[u8]) -> Vec<(String, serde_json::Value)> {
    let config = toolsift::Config::new(dialect).tools(write_file_tools());
    let mut p = toolsift::Parser::with_config(config);
    p.push(output);
    p.finish(toolsift::StopReason::Stop);
    let mut out = Vec::new();
    while let Some(e) = p.next_event() {
        if let toolsift::OwnedEvent::CallFinished {
            name, arguments, ..
        } = e.into_owned()
        {
            out.push((name, serde_json::from_str(&arguments).unwrap()));
        }
    }
    out
}

/// readings: a Python string written with nothing escaped that holds its own quote and
/// paren (`')`) seems to end there, and the rest of the file follows the call's `)`: it
/// must not be released cut short, nor the rest dropped. A call's `)` is its end
/// only once a separator, the next call or the body's end follows
/// (tests/python_strings.rs covers the class in every Python form).
#[test]
fn a_raw_python_string_holding_its_closing_quote_is_not_released_cut() {
    let output = b"[write_file(path='a.txt', content='x = run(')\nlog \"current image\"\n')]";
    let meant =
        serde_json::json!({"path": "a.txt", "content": "x = run(')\nlog \"current image\"\n"});
    for (name, args) in released(toolsift::Dialect::Pythonic, output) {
        assert_eq!((name.as_str(), &args), ("write_file", &meant));
    }
}

/// readings (known failure `python-raw-string-then-a-call-line`,
/// fuzz/known_failures.json): in a body of one Python call per line, a raw string
/// holding `')` and then a line that reads as a call (`g(1)`) ends the call at `')`;
/// the next line begins a call, which releases the first one cut (issue 35).
#[test]
#[ignore = "known failure: a raw Python string holding `')` then a call-like line is released cut (issue 35)"]
fn a_raw_python_string_then_a_line_that_reads_as_a_call_is_not_released_cut() {
    use toolsift::render::{Arguments, Call, Strings, Style, Turn};
    let args = serde_json::json!({"path": "a.py", "content": "x = f(')\ng(1)\n"}).to_string();
    let meant: serde_json::Value = serde_json::from_str(&args).unwrap();
    let forms = toolsift::Dialect::ALL
        .iter()
        .flat_map(|d| d.forms())
        .filter(|f| f.arguments() == Arguments::Python);
    for form in forms {
        let turn = Turn::new().call(Call::new("write_file", &args));
        let style = Style::new().form(form.name()).strings(Strings::Raw);
        let output = form.dialect().render_with(&turn, &style).unwrap().output;
        for (name, got) in released(form.dialect(), output.as_bytes()) {
            assert_eq!((name.as_str(), &got), ("write_file", &meant), "{output:?}");
        }
    }
}

/// readings (a ten-minute run, DeepSeek V3.2): in a dialect whose calls end at their
/// function's closing tag (a section token closes the section), a value holding the
/// value's and the function's closing tags was released cut there. What follows the
/// function's closer up to the next call or the end of the stream holds the body's
/// markup: the body went on (tests/markup_in_values.rs covers every form of tags).
#[test]
fn a_value_holding_its_closing_markup_in_a_section_closed_dialect_is_not_released_cut() {
    use toolsift::render::{Call, Turn};
    let content = "</｜DSML｜parameter></｜DSML｜invoke>\nmore of the file\n";
    let args = serde_json::json!({"path": "a.txt", "content": content}).to_string();
    let turn = Turn::new().call(Call::new("write_file", &args));
    let output = toolsift::Dialect::DeepseekDsml
        .render(&turn)
        .unwrap()
        .output;
    let meant: serde_json::Value = serde_json::from_str(&args).unwrap();
    for (name, got) in released(toolsift::Dialect::DeepseekDsml, output.as_bytes()) {
        assert_eq!((name.as_str(), &got), ("write_file", &meant), "{output:?}");
    }
}

/// chunking (found by `.ci/run`'s fuzz step): after a call refused at its closer, the
/// text held to the call's bound met the arguments limit where the chunk ended, so how
/// much of it was the call's (up to the last closer) depended on the split. The limit is
/// met at the byte that passes it.
#[test]
fn the_text_after_a_refused_call_meets_the_limit_at_the_same_byte_however_cut() {
    let limits = toolsift::Limits {
        max_args_bytes: 96,
        ..toolsift::Limits::default()
    };
    let config = toolsift::Config::new(toolsift::Dialect::Qwen3Coder).limits(limits);
    let mut raw = b"<tool_call>\n<function=f>\n<parameter=a>\nx\n</parameter>\nnot a tag\n</function>\n</tool_call>\n".to_vec();
    for i in 0..12 {
        raw.extend_from_slice(format!("more text {i} </tool_call> and on\n").as_bytes());
    }
    support::check_all_chunkings(&config, &raw, toolsift::StopReason::Stop)
        .unwrap_or_else(|e| panic!("{e}"));
}

/// readings (found by `.ci/run`'s fuzz step): a file that begins with the dialect's
/// whole closing markup, written raw into an XML value, was released as an empty value.
/// What follows the call's closer up to its bound holds the closer again: the body went
/// on, so the call is not released (tests/markup_in_values.rs covers every tagged form).
#[test]
fn an_xml_value_opening_with_its_closing_markup_is_not_released_empty() {
    use toolsift::render::{Call, Turn};
    let content = "</parameter></function></tool_call></parameter>\nthe rest of the file\n";
    let args = serde_json::json!({"path": "a.txt", "content": content}).to_string();
    let turn = Turn::new().call(Call::new("write_file", &args));
    let output = toolsift::Dialect::Qwen3Coder.render(&turn).unwrap().output;
    let meant: serde_json::Value = serde_json::from_str(&args).unwrap();
    for (name, got) in released(toolsift::Dialect::Qwen3Coder, output.as_bytes()) {
        assert_eq!((name.as_str(), &got), ("write_file", &meant), "{output:?}");
    }
}

/// The same class mid-value (found by a ten-minute readings run): up to the markup the
/// output is a whole call, which was released with the file cut there and the rest
/// shown as text.
#[test]
fn an_xml_value_holding_its_closing_markup_back_to_back_is_not_released_cut() {
    use toolsift::render::{Call, Turn};
    let content = "06</arg_value></tool_call>-00T1 is it";
    let args = serde_json::json!({"path": "a.txt", "content": content}).to_string();
    let turn = Turn::new().call(Call::new("write_file", &args));
    let output = toolsift::Dialect::Glm.render(&turn).unwrap().output;
    let meant: serde_json::Value = serde_json::from_str(&args).unwrap();
    for (name, got) in released(toolsift::Dialect::Glm, output.as_bytes()) {
        assert_eq!((name.as_str(), &got), ("write_file", &meant), "{output:?}");
    }
}

/// MiniMax M3 reads a tag with or without its namespace marker. In a call that marks
/// every tag, a file holding its own key's tags bare (`</content>`, `<content>`) or the
/// function's closer bare (`</invoke>`) is text: the call is released with the whole
/// file (found by a ten-minute readings run).
#[test]
fn a_bare_tag_in_a_minimax_m3_value_is_text_when_the_call_marks_its_tags() {
    use toolsift::render::{Call, Turn};
    for content in [
        "{\"name\": \"push\", \"3s</content>\": 9310}\n<content>x",
        "see <invoke name=\"x\"> then </invoke>\n</tool_call> and a < b",
        "</content>",
    ] {
        let args = serde_json::json!({"path": "a.txt", "content": content}).to_string();
        let turn = Turn::new().call(Call::new("write_file", &args));
        let output = toolsift::Dialect::MinimaxM3.render(&turn).unwrap().output;
        let meant: serde_json::Value = serde_json::from_str(&args).unwrap();
        assert_eq!(
            released(toolsift::Dialect::MinimaxM3, output.as_bytes()),
            [("write_file".to_owned(), meant)],
            "{output:?}"
        );
    }
}

/// A MiniMax M3 call that marks its tags but drops the marker on one (the special
/// token not written) is still read, every tag as markup.
#[test]
fn a_minimax_m3_tag_without_its_marker_in_a_marked_call_is_still_markup() {
    let ns = "]<]minimax[>[";
    let output = format!(
        "{ns}<tool_call>\n{ns}<invoke name=\"write_file\">\n{ns}<path>a.txt</path>\n\
         {ns}<content>hello{ns}</content>\n{ns}</invoke>\n{ns}</tool_call>"
    );
    assert_eq!(
        released(toolsift::Dialect::MinimaxM3, output.as_bytes()),
        [(
            "write_file".to_owned(),
            serde_json::json!({"path": "a.txt", "content": "hello"})
        )]
    );
}

/// readings (found by a ten-minute run): a value holding the call's closer, then text,
/// then the call's opener (a file about tool calls) ended the call at that closer with
/// its value's and function's closers dropped; the call was released cut and the text
/// up to the opener shown. Text between them makes the two readings (a file, or a call
/// whose closers were dropped and the next call) impossible to tell apart: not
/// released (tests/markup_in_values.rs covers every tagged form).
#[test]
fn a_call_closer_inside_a_value_then_text_then_an_opener_is_not_released_cut() {
    use toolsift::render::{Call, Turn};
    let content = "abc HH:mm</tool_call>\n    more of the file\nTh<tool_call>e board</parameter>s.\nthe end\n";
    let args = serde_json::json!({"path": "a.txt", "content": content}).to_string();
    let turn = Turn::new().call(Call::new("write_file", &args));
    let output = toolsift::Dialect::Qwen3Coder.render(&turn).unwrap().output;
    let meant: serde_json::Value = serde_json::from_str(&args).unwrap();
    for (name, got) in released(toolsift::Dialect::Qwen3Coder, output.as_bytes()) {
        assert_eq!((name.as_str(), &got), ("write_file", &meant), "{output:?}");
    }
}

/// readings (found by a ten-minute run): a Gemma value holding its string delimiter,
/// a `}`, text and then the call's closer (`<escape>  } "\n,runs": [\n<end_function_call>`)
/// ended the call at that `}`; it was released cut and the text up to the closer shown.
/// Between a delimited body's `}` and its closer only blanks belong.
#[test]
fn a_delimited_value_holding_its_delimiter_brace_and_closer_is_not_released_cut() {
    use toolsift::render::{Arguments, Call, Style, Turn};
    let forms = toolsift::Dialect::ALL
        .iter()
        .flat_map(|d| d.forms())
        .filter(|f| matches!(f.arguments(), Arguments::Delimited));
    let mut seen = 0;
    for form in forms {
        seen += 1;
        let dialect = form.dialect();
        // The string delimiter, then the call's closer.
        let [delimiter, closer] = form.closing_markup() else {
            panic!("{dialect}: closing markup {:?}", form.closing_markup());
        };
        let content =
            format!("a = {{\n  x: 1{delimiter}  }} \" \n,runs\": [\n    {closer}more\n}}\n");
        let args = serde_json::json!({"path": "a.txt", "content": content}).to_string();
        let turn = Turn::new().call(Call::new("write_file", &args));
        let rendered = dialect
            .render_with(&turn, &Style::new().form(form.name()))
            .unwrap();
        let meant: serde_json::Value = serde_json::from_str(&args).unwrap();
        for (name, got) in released(dialect, rendered.output.as_bytes()) {
            assert_eq!(
                (name.as_str(), &got),
                ("write_file", &meant),
                "{:?}",
                rendered.output
            );
        }
        let config = toolsift::Config::new(dialect).tools(write_file_tools());
        let events = support::check_all_chunkings(
            &config,
            rendered.output.as_bytes(),
            toolsift::StopReason::Stop,
        )
        .unwrap();
        let text = support::shown(&events).text;
        assert_eq!(text, rendered.text, "{dialect}: {:?}", rendered.output);
    }
    // FunctionGemma and Gemma 4 at least: the check cannot pass on no form.
    assert!(seen >= 2, "{seen} delimited forms");
}

/// readings: a FunctionGemma value holding the dialect's markers (`<end_of_turn>`, a
/// delimiter) was held, and the text after the marker that ended it
/// (`  "<oughtRo<escape>}`) was shown. Found by the readings target once the real-file
/// ratchet for Gemma's raw + markup way reached 0 wrong (issue 35); the delimiter
/// followed by a word is the value's content now, as a `"` is in JSON.
#[test]
fn a_gemma_value_holding_its_markers_never_shows_the_call() {
    let raw = b"I'll write the file.\n<start_function_call>call:write_file{path:<escape>a.txt<escape>,content:<escape># !\x00\x02\x03\x03.........................................\x03\x03\x03\x03# Runs <turn|>   \"<|channel>th................<escape>.............\x03\x03\x03\x03# <end_of_turn>  \"<oughtRo<escape>}<end_function_call>";
    let config = toolsift::Config::new(toolsift::Dialect::FunctionGemma).tools(write_file_tools());
    let events = support::check_all_chunkings(&config, raw, toolsift::StopReason::Stop).unwrap();
    assert_eq!(support::shown(&events).text, "I'll write the file.\n");
}

/// Under `auto`, a call whose arguments the next call's opener cut (`{"": \0"` then
/// `<tool_call>`) is released there with its closers supplied, however the output is
/// cut: never held past that opener and released by the end of the stream as if it were
/// complete (found by the chunking fuzz target while a rule let a body whose reading had
/// invented structure go on in a dialect with no closer; the check is every run's in
/// `support::check_all_chunkings`).
#[test]
fn a_call_cut_by_the_next_opener_is_not_released_complete_at_the_end() {
    let raw = b"<|tool_call|>c<tool_call>{name\":\"S\",args\":{\"\":\0\"<tool_call>n";
    let config = Config::new(Dialect::Auto);
    let events = support::check_all_chunkings(&config, raw, StopReason::Stop).unwrap();
    let released: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            OwnedEvent::CallFinished { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(released, ["S"], "{events:?}");
}

/// readings (ten minutes, MiniMax M2, raw + markup; known failure
/// `tokenizer-artifact-in-a-file` in fuzz/known_failures.json): a file holding MiniMax's
/// namespace token `]<]minimax[>[` in the middle of its text, written raw into a value
/// of a dialect that knows the token, is released without it (`tokenizer_artifact`):
/// the token is dropped wherever it appears in the body. Released means the file as
/// written, or not released.
#[test]
#[ignore = "known failure: a dialect's tokenizer artifact inside a file's text is dropped from the value"]
fn a_file_holding_a_tokenizer_artifact_is_never_released_without_it() {
    use toolsift::render::{Arguments, Call, Turn};
    const NS: &str = "]<]minimax[>[";
    let content = format!("ccccccc{NS}ws=cccc's rows = [\"tls\"]\n");
    let args = serde_json::json!({"path": "a.txt", "content": content}).to_string();
    let meant: serde_json::Value = serde_json::from_str(&args).unwrap();
    let dialects = Dialect::ALL
        .iter()
        .filter(|d| d.markers().contains(&NS.as_bytes()))
        .filter(|d| matches!(d.forms()[0].arguments(), Arguments::Params { .. }));
    let mut seen = 0;
    for &dialect in dialects {
        let output = dialect
            .render(&Turn::new().call(Call::new("write_file", &args)))
            .unwrap()
            .output;
        for (_, got) in released(dialect, output.as_bytes()) {
            assert_eq!(got, meant, "{dialect}: {output:?}");
        }
        seen += 1;
    }
    assert!(seen > 0, "no dialect knows the token");
}

/// readings (Jamba, a file written with nothing escaped): a call whose arguments were
/// still open when its body ended (`Abort::Unclosed`) reported as completed members
/// what one reading held past the deltas sent (`content` closed at a later quote),
/// where a truncated call reports only what was sent. The same string in every form of
/// every dialect that writes JSON or Python arguments, in every way of writing it: every
/// invariant holds under every chunking (a not-released call's completed members are
/// among what was sent).
#[test]
fn an_unclosed_calls_completed_members_are_what_was_sent() {
    use toolsift::render::{Arguments, Call, Strings, Style, Turn};
    let content = "\" d:{e:\" l:\"\"}}{\",t\":\u{201c}\"";
    let args = serde_json::json!({"path": "a.txt", "content": content}).to_string();
    let config = Config::new(Dialect::Auto).tools(write_file_tools());
    let mut failures = Vec::new();
    let mut checked = 0;
    for &dialect in Dialect::ALL {
        let config = config.clone().dialect(dialect);
        for form in dialect.forms() {
            if !matches!(form.arguments(), Arguments::Json | Arguments::Python) {
                continue;
            }
            for strings in Strings::ALL {
                let style = Style::new().form(form.name()).strings(strings);
                let Ok(out) =
                    dialect.render_with(&Turn::new().call(Call::new("write_file", &args)), &style)
                else {
                    continue;
                };
                checked += 1;
                let raw = out.output.as_bytes();
                if let Err(e) = support::check_all_chunkings(&config, raw, StopReason::Stop) {
                    failures.push(format!("{dialect} ({}, {strings:?}): {e}", form.name()));
                }
            }
        }
    }
    assert!(checked > 100, "{checked} forms and ways");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// readings (ten minutes on 85940ce; known failure `delimited-value-holding-its-markup`
/// in fuzz/known_failures.json): a Gemma value holding its delimiter right before the
/// call's closer (`<|"|><tool_call|>`, the form's closing markup back to back) is
/// released cut there (`content` empty, `missing_closers`) and the rest of the call is
/// shown. The delimiter then the closer reads as the value's end, and the call's
/// unclosed object is supplied. Released means the file, or not released, with nothing
/// of the call shown; every form whose strings are delimited.
#[test]
#[ignore = "known failure: a Gemma value holding its delimiter then the call's closer is released cut"]
fn a_gemma_value_holding_its_delimiter_then_its_closer_is_never_released_cut() {
    use toolsift::render::{Arguments, Call, Style, Turn};
    let forms = Dialect::ALL
        .iter()
        .flat_map(|d| d.forms())
        .filter(|f| f.arguments() == Arguments::Delimited);
    let mut seen = 0;
    for form in forms {
        let content = form.closing_markup().concat();
        let args = serde_json::json!({"path": "a.txt", "content": content}).to_string();
        let turn = Turn::new()
            .text("I'll write the file.")
            .call(Call::new("write_file", &args));
        let rendered = form
            .dialect()
            .render_with(&turn, &Style::new().form(form.name()))
            .unwrap();
        let config = Config::new(form.dialect()).tools(write_file_tools());
        let events =
            support::check_all_chunkings(&config, rendered.output.as_bytes(), StopReason::Stop)
                .unwrap();
        let shown = support::shown(&events);
        let outcome = shown.outcome(&rendered.arguments[0], &rendered.text);
        assert!(
            !matches!(outcome, support::Outcome::Wrong(_)),
            "{}: {:?}: {outcome:?}",
            form.name(),
            rendered.output
        );
        seen += 1;
    }
    assert!(seen >= 2, "{seen} delimited forms");
}

/// The chunking fuzz target's header (`fuzz/fuzz_targets/common`): the setup (dialect,
/// flags), one chunking, then the output. Its config and stop reason, the chunk sizes,
/// and the output.
fn fuzz_input(data: &[u8]) -> (Config, StopReason, Vec<usize>, &[u8]) {
    use std::sync::Arc;
    use toolsift::{InReasoning, Invalid, Limits, Tools, UnknownTool};
    const TOOLS: &str = r#"[
 {"type":"function","function":{"name":"write_file","parameters":{"type":"object",
   "properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}}},
 {"type":"function","function":{"name":"read_file","parameters":{"type":"object",
   "properties":{"path":{"type":"string"},"limit":{"type":"integer"},"recursive":{"type":"boolean"},
   "tags":{"type":"array","items":{"type":"string"}}},"required":["path"]}}}
]"#;
    let all: Vec<Dialect> = std::iter::once(Dialect::Auto)
        .chain(Dialect::ALL.iter().copied())
        .collect();
    let flags = data[1];
    let bit = |n: u8| flags & (1 << n) != 0;
    let mut config = Config::new(all[data[0] as usize % all.len()]).reasoning_open(bit(0));
    if bit(1) {
        config = config.in_reasoning(InReasoning::Extract);
    }
    if bit(2) {
        config = config.limits(Limits {
            max_args_bytes: 96,
            max_depth: 4,
            max_held_bytes: 24,
            lookahead: 12,
            max_calls: 2,
            max_name_bytes: 12,
        });
    }
    if bit(3) {
        config.tools = Arc::new(Tools::from_json(TOOLS.as_bytes()).unwrap());
    }
    if bit(4) {
        config = config.unknown_tool(UnknownTool::Forward);
    }
    if bit(5) {
        config = config.invalid(Invalid::HoldBack);
    }
    let stop = match flags >> 6 {
        1 => StopReason::Length,
        2 => StopReason::Disconnected,
        _ => StopReason::Stop,
    };
    let (chunking, raw) = (&data[2..8], &data[14..]);
    let mut cuts = Vec::new();
    let (mut at, mut i) = (0, 0);
    if chunking.iter().any(|&l| l % 65 != 0) {
        while at < raw.len() {
            at += (chunking[i % 6] as usize % 65).min(raw.len() - at);
            i += 1;
            cuts.push(at);
        }
    }
    (config, stop, cuts, raw)
}

/// chunking (`.ci/run`), two inputs kept in `tests/fixtures/fuzz/`: arguments that are
/// bare words (`{order id}`, read as a key and its value only by inventing a colon and
/// quotes) reported their members from that guess, past what was sent; and past the
/// call limit, a call whose arguments were inside a string went on writing into the
/// discarded call, whose scan knew nothing of that string (a debug assertion in
/// `Sink::write_args`). Both keep every invariant, whole and as the fuzz target cut them.
#[test]
fn chunking_fuzz_inputs_keep_every_invariant() {
    for name in [
        "chunking-bare-words-completed.bin",
        "chunking-string-past-the-call-limit.bin",
    ] {
        let data = std::fs::read(format!("tests/fixtures/fuzz/{name}")).unwrap();
        let (config, stop, cuts, raw) = fuzz_input(&data);
        let whole = support::run_cuts(&config, raw, &[], stop);
        let cut = support::run_cuts(&config, raw, &cuts, stop);
        for events in [&whole, &cut] {
            support::check(config.dialect, events).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        assert_eq!(support::merge(&whole), support::merge(&cut), "{name}");
    }
}
