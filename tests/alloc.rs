//! Heap use, counted by a global allocator (not timed): no allocation per chunk on the
//! text path, an idle parser holds no heap, and peak memory on a 1 MiB call.

#[path = "../benches/support/inputs.rs"]
mod inputs;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use toolsift::{Dialect, Event, Parser, StopReason};

/// Counts allocations and live bytes per thread, so parallel tests do not mix.
struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn grow(by: usize) {
    let _ = LIVE.try_with(|l| {
        l.set(l.get() + by);
        let _ = PEAK.try_with(|p| p.set(p.get().max(l.get())));
    });
}

fn shrink(by: usize) {
    let _ = LIVE.try_with(|l| l.set(l.get().saturating_sub(by)));
}

// SAFETY: every method forwards to the system allocator unchanged; the counters are
// const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|a| a.set(a.get() + 1));
        grow(layout.size());
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrink(layout.size());
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCS.try_with(|a| a.set(a.get() + 1));
        shrink(layout.size());
        grow(new_size);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocs() -> u64 {
    ALLOCS.with(|a| a.get())
}

fn live() -> usize {
    LIVE.with(|l| l.get())
}

/// Reset the peak to what is live now; returns it.
fn reset_peak() -> usize {
    let now = live();
    PEAK.with(|p| p.set(now));
    now
}

fn peak() -> usize {
    PEAK.with(|p| p.get())
}

fn drain(p: &mut Parser) -> usize {
    let mut n = 0;
    while let Some(ev) = p.next_event() {
        if let Event::Text(t) = ev {
            n += t.len();
        }
    }
    n
}

#[test]
fn text_path_allocates_nothing_per_chunk() {
    let text = inputs::prose(256 * 1024, 11);
    let lens = inputs::chunk_lens(text.len(), 12, 1, 8);
    let chunks = inputs::chunks(&text, &lens);
    let (warm, steady) = chunks.split_at(chunks.len() / 4);
    for dialect in [
        Dialect::Auto,
        Dialect::Hermes,
        Dialect::Qwen3Coder,
        Dialect::Gemma4,
    ] {
        for fed in [false, true] {
            let mut p = Parser::new(dialect);
            let mut seen = 0;
            let give = |p: &mut Parser, c: &[u8]| {
                if fed {
                    let mut events = p.feed(c);
                    let mut n = 0;
                    while let Some(Event::Text(t)) = events.next_event() {
                        n += t.len();
                    }
                    n
                } else {
                    p.push(c);
                    drain(p)
                }
            };
            for c in warm {
                seen += give(&mut p, c);
            }
            let before = allocs();
            for c in steady {
                seen += give(&mut p, c);
            }
            let grew = allocs() - before;
            assert_eq!(
                grew,
                0,
                "{} (feed: {fed}): {grew} allocations over {} chunks",
                dialect.name(),
                steady.len()
            );
            p.finish(StopReason::Stop);
            seen += drain(&mut p);
            assert_eq!(
                seen,
                text.len(),
                "{} (feed: {fed}): prose passes through",
                dialect.name()
            );
        }
    }
}

/// A repair that comes back all through a call costs no allocation of its own: the
/// bytes the repairer holds and reads again (an escape that turns out not to be one, a
/// lone surrogate) keep their storage. What grows is the call's buffers, a bounded
/// number of times.
#[test]
fn repeated_repairs_in_a_call_allocate_a_bounded_number_of_times() {
    let repairs = 2000;
    let mut value = String::new();
    for i in 0..repairs {
        value.push_str(if i % 2 == 0 {
            "a\\u12G b "
        } else {
            "c\\ud800x "
        });
    }
    let call = format!(
        "<tool_call>{{\"name\": \"f\", \"arguments\": {{\"v\": \"{value}\"}}}}</tool_call>"
    );
    let lens = inputs::chunk_lens(call.len(), 13, 1, 8);
    let chunks = inputs::chunks(call.as_bytes(), &lens);
    let mut p = Parser::new(Dialect::Hermes);
    let mut released = 0;
    let mut read = |p: &mut Parser| {
        while let Some(ev) = p.next_event() {
            if let Event::CallFinished { arguments, .. } = ev {
                assert!(arguments.contains("\\\\u12G"), "{arguments:.80}");
                released += 1;
            }
        }
    };
    let before = allocs();
    for c in &chunks {
        p.push(c);
        read(&mut p);
    }
    let grew = allocs() - before;
    p.finish(StopReason::Stop);
    read(&mut p);
    assert_eq!(released, 1);
    assert!(
        grew < repairs / 10,
        "{grew} allocations for {repairs} repairs over {} chunks",
        chunks.len()
    );
}

#[test]
fn idle_parser_is_small_and_holds_no_heap() {
    // 512 before the request's `tool_choice` (16 bytes) and four more `Stats` counters
    // (32 bytes) joined it, then the form of the calls being read (8 bytes: the release
    // gate weighs its dialect's openers inside a string written raw).
    assert!(
        std::mem::size_of::<Parser>() <= 584,
        "Parser is {} bytes",
        std::mem::size_of::<Parser>()
    );
    for dialect in [
        Dialect::Auto,
        Dialect::Hermes,
        Dialect::Qwen3Coder,
        Dialect::Gemma4,
    ] {
        // The dialect's marker tables are shared and built once per process.
        drop(Parser::new(dialect));
        let (before, live_before) = (allocs(), live());
        let mut p = Parser::new(dialect);
        p.reset();
        assert_eq!(
            allocs() - before,
            0,
            "{}: building a parser allocated",
            dialect.name()
        );
        assert_eq!(live(), live_before, "{}", dialect.name());
        drop(p);
    }
}

#[test]
fn peak_memory_is_at_most_twice_the_largest_call() {
    let args = inputs::big_args(1 << 20, 5);
    let call = inputs::hermes_call("store", &args);
    for (min, max) in [(1, 8), (call.len(), call.len())] {
        let lens = inputs::chunk_lens(call.len(), 4, min, max);
        // The list of chunks is the test's, not the parser's: built before the count.
        let chunks = inputs::chunks(&call, &lens);
        let base = reset_peak();
        let mut p = Parser::new(Dialect::Hermes);
        let mut released = 0;
        for c in chunks.iter().copied() {
            p.push(c);
            while let Some(ev) = p.next_event() {
                if let Event::CallFinished { arguments, .. } = ev {
                    assert_eq!(arguments.as_bytes(), &args[..]);
                    released += 1;
                }
            }
        }
        p.finish(StopReason::Stop);
        while let Some(ev) = p.next_event() {
            if let Event::CallFinished { arguments, .. } = ev {
                assert_eq!(arguments.as_bytes(), &args[..]);
                released += 1;
            }
        }
        assert_eq!(released, 1);
        let used = peak() - base;
        eprintln!(
            "chunks {min}..={max}: peak {used} bytes, {:.2}x the call",
            used as f64 / call.len() as f64
        );
        assert!(
            used <= 2 * call.len(),
            "chunks {min}..={max}: peak {used} bytes for a {} byte call",
            call.len()
        );
    }
}

/// Allocations while `input` is pushed in 1 to 8 byte chunks and its events read.
fn allocs_pushing(input: &[u8]) -> u64 {
    let lens = inputs::chunk_lens(input.len(), 13, 1, 8);
    let chunks = inputs::chunks(input, &lens);
    let mut p = Parser::new(Dialect::Hermes);
    let before = allocs();
    for c in &chunks {
        p.push(c);
        drain(&mut p);
    }
    p.finish(StopReason::Stop);
    drain(&mut p);
    allocs() - before
}

/// Structure-heavy arguments weigh a quote at every string end with a look-ahead,
/// whose storage is reused from quote to quote: eight times the arguments cost only
/// the buffers' few doublings more.
#[test]
fn look_aheads_are_not_allocated_per_quote() {
    let call = |size| inputs::hermes_call("f", &inputs::big_args(size, 3));
    let (small, large) = (
        allocs_pushing(&call(1 << 16)),
        allocs_pushing(&call(1 << 19)),
    );
    assert!(
        large < small + 32,
        "{small} allocations for 64 KiB, {large} for 512 KiB"
    );
}
