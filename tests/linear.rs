//! Linear work, counted (not timed): `Stats::work` counts every byte examined, each
//! replay and look-ahead read included, so it is the same on every machine.

#[path = "../benches/support/inputs.rs"]
mod inputs;
mod support;

use toolsift::{Dialect, Event, Parser, StopReason};

/// Work per input byte, and the finished arguments, pushing `raw` in `chunk`-byte pieces
/// (0 = whole).
fn work_per_byte(raw: &[u8], chunk: usize) -> (f64, String) {
    let mut p = Parser::new(Dialect::Hermes);
    let mut args = String::new();
    let mut take = |p: &mut Parser| {
        while let Some(ev) = p.next_event() {
            if let Event::CallFinished { arguments, .. } = ev {
                args = arguments.to_owned();
            }
        }
    };
    for piece in raw.chunks(if chunk == 0 { raw.len() } else { chunk }) {
        p.push(piece);
        take(&mut p);
    }
    p.finish(StopReason::Stop);
    take(&mut p);
    assert_eq!(p.stats().bytes, raw.len() as u64);
    (p.stats().work() as f64 / raw.len() as f64, args)
}

/// At most this many bytes examined per input byte on a long call, whatever the
/// chunking (docs/performance.md). (Work counts every re-read: look-ahead replays, and
/// text held back as a possible marker at a chunk boundary and scanned again with the
/// next chunk.)
const LONG_BOUND: f64 = support::MAX_WORK_PER_BYTE_LONG as f64;

#[test]
fn a_one_mib_call_is_examined_a_bounded_number_of_times_per_byte() {
    let args = inputs::big_args(1 << 20, 5);
    let call = inputs::hermes_call("store", &args);
    let mut per_byte = Vec::new();
    for chunk in [1, 7, 0] {
        let (work, got) = work_per_byte(&call, chunk);
        assert_eq!(got.as_bytes(), &args[..], "chunks of {chunk}");
        assert!(
            work <= LONG_BOUND,
            "{work:.2} bytes examined per byte in chunks of {chunk}"
        );
        per_byte.push(work);
    }
    // Chunking changes only the re-reads at chunk boundaries: within a small factor. A
    // well-formed call pushed whole takes the strict fast path (`json/strict.rs`): one
    // parse and one projection, fewer bytes examined than any chunked run.
    let (one, seven, whole) = (per_byte[0], per_byte[1], per_byte[2]);
    assert!(one.max(seven) <= 1.5 * one.min(seven), "{per_byte:?}");
    assert!(whole <= one.min(seven), "{per_byte:?}");
}

#[test]
fn work_per_byte_does_not_grow_with_the_call() {
    let small = inputs::hermes_call("store", &inputs::big_args(19 * 1024, 5));
    let large = inputs::hermes_call("store", &inputs::big_args(1 << 20, 5));
    let (small_work, _) = work_per_byte(&small, 7);
    let (large_work, _) = work_per_byte(&large, 7);
    assert!(
        large_work <= 1.5 * small_work,
        "1 MiB: {large_work:.2} per byte, 19 KB: {small_work:.2} per byte"
    );
}

#[test]
fn prose_is_examined_once() {
    let text = inputs::prose(1 << 20, 1);
    for chunk in [1, 7, 0] {
        let mut p = Parser::new(Dialect::Hermes);
        for piece in text.chunks(if chunk == 0 { text.len() } else { chunk }) {
            p.push(piece);
            while p.next_event().is_some() {}
        }
        p.finish(StopReason::Stop);
        // Each byte once, plus the few held back at chunk boundaries as a possible
        // marker (`<`, `[`) and scanned again with the next chunk.
        let work = p.stats().work();
        assert!(work >= text.len() as u64, "chunks of {chunk}: {work}");
        assert!(
            work as f64 <= 1.05 * text.len() as f64,
            "chunks of {chunk}: {work}"
        );
    }
}

/// Work per byte of a `write_file` call whose `content` is `unit` repeated to about
/// `len` bytes, written raw (nothing escaped), pushed in 7-byte chunks.
fn raw_write_work(unit: &str, len: usize) -> f64 {
    let content = unit.repeat(len / unit.len() + 1);
    let raw = format!(
        "<tool_call>{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"a\", \"content\": \"{content}\"}}}}</tool_call>"
    );
    work_per_byte(raw.as_bytes(), 7).0
}

/// Raw text whose quotes may each end the string (weak decisions all along): the
/// competing readings read it side by side, and their work is counted. It stays within
/// the bound for any input (`support::MAX_WORK_PER_BYTE`, docs/performance.md), the
/// same per byte for a call ten times as long.
#[test]
fn competing_readings_are_linear_work() {
    for unit in [
        "a \"b\", \"c\": d e\n",
        "<p class=\"x\" id=\"y\">z</p>\n",
        "{\"k\": \"v\"}, \"w\": [1, \"2\"]\n",
        "say \"hi\" and \"}\" then, \"x\": y\n",
        "\"a\": \"b\", \"c\": \"d\"}, {\"e\": \"f\n",
        "x\", \"y\": \"z\", \"w\": 1, \"",
        "\"}, \"k\": [\"",
    ] {
        let small = raw_write_work(unit, 10 * 1024);
        let large = raw_write_work(unit, 100 * 1024);
        eprintln!("{unit:?}: {small:.2} / {large:.2} per byte");
        let bound = support::MAX_WORK_PER_BYTE as f64;
        assert!(
            small <= bound && large <= bound,
            "{unit:?}: {small:.2} / {large:.2} bytes examined per byte"
        );
        assert!(
            large <= 1.5 * small,
            "{unit:?}: {large:.2} per byte at 100 KB, {small:.2} at 10 KB"
        );
    }
}

/// A long run of blanks after an opener, then the body (a call object, or prose):
/// sniffing the body's start is linear work, after every opener of every dialect,
/// pushed whole and in small chunks.
#[test]
fn blanks_after_an_opener_are_linear_work() {
    let blanks = " \n".repeat(32 * 1024);
    for &dialect in Dialect::ALL {
        for opener in dialect.openers() {
            let opener = String::from_utf8_lossy(opener);
            for body in ["{\"name\": \"f\", \"arguments\": {}}", "word and more"] {
                let raw = format!("{opener}{blanks}{body}");
                for chunk in [7, 0] {
                    let mut p = Parser::new(dialect);
                    for piece in raw
                        .as_bytes()
                        .chunks(if chunk == 0 { raw.len() } else { chunk })
                    {
                        p.push(piece);
                        while p.next_event().is_some() {}
                    }
                    p.finish(StopReason::Stop);
                    while p.next_event().is_some() {}
                    let per_byte = p.stats().work() as f64 / raw.len() as f64;
                    assert!(
                        per_byte <= LONG_BOUND,
                        "{} {opener:?} then {body:?}, chunks of {chunk}: {per_byte:.1} per byte",
                        dialect.name()
                    );
                }
            }
        }
    }
}
