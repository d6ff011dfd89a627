//! `toolsift::repair` against serde_json: whatever serde_json accepts comes back byte
//! for byte with no repair; whatever `repair` returns is strict JSON; repairing its
//! output again changes nothing. "Accepts" is a full `Value` parse; "strict" is the JSON
//! grammar as serde_json's raw value reads it, the engine's own check: `1e400` (out of
//! f64 range) is strict and kept as written, a lone surrogate escape is repaired.
//!
//! The strict fast paths' validator (`src/json/validator.rs`) is checked here too:
//! cargo-fuzz builds with debug assertions, under which every answer it gives is
//! compared with serde_json's: `repair` asks it whether the whole input is a
//! well-formed value, and the input pushed whole as a call's arguments asks it where
//! the call object at the start of the chunk ends.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::value::RawValue;

fuzz_target!(|data: &[u8]| {
    let mut call = b"<tool_call>{\"name\": \"f\", \"arguments\": ".to_vec();
    call.extend_from_slice(data);
    call.extend_from_slice(b"}</tool_call>");
    let mut parser = toolsift::Parser::new(toolsift::Dialect::Hermes);
    parser.push(&call);
    parser.finish(toolsift::StopReason::Stop);
    while parser.next_event().is_some() {}
    let valid = serde_json::from_slice::<serde_json::Value>(data).is_ok();
    let fixed = toolsift::repair(data);
    if valid {
        let fixed = fixed.expect("valid JSON must repair");
        assert_eq!(fixed.json.as_bytes(), data, "valid JSON changed");
        assert!(
            fixed.repairs.is_empty(),
            "repairs on valid JSON: {:?}",
            fixed.repairs
        );
        return;
    }
    let Ok(fixed) = fixed else { return };
    if let Err(e) = serde_json::from_str::<&RawValue>(&fixed.json) {
        panic!("repair output is not strict JSON ({e}): {:?}", fixed.json);
    }
    let again = toolsift::repair(fixed.json.as_bytes()).expect("own output must repair");
    assert_eq!(again.json, fixed.json, "repairing the output changed it");
    assert!(
        again.repairs.is_empty(),
        "repairs on own output: {:?}",
        again.repairs
    );
});
