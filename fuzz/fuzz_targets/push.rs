//! Arbitrary bytes in arbitrary chunks through `auto` and every dialect, with the
//! prompt's reasoning block open and closed: no panic, and every invariant of one run
//! holds (see `common::check`).
#![no_main]

mod common;

use common::{check, header, run, Chunking, Setup};
use libfuzzer_sys::fuzz_target;
use toolsift::Parser;

fuzz_target!(|data: &[u8]| {
    // Header: Setup (2 bytes), Chunking (6 bytes); then the raw model output.
    let ((setup0, chunking), raw): ((Setup, Chunking), _) = header(data, 8);
    let dialects = Setup::dialects();
    for (d, dialect) in dialects.iter().enumerate() {
        for open in [false, true] {
            let setup = Setup {
                dialect: d as u8,
                flags: (setup0.flags & !1) | open as u8,
            };
            let config = setup.config();
            assert_eq!(config.dialect, *dialect);
            let mut parser = Parser::with_config(config);
            let got = run(&mut parser, raw, &chunking, setup.stop());
            if let Err(e) = check(*dialect, &got) {
                panic!("{dialect} {setup:?} {:?}: {e}", chunking);
            }
        }
    }
});
