//! The parser's lanes checked against its plain path.

use super::*;
use crate::OwnedEvent;

fn events(
    config: &Config,
    raw: &[u8],
    cuts: &[usize],
    fast: bool,
    hits: &mut usize,
) -> Vec<OwnedEvent> {
    let mut p = Parser::with_config(config.clone());
    p.lookahead_pass.0 = fast;
    let mut out = Vec::new();
    let mut at = 0;
    for &cut in cuts.iter().chain([raw.len()].iter()) {
        p.push(&raw[at..cut]);
        at = cut;
        while let Some(e) = p.next_event() {
            out.push(e.into_owned());
        }
    }
    p.finish(StopReason::Stop);
    while let Some(e) = p.next_event() {
        out.push(e.into_owned());
    }
    *hits += p.lookahead_pass.1;
    out
}

/// A chunk that ends with what a marker can no longer change (a whole marker, a byte
/// no character begins with) is decided with that chunk through `feed`, as through
/// `push`: only the start of a marker waits for the next chunk.
#[test]
fn feed_decides_a_chunk_end_that_cannot_wait() {
    for api_feed in [true, false] {
        let mut p = Parser::new(Dialect::Hermes);
        let mut texts = Vec::new();
        for chunk in [&b"Hi "[..], b"a \xff", b"b <think>", b"c <"] {
            texts.clear();
            if api_feed {
                let mut fed = p.feed(chunk);
                while let Some(e) = fed.next_event() {
                    texts.push(e.into_owned());
                }
            } else {
                p.push(chunk);
                while let Some(e) = p.next_event() {
                    texts.push(e.into_owned());
                }
            }
            match chunk {
                b"a \xff" => assert!(
                    texts
                        .iter()
                        .any(|e| matches!(e, OwnedEvent::Text(t) if t.contains('\u{fffd}'))),
                    "{texts:?}"
                ),
                b"b <think>" => assert!(matches!(p.mode, Mode::Reasoning(_)), "{texts:?}"),
                b"c <" => assert_eq!(&p.held[..], b"<"),
                _ => {}
            }
        }
    }
}

/// A character the text path cut is finished by the next chunk's `Feed` through
/// the character lane, before that chunk's text, read or dropped unread.
#[test]
fn feed_finishes_a_cut_character_before_the_chunk_text() {
    for (reasoning, read) in [(false, true), (false, false), (true, true), (true, false)] {
        let mut p = Parser::new(Dialect::Hermes);
        let mut seen = Vec::new();
        let chunks: &[&[u8]] = match reasoning {
            true => &[b"<think>", b"caf\xc3", b"\xa9 ok", b" more"],
            false => &[b"Hi", b"caf\xc3", b"\xa9 ok", b" more"],
        };
        for &chunk in chunks {
            let mut fed = fed_lane_check(&mut p, chunk);
            if read || chunk != b"\xa9 ok" {
                while let Some(e) = fed.next_event() {
                    seen.push(e.into_owned());
                }
            }
        }
        assert!(shown(&seen).ends_with("café ok more"), "{seen:?}");
        if read {
            let at = seen.iter().position(
                |e| matches!(e, OwnedEvent::Text(t) | OwnedEvent::Reasoning(t) if t == "é"),
            );
            assert!(at.is_some(), "the character comes alone first: {seen:?}");
        }
    }
}

/// The text and reasoning of `seen`, in order.
fn shown(seen: &[OwnedEvent]) -> String {
    seen.iter()
        .map(|e| match e {
            OwnedEvent::Text(t) | OwnedEvent::Reasoning(t) => t.as_str(),
            _ => "",
        })
        .collect()
}

/// Whether `seen` has an event of a call.
fn has_call(seen: &[OwnedEvent]) -> bool {
    seen.iter().any(|e| {
        !matches!(
            e,
            OwnedEvent::Text(_) | OwnedEvent::Reasoning(_) | OwnedEvent::End { .. }
        )
    })
}

/// `feed`, checking that the chunk after a cut character meets the character lane.
fn fed_lane_check<'a>(p: &'a mut Parser, chunk: &'a [u8]) -> Feed<'a> {
    if chunk.first().is_some_and(|&b| b & 0xc0 == 0x80) {
        assert_eq!(p.fast, FastLane::Char);
    }
    p.feed(chunk)
}

/// The one-byte lane, which keeps no `last_text`, is only for tables with no
/// anchored opener: an anchored one (`<parameter=` of qwen3_coder, whose openers
/// all begin with `<`) still counts right after a line that `feed`'s fast test took,
/// and not after one that does not end the line.
#[test]
fn an_anchored_opener_sees_the_line_the_fast_test_took() {
    let mut hermes = Parser::new(Dialect::Hermes);
    let mut fed = hermes.feed(b"ok");
    while fed.next_event().is_some() {}
    drop(fed);
    assert_eq!(hermes.fast, FastLane::TextOne);
    for (line, call) in [(&b"see\n"[..], true), (b"see ", false)] {
        let mut p = Parser::new(Dialect::Qwen3Coder);
        let mut seen = Vec::new();
        for chunk in [&b"ok\n"[..], line, b"<parameter=path>a</parameter>\n"] {
            if chunk == line {
                assert_eq!(p.fast, FastLane::Text, "the line takes the fast test");
            }
            let mut fed = p.feed(chunk);
            while let Some(e) = fed.next_event() {
                seen.push(e.into_owned());
            }
        }
        p.finish(StopReason::Stop);
        while let Some(e) = p.next_event() {
            seen.push(e.into_owned());
        }
        assert_eq!(has_call(&seen), call, "{line:?}: {seen:?}");
    }
}

/// A chunk that ends with the start of a marker holds it on `feed`'s text path, and
/// the next chunk, through the held-byte lane, shows the byte first when it rules
/// the marker out, read or dropped unread; a chunk that goes on with the marker
/// opens it (in text; in reasoning a call is text).
#[test]
fn feed_holds_a_marker_start_and_shows_it_when_ruled_out() {
    for (reasoning, read) in [(false, true), (false, false), (true, true), (true, false)] {
        for (next, call) in [(&b" b && c"[..], false), (b"tool_call>", true)] {
            let mut p = Parser::new(Dialect::Hermes);
            let mut seen = Vec::new();
            let start: &[u8] = if reasoning { b"<think>" } else { b"Hi" };
            for chunk in [start, b" if a <", next, b" end"] {
                if chunk == next {
                    assert_eq!(p.fast, FastLane::Held, "{chunk:?}");
                    assert_eq!(&p.held[..], b"<");
                }
                let mut fed = p.feed(chunk);
                if read || chunk != next {
                    while let Some(e) = fed.next_event() {
                        seen.push(e.into_owned());
                    }
                }
            }
            p.finish(StopReason::Stop);
            while let Some(e) = p.next_event() {
                seen.push(e.into_owned());
            }
            let text = shown(&seen);
            // In reasoning a call is text (the default `InReasoning`).
            if call && !reasoning {
                assert!(has_call(&seen) && !text.contains('<'), "{seen:?}");
            } else {
                let next = std::str::from_utf8(next).unwrap();
                assert!(text.ends_with(&format!(" if a <{next} end")), "{seen:?}");
            }
        }
    }
}

/// After `finish`, a chunk is ignored by `feed` as by `push`, even when the chunks
/// before it took `feed`'s fast test.
#[test]
fn feed_after_finish_shows_nothing() {
    for reasoning in [false, true] {
        let mut p = Parser::new(Dialect::Hermes);
        let mut shown = String::new();
        let start: &[&[u8]] = match reasoning {
            true => &[b"<think>", b"hm"],
            false => &[b"Hi", b" there"],
        };
        for chunk in start.iter().chain([&&b"more"[..], &&b" text"[..]]) {
            let mut fed = p.feed(chunk);
            while let Some(e) = fed.next_event() {
                if let Event::Text(t) | Event::Reasoning(t) = e {
                    shown.push_str(t);
                }
            }
        }
        assert_ne!(p.fast, FastLane::Off, "the test must reach the fast test");
        p.finish(StopReason::Stop);
        while p.next_event().is_some() {}
        for chunk in [&b"late"[..], b" words"] {
            let mut fed = p.feed(chunk);
            assert!(fed.next_event().is_none(), "{chunk:?} after finish");
        }
        assert!(!shown.contains("late"), "{shown:?}");
    }
}

/// The look-ahead path changes no event, not even where a delta is split: the
/// look-ahead decides at the same byte, and the grammar runs in the same push.
#[test]
fn the_look_ahead_path_gives_the_same_events() {
    let members = [
        r#""n": 12345.678, "list": [1, 22, true, null, "w"], "obj": {"id": 7, "ok": false}"#,
        // Quotes that are content (a look-ahead decides `Content`), and a raw newline.
        r#""text": "He said "hi", then "bye": no", "code": "a
b", "k": "v""#,
        r#""x": "a", "y": "b""#,
    ];
    let mut inputs = Vec::new();
    for m in members {
        let args = format!("{{{m}, {m}, {m}}}");
        let call = format!(r#"<tool_call>{{"name": "f", "arguments": {args}}}</tool_call>"#);
        inputs.push(format!("Hi {call} after"));
        inputs.push(format!("{call}{call}"));
        // Cut in the middle of the arguments (truncated).
        inputs.push(call[..call.len() * 2 / 3].to_string());
    }
    // A closer inside the arguments, where a look-ahead reads.
    inputs.push(
        r#"<tool_call>{"name": "f", "arguments": {"a": "b", "c": 1</tool_call> x"#.to_string(),
    );
    // The limits the path must leave to `feed` at their byte: the held bytes (a
    // small window and hold), the body size, the depth.
    let mut configs = vec![Config::new(Dialect::Hermes)];
    for limits in [
        (64, 24, usize::MAX, 128),
        (256, 4096, 90, 128),
        (256, 4096, usize::MAX, 2),
    ] {
        let mut config = Config::new(Dialect::Hermes);
        config.limits.lookahead = limits.0;
        config.limits.max_held_bytes = limits.1;
        config.limits.max_args_bytes = limits.2;
        config.limits.max_depth = limits.3;
        configs.push(config);
    }
    let mut hits = 0;
    let mut seed = 7u64;
    for raw in &inputs {
        let raw = raw.as_bytes();
        let mut chunkings: Vec<Vec<usize>> = vec![(1..raw.len()).collect()];
        for max in [2, 4, 8, 16] {
            for _ in 0..8 {
                let mut cuts = Vec::new();
                let mut at = 0;
                loop {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    at += 1 + (seed >> 33) as usize % max;
                    if at >= raw.len() {
                        break;
                    }
                    cuts.push(at);
                }
                chunkings.push(cuts);
            }
        }
        for (config, cuts) in configs
            .iter()
            .flat_map(|c| chunkings.iter().map(move |k| (c, k)))
        {
            let mut ignored = 0;
            let slow = events(config, raw, cuts, false, &mut ignored);
            let fast = events(config, raw, cuts, true, &mut hits);
            let case = String::from_utf8_lossy(raw);
            assert_eq!(fast, slow, "{case:?} {cuts:?} {:?}", config.limits);
        }
    }
    assert!(hits > 1000, "{hits}");
}
