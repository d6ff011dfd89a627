//! The same input under two arbitrary chunkings gives the same events once adjacent
//! fragments are merged. The second run reuses the first run's parser after `reset`.
#![no_main]

mod common;

use common::{check, header, merge, run, Chunking, Setup};
use libfuzzer_sys::fuzz_target;
use toolsift::Parser;

fuzz_target!(|data: &[u8]| {
    // Header: Setup (2 bytes), two Chunkings (6 bytes each); then the raw model output.
    let ((setup, ca, cb), raw): ((Setup, Chunking, Chunking), _) = header(data, 14);
    let config = setup.config();
    let dialect = config.dialect;
    let stop = setup.stop();
    let mut parser = Parser::with_config(config.clone());
    let first = run(&mut parser, raw, &ca, stop);
    parser.reset();
    let second = run(&mut parser, raw, &cb, stop);
    let whole = run(
        &mut Parser::with_config(config),
        raw,
        &Chunking([0; 6]),
        stop,
    );
    for (name, got) in [("a", &first), ("b", &second), ("whole", &whole)] {
        if let Err(e) = check(dialect, got) {
            panic!("{name}: {e}");
        }
    }
    let (a, b, w) = (
        merge(&first.events),
        merge(&second.events),
        merge(&whole.events),
    );
    assert_eq!(a, w, "chunking {:?} differs from the whole input", ca);
    assert_eq!(
        b, w,
        "chunking {:?} (after reset) differs from the whole input",
        cb
    );
});
