//! Issue 6 benches. Each target runs in the same criterion group as its baseline, so
//! the ratios in `docs/performance.md` come from one run. Inputs are generated in code
//! (seeded) by `support/inputs.rs`.

#[path = "support/inputs.rs"]
mod inputs;

use criterion::{black_box, criterion_group, Criterion, Throughput};
use std::time::Duration;
use toolsift::{Dialect, Event, Parser, StopReason};

const MIB: usize = 1 << 20;

/// Push every chunk, draining events after each push, then finish; returns a checksum
/// of what came out so nothing is optimized away.
fn drive(p: &mut Parser, chunks: &[&[u8]]) -> usize {
    p.reset();
    let mut seen = 0;
    for c in chunks {
        p.push(c);
        seen += drain(p);
    }
    p.finish(StopReason::Stop);
    seen + drain(p)
}

/// Like [`drive`], through `feed` (text borrowed from the chunk where it can be).
fn drive_fed(p: &mut Parser, chunks: &[&[u8]]) -> usize {
    p.reset();
    let mut seen = 0;
    for c in chunks {
        let mut fed = p.feed(c);
        while let Some(ev) = fed.next_event() {
            seen += weigh(&ev);
        }
    }
    p.finish(StopReason::Stop);
    seen + drain(p)
}

fn weigh(ev: &Event) -> usize {
    match ev {
        Event::Text(t) | Event::Reasoning(t) => t.len(),
        Event::ArgsDelta { fragment, .. } => fragment.len(),
        Event::CallFinished { arguments, .. } => arguments.len(),
        _ => 1,
    }
}

fn drain(p: &mut Parser) -> usize {
    let mut n = 0;
    while let Some(ev) = p.next_event() {
        n += weigh(&ev);
    }
    n
}

/// The finished calls' arguments after a whole run (for checking the bench inputs).
fn finished_args(dialect: Dialect, raw: &[u8]) -> Vec<String> {
    let mut p = Parser::new(dialect);
    p.push(raw);
    p.finish(StopReason::Stop);
    let mut out = Vec::new();
    while let Some(ev) = p.next_event() {
        match ev {
            Event::CallFinished { arguments, .. } => out.push(arguments.to_owned()),
            Event::CallNotReleased { reason, .. } => panic!("not released: {reason:?}"),
            _ => {}
        }
    }
    out
}

fn config(c: &mut Criterion) -> criterion::BenchmarkGroup<'_, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group("issue6");
    g.sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    g
}

fn prose(c: &mut Criterion) {
    let text = inputs::prose(MIB, 1);
    let lens = inputs::chunk_lens(text.len(), 2, 1, 8);
    let chunks = inputs::chunks(&text, &lens);
    let finder = memchr::memmem::Finder::new(b"<tool_call>");
    let mut p = Parser::new(Dialect::Auto);
    let mut g = config(c);
    g.throughput(Throughput::Bytes(text.len() as u64));
    bench(&mut g, "prose_1mib_chunked/memmem_baseline", || {
        memmem_chunks(&finder, &chunks)
    });
    // A reference, not a target: the least any parser does, which the baseline does
    // not (its chunks are shorter than the needle): look at every byte once.
    let mut stops = [false; 256];
    stops[b'<' as usize] = true;
    bench(&mut g, "prose_1mib_chunked/floor_every_byte", || {
        let mut hits = 0;
        for ch in &chunks {
            hits += black_box(ch).iter().any(|&b| stops[b as usize]) as usize;
        }
        hits
    });
    bench(
        &mut g,
        "prose_1mib_chunked/floor_every_byte_branchless",
        || {
            let mut hits = 0;
            for ch in &chunks {
                let ch = black_box(ch);
                let mut stop = false;
                if let Some(last) = ch.len().checked_sub(1) {
                    for i in 0..8 {
                        stop |= stops[ch[i.min(last)] as usize];
                    }
                }
                hits += stop as usize;
            }
            hits
        },
    );
    // A reference, not a target: the least any push-then-drain API does per chunk
    // (check the bytes are text, copy them, hand out one borrowed event, then `None`).
    let mut floor = Floor::default();
    bench(&mut g, "prose_1mib_chunked/floor_push_drain", || {
        let mut seen = 0;
        for ch in &chunks {
            floor.push(black_box(ch));
            while let Some(t) = floor.next_event() {
                seen += t.len();
            }
        }
        seen
    });
    bench(&mut g, "prose_1mib_chunked/parser_auto", || {
        drive(&mut p, &chunks)
    });
    let mut hermes = Parser::new(Dialect::Hermes);
    bench(&mut g, "prose_1mib_chunked/parser_hermes", || {
        drive(&mut hermes, &chunks)
    });
    // The borrowed-chunk API: text events borrow the chunk, no copy.
    bench(&mut g, "prose_1mib_chunked/feed_auto", || {
        drive_fed(&mut p, &chunks)
    });
    bench(&mut g, "prose_1mib_chunked/feed_hermes", || {
        drive_fed(&mut hermes, &chunks)
    });
    g.finish();
    paired(
        "prose: feed_hermes / memmem_baseline",
        1.0,
        || drive_fed(&mut hermes, &chunks),
        || memmem_chunks(&finder, &chunks),
    );
    paired(
        "prose: parser_hermes (push + next_event) / memmem_baseline",
        1.0,
        || drive(&mut hermes, &chunks),
        || memmem_chunks(&finder, &chunks),
    );
    paired(
        "prose: feed_auto / feed_hermes",
        1.0,
        || drive_fed(&mut p, &chunks),
        || drive_fed(&mut hermes, &chunks),
    );
}

/// The prose baseline: `memmem` for the opener on each chunk.
fn memmem_chunks(finder: &memchr::memmem::Finder, chunks: &[&[u8]]) -> usize {
    let mut hits = 0;
    for ch in chunks {
        hits += finder.find(black_box(ch)).is_some() as usize;
    }
    hits
}

/// The floor of a push-then-drain text API: validate, copy, one event per push.
#[derive(Default)]
struct Floor {
    text: String,
    read: usize,
}

impl Floor {
    fn push(&mut self, chunk: &[u8]) {
        if self.read == self.text.len() {
            self.text.clear();
            self.read = 0;
        }
        self.text
            .push_str(std::str::from_utf8(chunk).unwrap_or_default());
    }

    fn next_event(&mut self) -> Option<&str> {
        if self.read == self.text.len() {
            return None;
        }
        let from = std::mem::replace(&mut self.read, self.text.len());
        Some(&self.text[from..])
    }
}

/// The baseline for a chunked call: scan for the opener, copy the bytes, parse once.
fn scan_copy_parse(
    finder: &memchr::memmem::Finder,
    chunks: &[&[u8]],
    args: std::ops::Range<usize>,
) -> usize {
    let mut hits = 0;
    let mut copy = Vec::new();
    for ch in chunks {
        hits += finder.find(black_box(ch)).is_some() as usize;
        copy.extend_from_slice(ch);
    }
    let v: serde_json::Value = serde_json::from_slice(&copy[args]).unwrap();
    hits + v.as_object().map_or(0, |o| o.len())
}

fn write_file(c: &mut Criterion) {
    let html = inputs::html(19 * 1024, 19);
    let valid = inputs::write_file_call(&html);
    let broken = inputs::write_file_call_malformed(&html);
    for raw in [&valid, &broken] {
        let args = finished_args(Dialect::Hermes, raw);
        let v: serde_json::Value = serde_json::from_str(&args[0]).unwrap();
        assert!(
            v["content"].as_str() == Some(html.as_str()),
            "content must come back exact"
        );
    }
    let lens = inputs::chunk_lens(valid.len(), 3, 1, 8);
    let chunks = inputs::chunks(&valid, &lens);
    let broken_lens = inputs::chunk_lens(broken.len(), 3, 1, 8);
    let broken_chunks = inputs::chunks(&broken, &broken_lens);
    // The arguments object: after `"arguments": `, before the closing `}` of the envelope.
    let start = valid
        .windows(12)
        .position(|w| w == b"\"arguments\":")
        .unwrap()
        + 12;
    let end = valid.len() - b"}\n</tool_call>".len();
    let finder = memchr::memmem::Finder::new(b"<tool_call>");
    let mut p = Parser::new(Dialect::Hermes);
    let mut g = config(c);
    g.throughput(Throughput::Bytes(valid.len() as u64));
    bench(
        &mut g,
        "write_file_19k_chunked/scan_copy_parse_baseline",
        || scan_copy_parse(&finder, &chunks, start..end),
    );
    bench(&mut g, "write_file_19k_chunked/parser_valid", || {
        drive(&mut p, &chunks)
    });
    bench(&mut g, "write_file_19k_chunked/parser_malformed", || {
        drive(&mut p, &broken_chunks)
    });
    g.finish();
    let mut q = Parser::new(Dialect::Hermes);
    paired(
        "19 KB call: parser_valid / scan_copy_parse_baseline",
        1.0,
        || drive(&mut p, &chunks),
        || scan_copy_parse(&finder, &chunks, start..end),
    );
    paired(
        "19 KB call: parser_malformed / parser_valid",
        1.0,
        || drive(&mut p, &broken_chunks),
        || drive(&mut q, &chunks),
    );
    // The whole call in one push, against serde_json reading its arguments into a
    // `Value`: the parser's speed as a share of serde_json's (the target is 0.5).
    let whole: [&[u8]; 1] = [&valid];
    let body = &valid[start..end];
    paired(
        "19 KB call whole: serde_json Value on its arguments / parser, one push (speed share)",
        1.0,
        || serde_json::from_slice::<serde_json::Value>(black_box(body)).unwrap(),
        || drive(&mut p, &whole),
    );
}

fn big_args(c: &mut Criterion) {
    let args = inputs::big_args(MIB, 5);
    let call = inputs::hermes_call("store", &args);
    assert_eq!(
        finished_args(Dialect::Hermes, &call)[0].as_bytes(),
        &args[..]
    );
    let lens = inputs::chunk_lens(call.len(), 4, 1, 8);
    let chunks = inputs::chunks(&call, &lens);
    let mut p = Parser::new(Dialect::Hermes);
    let mut g = config(c);
    g.throughput(Throughput::Bytes(call.len() as u64));
    bench(&mut g, "args_1mib/serde_json_value_baseline", || {
        serde_json::from_slice::<serde_json::Value>(black_box(&args)).unwrap()
    });
    bench(&mut g, "args_1mib/parser_whole", || drive(&mut p, &[&call]));
    bench(&mut g, "args_1mib/parser_chunked", || {
        drive(&mut p, &chunks)
    });
    // The same generator at 19 KB: cost per chunk compared like for like.
    let small = inputs::hermes_call("store", &inputs::big_args(19 * 1024, 5));
    let small_lens = inputs::chunk_lens(small.len(), 4, 1, 8);
    let small_chunks = inputs::chunks(&small, &small_lens);
    bench(&mut g, "args_19k/parser_chunked", || {
        drive(&mut p, &small_chunks)
    });
    g.finish();
    let mut q = Parser::new(Dialect::Hermes);
    paired(
        "args 1 MiB whole (strict re-parse included) / serde_json Value",
        1.0,
        || drive(&mut p, &[&call]),
        || serde_json::from_slice::<serde_json::Value>(black_box(&args)).unwrap(),
    );
    // Per byte: the 1 MiB call's time over the other's, times their sizes' ratio.
    paired(
        "per byte: args 1 MiB chunked / args 19 KB chunked (like for like)",
        small.len() as f64 / call.len() as f64,
        || drive(&mut p, &chunks),
        || drive(&mut q, &small_chunks),
    );
    let html = inputs::write_file_call(&inputs::html(19 * 1024, 19));
    let html_lens = inputs::chunk_lens(html.len(), 3, 1, 8);
    let html_chunks = inputs::chunks(&html, &html_lens);
    paired(
        "per byte: args 1 MiB chunked / 19 KB write_file call (the literal pair)",
        html.len() as f64 / call.len() as f64,
        || drive(&mut p, &chunks),
        || drive(&mut q, &html_chunks),
    );
}

fn others(c: &mut Criterion) {
    let parallel = inputs::parallel_calls(100, 6);
    assert_eq!(finished_args(Dialect::Hermes, &parallel).len(), 100);
    let lens = inputs::chunk_lens(parallel.len(), 6, 1, 8);
    let parallel_chunks = inputs::chunks(&parallel, &lens);
    let adversarial = inputs::adversarial(9);
    let bytes: Vec<&[u8]> = adversarial.chunks(1).collect();
    let mut g = config(c);
    let mut p = Parser::new(Dialect::Hermes);
    bench(&mut g, "parallel_100_calls_chunked/parser_hermes", || {
        drive(&mut p, &parallel_chunks)
    });
    for (dialect, raw) in inputs::dialect_calls() {
        assert_eq!(finished_args(dialect, &raw).len(), 1, "{}", dialect.name());
        let lens = inputs::chunk_lens(raw.len(), 8, 1, 8);
        let chunks = inputs::chunks(&raw, &lens);
        let mut p = Parser::new(dialect);
        let name = format!("dialect_one_call_chunked/{}", dialect.name());
        bench(&mut g, &name, || drive(&mut p, &chunks));
    }
    bench(&mut g, "adversarial_byte_at_a_time/parser_hermes", || {
        drive(&mut p, &bytes)
    });
    g.finish();
}

/// A plain streaming reader of Hermes calls, the floor for many small calls: each chunk
/// is appended to a buffer, the buffer is searched for the closer from where the last
/// search stopped, and each call body is parsed by serde_json once.
fn scan_buffer_parse_calls(
    open: &memchr::memmem::Finder,
    close: &memchr::memmem::Finder,
    chunks: &[&[u8]],
) -> usize {
    let mut buf = Vec::new();
    let mut from = 0;
    let mut calls = 0;
    for ch in chunks {
        buf.extend_from_slice(black_box(ch));
        while let Some(end) = close.find(&buf[from..]).map(|k| from + k) {
            let start = open
                .find(&buf[..end])
                .map_or(0, |k| k + b"<tool_call>".len());
            let v: serde_json::Value = serde_json::from_slice(&buf[start..end]).unwrap();
            calls += v.as_object().map_or(0, |o| o.len());
            buf.drain(..end + b"</tool_call>".len());
            from = 0;
        }
        from = buf.len().saturating_sub(b"</tool_call>".len());
    }
    calls
}

/// `toolsift::repair` on valid input against serde_json reading the same bytes into a
/// `Value`, and many small calls in small chunks against a plain streaming reader.
fn user_figures(c: &mut Criterion) {
    let call = inputs::write_file_call(&inputs::html(19 * 1024, 19));
    let start = call
        .windows(12)
        .position(|w| w == b"\"arguments\":")
        .unwrap()
        + 12;
    let args_19k = call[start..call.len() - b"}\n</tool_call>".len()].to_vec();
    let args_1mib = inputs::big_args(MIB, 5);
    for args in [&args_19k, &args_1mib] {
        assert_eq!(toolsift::repair(args).unwrap().json.as_bytes(), &args[..]);
    }
    let parallel = inputs::parallel_calls(100, 6);
    let lens = inputs::chunk_lens(parallel.len(), 6, 1, 8);
    let parallel_chunks = inputs::chunks(&parallel, &lens);
    let open = memchr::memmem::Finder::new(b"<tool_call>");
    let close = memchr::memmem::Finder::new(b"</tool_call>");
    assert!(scan_buffer_parse_calls(&open, &close, &parallel_chunks) >= 100);
    let mut p = Parser::new(Dialect::Hermes);
    let mut g = config(c);
    for (name, args) in [("19k", &args_19k), ("1mib", &args_1mib)] {
        g.throughput(Throughput::Bytes(args.len() as u64));
        bench(
            &mut g,
            &format!("repair_valid_{name}/serde_json_value_baseline"),
            || serde_json::from_slice::<serde_json::Value>(black_box(args)).unwrap(),
        );
        bench(
            &mut g,
            &format!("repair_valid_{name}/toolsift_repair"),
            || toolsift::repair(black_box(args)).unwrap(),
        );
    }
    g.throughput(Throughput::Bytes(parallel.len() as u64));
    bench(
        &mut g,
        "parallel_100_calls_chunked/scan_buffer_parse_baseline",
        || scan_buffer_parse_calls(&open, &close, &parallel_chunks),
    );
    g.finish();
    for (name, args) in [("19 KB", &args_19k), ("1 MiB", &args_1mib)] {
        paired(
            &format!(
                "serde_json Value / toolsift::repair on valid {name}, {} bytes (speedup)",
                args.len()
            ),
            1.0,
            || serde_json::from_slice::<serde_json::Value>(black_box(args)).unwrap(),
            || toolsift::repair(black_box(args)).unwrap(),
        );
    }
    paired(
        &format!(
            "100 calls in 1-8 byte chunks ({} bytes, {} chunks): parser / scan + buffer + \
             serde_json per call",
            parallel.len(),
            parallel_chunks.len()
        ),
        1.0,
        || drive(&mut p, &parallel_chunks),
        || scan_buffer_parse_calls(&open, &close, &parallel_chunks),
    );
}

/// The 19 KB `write_file` call in every dialect (`Dialect::ALL`, each one's first form,
/// written by `Dialect::render`), in 1-8 byte chunks: valid (strings escaped) against
/// Hermes' valid call, and as small models break it (newlines raw, the way every form
/// reads back exact) against the dialect's own valid call. `TOOLSIFT_PAIRED=dialect`
/// prints both ratios for each dialect; criterion times one dialect of each family.
fn every_dialect(c: &mut Criterion) {
    use toolsift::render::{Call, Strings, Style, Turn};
    let html = inputs::html(19 * 1024, 19);
    let args = serde_json::json!({"path": "index.html", "content": html}).to_string();
    let rendered = |dialect: Dialect, strings: Strings| -> Option<Vec<u8>> {
        let turn = Turn::new().call(Call::new("write_file", &args));
        let out = dialect
            .render_with(&turn, &Style::new().strings(strings))
            .ok()?
            .output
            .into_bytes();
        // Only a call that comes back exact is measured.
        let got = finished_args(dialect, &out);
        let v: serde_json::Value = serde_json::from_str(got.first()?).ok()?;
        (v["content"].as_str() == Some(html.as_str())).then_some(out)
    };
    let chunked = |raw: &[u8]| -> Vec<Vec<u8>> {
        let lens = inputs::chunk_lens(raw.len(), 3, 1, 8);
        inputs::chunks(raw, &lens)
            .into_iter()
            .map(<[u8]>::to_vec)
            .collect()
    };
    let hermes = chunked(&rendered(Dialect::Hermes, Strings::Escaped).unwrap());
    let hermes_refs: Vec<&[u8]> = hermes.iter().map(Vec::as_slice).collect();
    let mut base = Parser::new(Dialect::Hermes);
    let mut g = config(c);
    for &dialect in Dialect::ALL {
        let (Some(valid), Some(broken)) = (
            rendered(dialect, Strings::Escaped),
            rendered(dialect, Strings::RawNewlines),
        ) else {
            println!("dialect {dialect}: the 19 KB call does not come back exact; not timed");
            continue;
        };
        let (valid, broken) = (chunked(&valid), chunked(&broken));
        let valid: Vec<&[u8]> = valid.iter().map(Vec::as_slice).collect();
        let broken: Vec<&[u8]> = broken.iter().map(Vec::as_slice).collect();
        let (mut p, mut q) = (Parser::new(dialect), Parser::new(dialect));
        // One dialect of each family under criterion.
        if [
            Dialect::Hermes,
            Dialect::Mistral,
            Dialect::Harmony,
            Dialect::Qwen3Coder,
        ]
        .contains(&dialect)
        {
            g.throughput(Throughput::Bytes(
                valid.iter().map(|c| c.len()).sum::<usize>() as u64,
            ));
            bench(
                &mut g,
                &format!("dialect_19k_chunked/{dialect}_valid"),
                || drive(&mut p, &valid),
            );
            bench(
                &mut g,
                &format!("dialect_19k_chunked/{dialect}_raw_newlines"),
                || drive(&mut p, &broken),
            );
        }
        paired(
            &format!("dialect {dialect}: valid / hermes valid"),
            1.0,
            || drive(&mut p, &valid),
            || drive(&mut base, &hermes_refs),
        );
        paired(
            &format!("dialect {dialect}: raw newlines / valid"),
            1.0,
            || drive(&mut p, &broken),
            || drive(&mut q, &valid),
        );
    }
    g.finish();
}

criterion_group!(
    benches,
    prose,
    write_file,
    big_args,
    others,
    user_figures,
    every_dialect
);

/// `TOOLSIFT_PROFILE=<bench id>` runs that one bench's routine once inside `measured`
/// (for `valgrind --tool=callgrind --toggle-collect='*measured*'`, whose instruction
/// counts are repeatable on a noisy machine) instead of timing.
///
/// `TOOLSIFT_MIN=<part of ids>` times each bench whose id has that part 200 times and
/// prints the fastest and the median run: on a shared machine the fastest run is the
/// steadiest figure for comparing two builds (criterion's mean moves with the noise).
///
/// `TOOLSIFT_PAIRED=1` times each target against its baseline in alternate runs
/// (`paired`) and prints the ratios; `TOOLSIFT_PAIRED=<part of a name>` only the
/// targets whose name has that part (`prose`, say).
fn main() {
    if let Ok(id) = std::env::var("TOOLSIFT_PROFILE") {
        PROFILE.with(|p| *p.borrow_mut() = Some(Run::Profile(id)));
        benches();
        return;
    }
    if let Ok(part) = std::env::var("TOOLSIFT_PAIRED") {
        let part = if part == "1" { String::new() } else { part };
        PROFILE.with(|p| *p.borrow_mut() = Some(Run::Paired(part)));
        benches();
        return;
    }
    if let Ok(part) = std::env::var("TOOLSIFT_MIN") {
        PROFILE.with(|p| *p.borrow_mut() = Some(Run::Fastest(part)));
        benches();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}

/// A run other than criterion's (`main`).
#[derive(Clone)]
enum Run {
    Profile(String),
    Fastest(String),
    /// The part of the names of the targets to time (every one when empty).
    Paired(String),
}

thread_local! {
    static PROFILE: std::cell::RefCell<Option<Run>> = const { std::cell::RefCell::new(None) };
}

/// Under `TOOLSIFT_PAIRED`, time `target` and `baseline` in alternate runs and print
/// the median of the ratio of each adjacent pair, with each one's median and fastest
/// run (times `scale`: the baseline's bytes over the target's, for a ratio per byte).
///
/// Each pair runs within a few milliseconds, so a change in the machine's speed
/// between pairs cancels out: this shared machine alternates between two speeds every
/// few seconds (a loop of the 19 KB call ran at 149 or at 257 µs a run, switching
/// within one process), and criterion times a target and its baseline seconds apart.
fn paired<A, B>(
    name: &str,
    scale: f64,
    mut target: impl FnMut() -> A,
    mut baseline: impl FnMut() -> B,
) {
    if !PROFILE
        .with(|p| matches!(&*p.borrow(), Some(Run::Paired(part)) if name.contains(part.as_str())))
    {
        return;
    }
    let time = |f: &mut dyn FnMut()| {
        let start = std::time::Instant::now();
        f();
        start.elapsed().as_secs_f64()
    };
    // About three seconds of pairs, at least 15 and at most 400, after 5 unmeasured.
    let one = time(&mut || {
        black_box(target());
    }) + time(&mut || {
        black_box(baseline());
    });
    let rounds = ((3.0 / one) as usize).clamp(15, 400);
    let (mut a, mut b, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds + 5 {
        let tb = time(&mut || {
            black_box(baseline());
        });
        let ta = time(&mut || {
            black_box(target());
        });
        if round >= 5 {
            a.push(ta);
            b.push(tb);
            ratio.push(ta / tb * scale);
        }
    }
    for v in [&mut a, &mut b, &mut ratio] {
        v.sort_by(f64::total_cmp);
    }
    let median = |v: &[f64]| v[v.len() / 2];
    let us = |s: f64| s * 1e6;
    println!(
        "{name}: {:.2}x (median of {rounds} pairs); medians {:.1} / {:.1} us = {:.2}x; \
         fastest {:.1} / {:.1} us = {:.2}x",
        median(&ratio),
        us(median(&a)),
        us(median(&b)),
        median(&a) / median(&b) * scale,
        us(a[0]),
        us(b[0]),
        a[0] / b[0] * scale,
    );
}

#[inline(never)]
fn measured<R>(f: &mut dyn FnMut() -> R) -> R {
    f()
}

/// Time `f` as `name` in `g`, or run it once under `measured` when profiling `name`.
fn bench<R>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    mut f: impl FnMut() -> R,
) {
    let profiling = PROFILE.with(|p| p.borrow().clone());
    match profiling {
        Some(Run::Profile(id)) if id == name => {
            black_box(measured(&mut f));
        }
        Some(Run::Fastest(part)) if name.contains(&part) => {
            let mut runs: Vec<Duration> = (0..210)
                .map(|_| {
                    let start = std::time::Instant::now();
                    black_box(f());
                    start.elapsed()
                })
                .skip(10)
                .collect();
            runs.sort();
            println!(
                "{name}: fastest {:?}, median {:?}",
                runs[0],
                runs[runs.len() / 2]
            );
        }
        Some(_) => {}
        None => {
            g.bench_function(name, |b| b.iter(&mut f));
        }
    }
}
