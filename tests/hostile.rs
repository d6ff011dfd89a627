//! Hostile input: an opener that never closes, a million levels of nesting, invalid
//! UTF-8, NUL bytes, a marker repeated a million times, a million tiny parallel calls.
//!
//! Each case is pushed in 64 KiB chunks generated on the fly (the input is never held
//! whole) and checks that nothing panics, that the affected call ends with a clear
//! reason, that the text after the hostile part still comes out, that peak live heap
//! stays within the configured limits (a counting global allocator), and that the work
//! is linear: [`Stats::work`] (bytes examined) at size 2n is at most about twice that at
//! size n, and at most 6 bytes examined per byte pushed (docs/performance.md). No timing
//! is measured.
//!
//! Sizes: a debug build examines a few MB per second, so the normal tests use the sizes
//! of the issue where that fits in a few seconds (a million levels of nesting, a million
//! NULs) and smaller ones elsewhere: an 8 MB opener against a 256 KiB argument limit,
//! openers repeated 100 000 times and other markers 10 000 times, 40 000 parallel calls.
//! `cargo test --release --test hostile -- --include-ignored` runs them with the full
//! sizes (a 100 MB opener with the default limits, every marker a million times, a
//! million calls) in about 3 minutes on the 2-core CI machine; `.ci/run` runs it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, MutexGuard};
mod support;

use toolsift::{Config, Dialect, Limits, OwnedEvent, Parser, Repairs, StopReason, Tools};

/// Counts live heap bytes and their peak. The only unsafe code is the forwarding to the
/// system allocator that `GlobalAlloc` requires.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(now, Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
            grew(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Tests of this binary run one at a time, so the peak belongs to the running case.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

const MB: usize = 1 << 20;

/// A piece of input: bytes, or bytes repeated.
#[derive(Clone, Copy)]
enum Seg<'a> {
    B(&'a [u8]),
    R(&'a [u8], usize),
}
use Seg::{B, R};

/// What came out of one run, kept small (counts, a tail of the text).
#[derive(Debug, Default)]
struct Out {
    text_len: usize,
    text_tail: String,
    reasoning_len: usize,
    released: usize,
    /// Repairs of the first released calls.
    repairs: Vec<Repairs>,
    /// Arguments of the first released calls.
    args: Vec<String>,
    /// Not-released calls by reason: count and first feedback.
    not_released: BTreeMap<&'static str, (usize, String)>,
    marker_in_text: Option<String>,
    end: Option<(StopReason, bool)>,
    /// Peak live heap above what was live before the parser was built.
    peak: usize,
    work: u64,
    bytes: u64,
}

impl Out {
    fn text(&mut self, t: &str, markers: &[&[u8]]) {
        // Check markers across event boundaries: the tail plus the new text.
        let mut window = self.text_tail.clone();
        window.push_str(t);
        for m in markers {
            let m = String::from_utf8_lossy(m);
            if m.len() > 1 && window.contains(m.as_ref()) && self.marker_in_text.is_none() {
                self.marker_in_text = Some(m.into_owned());
            }
        }
        self.text_len += t.len();
        let keep = window.len().saturating_sub(4096);
        let cut = (keep..=window.len())
            .find(|&i| window.is_char_boundary(i))
            .unwrap();
        self.text_tail = window[cut..].to_owned();
    }

    fn event(&mut self, ev: OwnedEvent, markers: &[&[u8]]) {
        match ev {
            OwnedEvent::Text(t) => self.text(&t, markers),
            OwnedEvent::Reasoning(t) => self.reasoning_len += t.len(),
            OwnedEvent::CallFinished {
                arguments, repairs, ..
            } => {
                let v: serde_json::Value =
                    serde_json::from_str(&arguments).expect("released arguments are strict");
                assert!(v.is_object(), "released arguments are an object");
                if self.args.len() < 4 {
                    self.args.push(arguments);
                    self.repairs.push(repairs);
                }
                self.released += 1;
            }
            OwnedEvent::CallNotReleased {
                reason,
                feedback,
                completed,
                ..
            } => {
                serde_json::from_str::<serde_json::Value>(&completed)
                    .expect("completed members are strict");
                let e = self
                    .not_released
                    .entry(reason.as_str())
                    .or_insert((0, feedback));
                e.0 += 1;
            }
            OwnedEvent::End { stop, truncated } => self.end = Some((stop, truncated)),
            _ => {}
        }
    }

    fn only_not_released(&self, reason: &str) -> &str {
        assert_eq!(
            self.not_released.keys().collect::<Vec<_>>(),
            [&reason],
            "not released: {:?}",
            self.not_released
        );
        &self.not_released[reason].1
    }

    fn ends_with_text(&self, tail: &str) {
        assert!(
            self.text_tail.ends_with(tail),
            "text after the hostile part is missing: ...{:?}",
            &self.text_tail[self.text_tail.len().saturating_sub(200)..]
        );
        assert!(
            self.marker_in_text.is_none(),
            "marker {:?} in text",
            self.marker_in_text
        );
        assert!(self.end.is_some(), "no End event");
    }
}

fn config(dialect: Dialect, limits: Limits) -> Config {
    let mut c = Config::new(dialect);
    c = c.limits(limits);
    c
}

/// Push `segs` in 64 KiB chunks, finish, and collect what came out.
fn drive(config: &Config, segs: &[Seg<'_>]) -> Out {
    // The dialect's own markers (every dialect's for `auto`): an explicit dialect reads
    // other dialects' markers as text.
    let markers: Vec<&[u8]> = config.dialect.markers();
    let mut out = Out {
        text_tail: String::with_capacity(8192),
        ..Out::default()
    };
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let mut p = Parser::with_config(config.clone());
    let mut chunk: Vec<u8> = Vec::with_capacity(64 << 10);
    let flush = |p: &mut Parser, chunk: &mut Vec<u8>, out: &mut Out| {
        p.push(chunk);
        chunk.clear();
        while let Some(ev) = p.next_event() {
            out.event(ev.into_owned(), &markers);
        }
    };
    for seg in segs {
        let (bytes, times) = match *seg {
            B(b) => (b, 1),
            R(b, n) => (b, n),
        };
        for _ in 0..times {
            let mut rest = bytes;
            while !rest.is_empty() {
                let room = chunk.capacity() - chunk.len();
                let n = room.min(rest.len());
                chunk.extend_from_slice(&rest[..n]);
                rest = &rest[n..];
                if chunk.len() == chunk.capacity() {
                    flush(&mut p, &mut chunk, &mut out);
                }
            }
        }
    }
    flush(&mut p, &mut chunk, &mut out);
    p.finish(StopReason::Stop);
    while let Some(ev) = p.next_event() {
        out.event(ev.into_owned(), &markers);
    }
    out.work = p.stats().work();
    out.bytes = p.stats().bytes;
    drop(p);
    drop(chunk);
    out.peak = PEAK.load(Relaxed).saturating_sub(base);
    out
}

/// Run a case at size n and 2n: the work must double at most (linear, not worse), stay
/// within the work bound for long input (`support::MAX_WORK_PER_BYTE_LONG` bytes
/// examined per byte pushed, the figure of docs/performance.md), and the peak heap
/// within `max_peak`.
fn linear(
    config: &Config,
    n: usize,
    max_peak: usize,
    case: impl Fn(usize) -> Vec<Seg<'static>>,
) -> Out {
    let small = drive(config, &case(n));
    let big = drive(config, &case(2 * n));
    assert!(
        big.work <= small.work * 21 / 10 + 4096,
        "work not linear: {} at n={n}, {} at 2n",
        small.work,
        big.work
    );
    for o in [&small, &big] {
        assert!(
            o.work <= support::MAX_WORK_PER_BYTE_LONG * o.bytes,
            "work {} over {} x {} bytes pushed (docs/performance.md)",
            o.work,
            support::MAX_WORK_PER_BYTE_LONG,
            o.bytes
        );
        assert!(
            o.peak <= max_peak,
            "peak live heap {} bytes over {max_peak}",
            o.peak
        );
    }
    big
}

// ---- an opener that never closes ----

/// Each dialect's call opened with a value that never ends, then the dialect's closer
/// (the only way out) and text. The call breaks `max_args_bytes` and is not released;
/// the text after the closer comes out; memory stays near the argument limit.
fn unclosed_opener(total: usize, limits: Limits) {
    let max_args = limits.max_args_bytes;
    let forms: [(Dialect, &'static [u8], &'static [u8]); 3] = [
        (
            Dialect::Hermes,
            b"<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"content\": \"",
            b"</tool_call>\nafter",
        ),
        (
            Dialect::Qwen3Coder,
            b"<tool_call>\n<function=write_file>\n<parameter=content>\n",
            b"</tool_call>\nafter",
        ),
        (
            Dialect::Gemma4,
            b"<|tool_call>call:write_file{content:<|\"|>",
            b"<tool_call|>after",
        ),
    ];
    for (dialect, open, close) in forms {
        for d in [dialect, Dialect::Auto] {
            let _g = serial();
            let out = linear(
                &config(d, limits.clone()),
                total / 2,
                3 * max_args + 2 * MB,
                |n| vec![B(b"before "), B(open), R(b"x", n), B(close)],
            );
            let why = out.only_not_released("limit_exceeded");
            assert!(
                why.contains(&format!("exceed {max_args} bytes")),
                "{d}: {why}"
            );
            assert_eq!(out.released, 0);
            out.ends_with_text("after");
        }
    }
}

/// 8 MB against a 256 KiB argument limit: the limit, not the size, decides what the
/// engine holds (debug builds repair a few hundred KB per second per dialect).
#[test]
fn opener_that_never_closes_8mb() {
    unclosed_opener(
        8 * MB,
        Limits {
            max_args_bytes: 256 << 10,
            ..Limits::default()
        },
    );
}

#[test]
#[ignore = "100 MB per run: minutes in a debug build; run with --release"]
fn opener_that_never_closes_100mb() {
    unclosed_opener(100 * MB, Limits::default());
}

// ---- a million levels of nesting ----

#[test]
fn a_million_levels_of_nesting() {
    let _g = serial();
    /// A dialect, its opener, a body and its closer.
    type Form = (Dialect, &'static [u8], &'static [u8], &'static [u8]);
    let forms: [Form; 4] = [
        (
            Dialect::Hermes,
            b"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": ",
            b"[",
            b"\n</tool_call>\nafter",
        ),
        (
            Dialect::Hermes,
            b"<tool_call>\n{\"name\": \"f\", \"arguments\": ",
            b"{\"a\": ",
            b"\n</tool_call>\nafter",
        ),
        (
            Dialect::Gemma4,
            b"<|tool_call>call:f{a:",
            b"{b:[",
            b"<tool_call|>after",
        ),
        (
            Dialect::Auto,
            b"<|tool_call>call:f{a:",
            b"[",
            b"<tool_call|>after",
        ),
    ];
    for (d, open, level, close) in forms {
        let out = linear(&config(d, Limits::default()), 500_000, 2 * MB, |n| {
            vec![B(open), R(level, n), B(close)]
        });
        let why = out.only_not_released("limit_exceeded");
        assert!(why.contains("deeper than 128 levels"), "{d}: {why}");
        out.ends_with_text("after");
    }
    // Nesting in an XML parameter declared as an array: typed at the end of the value,
    // it must not recurse a million deep.
    let mut c = Config::new(Dialect::Qwen3Coder);
    c = c.tools(
        Tools::from_json(
            br#"[{"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "array"}}}}]"#,
        )
        .unwrap(),
    );
    let out = linear(&c, 500_000, 8 * MB, |n| {
        vec![
            B(b"<tool_call>\n<function=f>\n<parameter=a>\n"),
            R(b"[", n),
            B(b"\n</parameter>\n</function>\n</tool_call>\nafter"),
        ]
    });
    assert_eq!(
        out.released + out.not_released.values().map(|v| v.0).sum::<usize>(),
        1
    );
    out.ends_with_text("after");
    // In plain text nesting is just text.
    let out = drive(
        &Config::new(Dialect::Auto),
        &[R(b"[{", 500_000), B(b"after")],
    );
    assert_eq!(out.text_len, 1_000_005);
    out.ends_with_text("after");
}

// ---- invalid UTF-8 ----

const BAD_UTF8: &[u8] = b"ok \xff\xfe \xc3( \xed\xa0\x80 \xf4\x90\x80\x80 \xe2\x82 \xc0\xaf\n";

#[test]
fn invalid_utf8_in_text_markers_and_arguments() {
    let _g = serial();
    for d in [Dialect::Hermes, Dialect::Auto] {
        let out = linear(&config(d, Limits::default()), 50_000, 2 * MB, |n| {
            vec![
                R(BAD_UTF8, n),
                B(b"<tool\xff_call>\n"),
                B(b"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \""),
                R(BAD_UTF8, 1000),
                B(b"\", \"b\xff\": 1}}\n</tool_call>\nafter"),
            ]
        });
        assert_eq!(out.released, 1, "{d}: {:?}", out.not_released);
        let names: Vec<_> = out.repairs[0].names().collect();
        assert!(names.contains(&"invalid_utf8"), "{d}: {names:?}");
        assert!(out.text_tail.contains('\u{fffd}'));
        assert!(out.text_tail.contains("<tool\u{fffd}_call>"));
        out.ends_with_text("after");
    }
    // A call cut inside a multi-byte character is truncated, never released.
    let out = drive(
        &Config::new(Dialect::Hermes),
        &[B(
            b"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"\xe2\x82",
        )],
    );
    assert!(out.only_not_released("truncated").contains("cut off"));
}

// ---- NUL bytes ----

#[test]
fn nul_bytes_in_text_markers_keys_and_values() {
    let _g = serial();
    for d in [Dialect::Hermes, Dialect::Gemma4, Dialect::Auto] {
        let out = linear(&config(d, Limits::default()), 500_000, 2 * MB, |n| {
            vec![
                R(b"\0", n),
                B(b"<tool_call\0>"),
                B(b"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\0\": \""),
                R(b"\0", 1000),
                B(b"\"}}\n</tool_call>\nafter"),
            ]
        });
        if d == Dialect::Gemma4 {
            // Not Gemma's call syntax: all of it is text, NULs included.
            assert_eq!(out.released, 0);
            assert!(out.text_len > 1_000_000);
        } else {
            assert_eq!(out.released, 1, "{d}: {:?}", out.not_released);
            assert!(out.args[0].contains("\\u0000"), "{}", &out.args[0][..40]);
            let names: Vec<_> = out.repairs[0].names().collect();
            assert!(names.contains(&"control_character"), "{d}: {names:?}");
            assert!(out.text_len >= 1_000_000, "NULs in text are kept");
        }
        out.ends_with_text("after");
    }
}

// ---- a marker repeated a million times ----

/// Every marker of every dialect (and of `auto`) repeated `n` times, openers `n_open`
/// times, then text: whatever the engine makes of it, no marker leaks into text, the
/// stream ends properly and what follows comes out (as text, reasoning or calls).
fn repeated_markers(n_open: usize, n: usize) {
    const OPENERS: &[&[u8]] = &[b"<tool_call>", b"<|tool_call>", b"<function=", b"<think>"];
    for d in std::iter::once(Dialect::Auto).chain(Dialect::ALL.iter().copied()) {
        for m in d.markers() {
            let times = if OPENERS.contains(&m) { n_open } else { n };
            let _g = serial();
            let out = linear(&config(d, Limits::default()), times / 2, 2 * MB, |n| {
                vec![B(b"before "), R(m, n), B(b"\nafter")]
            });
            let name = String::from_utf8_lossy(m);
            assert!(out.end.is_some(), "{d} {name:?}");
            assert!(
                out.marker_in_text.is_none(),
                "{d} {name:?}: {:?} in text",
                out.marker_in_text
            );
            assert!(
                out.text_tail.ends_with("after")
                    || out.reasoning_len > 0
                    || out.released + out.not_released.len() > 0,
                "{d} {name:?}: nothing came out after the markers"
            );
        }
    }
}

/// Openers 100 000 times, other markers 10 000 times: a million of each takes minutes in
/// a debug build (see the ignored full-size test).
#[test]
fn a_marker_repeated_many_times() {
    repeated_markers(100_000, 10_000);
}

#[test]
#[ignore = "every marker a million times: minutes in a debug build; run with --release"]
fn a_marker_repeated_a_million_times() {
    repeated_markers(1_000_000, 1_000_000);
}

// ---- a million tiny parallel calls ----

fn tiny_calls(n: usize) {
    let _g = serial();
    let forms: [(Dialect, &'static [u8]); 3] = [
        (
            Dialect::Hermes,
            b"<tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>",
        ),
        (
            Dialect::Qwen3Coder,
            b"<tool_call><function=f><parameter=a>1</parameter></function></tool_call>",
        ),
        (Dialect::Gemma4, b"<|tool_call>call:f{a:1}<tool_call|>"),
    ];
    for (d, call) in forms {
        let limits = Limits::default();
        let max_calls = limits.max_calls;
        let out = linear(&config(d, limits), n / 2, 2 * MB, |n| {
            vec![R(call, n), B(b"\nafter")]
        });
        assert_eq!(out.released, max_calls, "{d}");
        let (count, why) = &out.not_released["limit_exceeded"];
        assert_eq!(*count, n - max_calls, "{d}");
        assert!(
            why.contains(&format!("more than {max_calls} calls")),
            "{d}: {why}"
        );
        out.ends_with_text("after");
    }
}

#[test]
fn forty_thousand_tiny_parallel_calls() {
    tiny_calls(40_000);
}

#[test]
#[ignore = "a million calls per dialect: minutes in a debug build; run with --release"]
fn a_million_tiny_parallel_calls() {
    tiny_calls(1_000_000);
}
