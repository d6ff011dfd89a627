//! Arbitrary bytes in arbitrary chunks through `auto` and every dialect, with the
//! prompt's reasoning block open and closed: no panic, and every invariant of one run
//! holds (see `common::check`).
#![no_main]

mod common;

use arbitrary::Arbitrary;
use common::{check, run, Chunking, Setup};
use libfuzzer_sys::fuzz_target;
use toolsift::Parser;

#[derive(Arbitrary, Debug)]
struct Input {
    setup: Setup,
    chunking: Chunking,
    raw: Vec<u8>,
}

fuzz_target!(|input: Input| {
    let dialects = Setup::dialects();
    for (d, dialect) in dialects.iter().enumerate() {
        for open in [false, true] {
            let setup = Setup {
                dialect: d as u8,
                flags: (input.setup.flags & !1) | open as u8,
            };
            let config = setup.config();
            assert_eq!(config.dialect, *dialect);
            let mut parser = Parser::with_config(config);
            let got = run(&mut parser, &input.raw, &input.chunking, setup.stop());
            if let Err(e) = check(*dialect, &got) {
                panic!("{dialect} {setup:?} {:?}: {e}", input.chunking);
            }
        }
    }
});
