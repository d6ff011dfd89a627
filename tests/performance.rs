//! Correctness of the bench inputs, parser size and linear work (not timed).

#[path = "../benches/support/inputs.rs"]
mod inputs;

use toolsift::{Dialect, Event, Parser, StopReason};

/// Push `raw` in the given chunk lengths (drained after each push); the finished calls'
/// arguments.
fn run(p: &mut Parser, raw: &[u8], lens: &[usize]) -> Vec<String> {
    let mut args = Vec::new();
    let mut collect = |p: &mut Parser| {
        while let Some(ev) = p.next_event() {
            match ev {
                Event::CallFinished { arguments, .. } => args.push(arguments.to_owned()),
                Event::CallNotReleased {
                    reason, feedback, ..
                } => {
                    panic!("call not released: {reason:?} {feedback}")
                }
                _ => {}
            }
        }
    };
    for c in inputs::chunks(raw, lens) {
        p.push(c);
        collect(p);
    }
    p.finish(StopReason::Stop);
    collect(p);
    args
}

fn content_of(args: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(args).unwrap();
    v["content"].as_str().unwrap().to_owned()
}

#[test]
fn malformed_write_file_comes_back_exact() {
    let html = inputs::html(19 * 1024, 19);
    assert!(
        html.contains("<meta charset=\"UTF-8\">") && html.contains("\\d") && html.contains('\t')
    );
    for raw in [
        inputs::write_file_call(&html),
        inputs::write_file_call_malformed(&html),
    ] {
        for (min, max) in [(1, 1), (1, 8), (raw.len(), raw.len())] {
            let lens = inputs::chunk_lens(raw.len(), 7, min, max);
            let args = run(&mut Parser::new(Dialect::Hermes), &raw, &lens);
            assert_eq!(args.len(), 1);
            assert!(
                content_of(&args[0]) == html,
                "content differs (chunks {min}..={max})"
            );
        }
    }
}
