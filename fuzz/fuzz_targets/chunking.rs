//! The same input under two arbitrary chunkings gives the same events once adjacent
//! fragments are merged. The second run reuses the first run's parser after `reset`.
#![no_main]

mod common;

use arbitrary::Arbitrary;
use common::{check, merge, run, Chunking, Setup};
use libfuzzer_sys::fuzz_target;
use toolsift::Parser;

#[derive(Arbitrary, Debug)]
struct Input {
    setup: Setup,
    a: Chunking,
    b: Chunking,
    raw: Vec<u8>,
}

fuzz_target!(|input: Input| {
    let config = input.setup.config();
    let dialect = config.dialect;
    let stop = input.setup.stop();
    let mut parser = Parser::with_config(config.clone());
    let first = run(&mut parser, &input.raw, &input.a, stop);
    parser.reset();
    let second = run(&mut parser, &input.raw, &input.b, stop);
    let whole = run(&mut Parser::with_config(config), &input.raw, &Chunking([0; 6]), stop);
    for (name, got) in [("a", &first), ("b", &second), ("whole", &whole)] {
        if let Err(e) = check(dialect, got) {
            panic!("{name}: {e}");
        }
    }
    let (a, b, w) = (merge(&first.events), merge(&second.events), merge(&whole.events));
    assert_eq!(a, w, "chunking {:?} differs from the whole input", input.a);
    assert_eq!(b, w, "chunking {:?} (after reset) differs from the whole input", input.b);
});
