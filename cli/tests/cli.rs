//! The `toolsift` binary as a user meets it.

use assert_cmd::Command;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::Stdio;

fn toolsift() -> Command {
    Command::cargo_bin("toolsift").expect("the toolsift binary")
}

fn stdout_of(output: &std::process::Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("utf-8 output")
}

fn stderr_of(output: &std::process::Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("utf-8 errors")
}

#[test]
fn version() {
    let out = toolsift().arg("--version").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout_of(&out).trim(),
        format!("toolsift {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn help_on_every_subcommand() {
    for cmd in ["parse", "repair", "dialects", "sample", "replay", "proxy"] {
        let out = toolsift().args([cmd, "--help"]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{cmd} --help");
        let text = stdout_of(&out);
        assert!(
            text.contains(&format!("Usage: toolsift {cmd}")),
            "{cmd}: {text}"
        );
    }
    let out = toolsift().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    // The fake upstream a newcomer wants first is listed too.
    for cmd in [
        "parse",
        "repair",
        "dialects",
        "sample",
        "replay",
        "proxy",
        "replay-upstream",
    ] {
        assert!(stdout_of(&out).contains(cmd), "{cmd} in the top-level help");
    }
}

#[test]
fn a_second_input_file_is_an_error() {
    let out = toolsift()
        .args(["parse", "a.txt", "b.txt"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("unexpected argument 'b.txt'"));
    assert!(out.stdout.is_empty());
    let out = toolsift()
        .args(["repair", "a.json", "b.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_unknown_dialect_names_the_closest() {
    let out = toolsift()
        .args(["parse", "--dialect", "hermez"])
        .write_stdin("hi")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(err.contains("unknown dialect \"hermez\""), "{err}");
    assert!(err.contains("closest: hermes"), "{err}");
    let out = toolsift()
        .args(["parse", "--dialect", "qwen3-codr"])
        .write_stdin("hi")
        .output()
        .unwrap();
    assert!(stderr_of(&out).contains("qwen3_coder"));
}

#[test]
fn dialects_lists_names_aliases_and_openers() {
    let out = toolsift().arg("dialects").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = stdout_of(&out);
    for line in [
        "hermes*  (also qwen, qwen25, qwen2_5, qwen3, qwen3_json, granite4, trinity)",
        "    opens with \"<tool_call>\"",
        "xlam",
        "    models named magistral, devstral, ministral, codestral, mistral",
        "* auto reads this dialect's calls.",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
    let out = toolsift().args(["dialects", "--json"]).output().unwrap();
    let rows: Vec<Value> = stdout_of(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), toolsift::Dialect::ALL.len() + 1);
    for row in &rows[1..] {
        let name = row["name"].as_str().unwrap();
        assert!(!row["openers"].as_array().unwrap().is_empty(), "{name}");
        // Every name and alias listed is accepted.
        let aliases = row["aliases"].as_array().unwrap();
        for alias in aliases.iter().map(|a| a.as_str().unwrap()).chain([name]) {
            let status = toolsift()
                .args(["parse", "--dialect", alias])
                .write_stdin("")
                .output()
                .unwrap()
                .status;
            assert!(status.success(), "--dialect {alias}");
        }
    }
    assert!(!text.contains("taken part in"), "{text}");
    // vLLM's and SGLang's tool-parser names (scripts/server_parsers.py checks them all
    // against the installed servers).
    for server in [
        "hermes",
        "llama3_json",
        "pythonic",
        "granite-20b-fc",
        "openai",
        "glm45",
        "beam",
        "cohere_command4",
        "deepseek_v41",
        "dots",
        "k2_horizon",
        "plamo3",
        "gigachat35",
        "iquest_q1",
        "minimax-m2",
    ] {
        assert!(text.contains(&server.replace('-', "_")), "{server}");
    }
}

#[test]
fn writing_into_a_closed_pipe_ends_quietly() {
    // More output than a pipe holds, and a reader that reads one line and goes away.
    let raw = "word ".repeat(1 << 18);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolsift"))
        .args(["parse", "--events", "--chunks", "4"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        // The child may stop reading once its output is gone: a failed write is fine.
        let _ = stdin.write_all(raw.as_bytes());
    });
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.contains("\"text\""), "{first}");
    drop(stdout);
    let status = child.wait().unwrap();
    writer.join().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(0), "stderr: {err}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn parse_prints_events_before_the_input_ends() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolsift"))
        .args(["parse", "--events", "--dialect", "hermes"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    // A long string: the parser decides a call's first bytes within a bounded look-ahead.
    let text = "abc".repeat(400);
    stdin
        .write_all(
            format!("<tool_call>{{\"name\": \"write\", \"arguments\": {{\"text\": \"{text}")
                .as_bytes(),
        )
        .unwrap();
    stdin.flush().unwrap();
    // The call has started and its first argument bytes are out while stdin is open.
    let mut seen = Vec::new();
    while !seen.iter().any(|e: &Value| e["type"] == "args_delta") {
        line.clear();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "output ended early"
        );
        seen.push(serde_json::from_str(&line).unwrap());
    }
    assert_eq!(seen[0]["type"], "call_started");
    stdin.write_all(b"def\"}}</tool_call>").unwrap();
    drop(stdin);
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    assert!(child.wait().unwrap().success());
    let finished: Value = rest
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["type"] == "call_finished")
        .expect("call_finished");
    assert_eq!(finished["arguments"], format!(r#"{{"text": "{text}def"}}"#));
}

#[test]
fn jsonl_a_bad_line_is_an_error_object_and_the_batch_goes_on() {
    let input = "{\"raw\": \"hi\"}\nnot json\n{\"raw\": 3}\n{\"raw\": \"x\", \"dialect\": \"nope\"}\n{\"raw\": \"<tool_call>{\\\"name\\\": \\\"f\\\", \\\"arguments\\\": {}}</tool_call>\"}\n";
    let out = toolsift()
        .args(["parse", "--jsonl"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<Value> = stdout_of(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0]["content"], "hi");
    for (i, n) in [(1, 2), (2, 3), (3, 4)] {
        assert_eq!(lines[i]["line"], n);
        assert!(lines[i]["error"].is_string());
    }
    assert!(lines[3]["error"]
        .as_str()
        .unwrap()
        .contains("unknown dialect"));
    assert_eq!(lines[4]["tool_calls"][0]["function"]["name"], "f");

    let out = toolsift()
        .args(["repair", "--jsonl"])
        .write_stdin("{\"input\": \"[1,]\"}\n{\"nope\": 1}\n{\"input\": \"{'a': 1}\"}\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<Value> = stdout_of(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["output"], "[1]");
    assert_eq!(lines[1]["line"], 2);
    assert_eq!(lines[2]["output"], "{\"a\": 1}");
}

#[test]
fn parse_message_and_chunkings_agree() {
    let raw = "<think>plan</think>Sure.\n<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"a\",}}\n</tool_call>";
    let mut seen = Vec::new();
    for chunks in ["whole", "bytes", "3", "random:5"] {
        let out = toolsift()
            .args(["parse", "--chunks", chunks])
            .write_stdin(raw)
            .output()
            .unwrap();
        assert!(out.status.success());
        seen.push(stdout_of(&out));
    }
    assert!(seen.iter().all(|s| *s == seen[0]));
    let msg: Value = serde_json::from_str(&seen[0]).unwrap();
    assert_eq!(msg["content"], "Sure.\n");
    assert_eq!(msg["reasoning_content"], "plan");
    assert_eq!(
        msg["tool_calls"][0]["function"]["arguments"],
        r#"{"path": "a"}"#
    );
    assert_eq!(msg["finish_reason"], "tool_calls");
}

#[test]
fn repair_escapes_a_tab() {
    let out = toolsift()
        .arg("repair")
        .write_stdin("abc\tdef")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(stdout_of(&out), "\"abc\\tdef\"\n");
    let out = toolsift().arg("repair").write_stdin("").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("cannot repair"));
}

#[test]
fn repair_prints_the_value_alone_and_says_what_it_dropped() {
    let out = toolsift()
        .arg("repair")
        .write_stdin("{\"a\":1}   \n\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout_of(&out), "{\"a\":1}\n", "no trailing blanks");
    let out = toolsift()
        .arg("repair")
        .write_stdin("{\"a\":1} {\"b\":2}")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout_of(&out), "{\"a\":1}\n");
    assert!(
        stderr_of(&out).contains("dropped a second JSON value after the first value: {\"b\":2}"),
        "{}",
        stderr_of(&out)
    );
    let out = toolsift()
        .arg("repair")
        .write_stdin("{\"a\":1} and that is all")
        .output()
        .unwrap();
    assert!(stderr_of(&out).contains("dropped text after the first value: and that is all"));
}

#[test]
fn repair_fails_on_what_is_not_json_in_words_for_a_person() {
    // Bytes that are not text: nothing JSON-like to repair, every value would be invented.
    let noise: Vec<u8> = (0..400u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let out = toolsift()
        .arg("repair")
        .write_stdin(noise)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout_of(&out).is_empty());
    assert!(
        stderr_of(&out).contains("the input is not text"),
        "{}",
        stderr_of(&out)
    );
    for input in ["]]]", "", "   "] {
        let out = toolsift()
            .arg("repair")
            .write_stdin(input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{input:?}");
        let err = stderr_of(&out);
        assert!(
            err.contains("no JSON value in the input"),
            "{input:?}: {err}"
        );
        assert!(
            !err.contains("line 1 column"),
            "serde's internals shown: {err}"
        );
    }
}

#[test]
fn replay_names_each_unreadable_record_and_fails() {
    let dir = std::env::temp_dir().join(format!("toolsift-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("records.jsonl");
    std::fs::write(
        &file,
        "{\"raw\": \"hi\"}\n\nnot json\n{\"x\": 1}\n{\"raw\": \"a\", \"tools\": 5}\n",
    )
    .unwrap();
    let out = toolsift()
        .args(["replay", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    assert!(err.contains("line 3: not JSON"), "{err}");
    assert!(err.contains("line 4: no \"raw\" string"), "{err}");
    assert!(err.contains("line 5: bad \"tools\""), "{err}");
    assert!(
        stdout_of(&out).contains("4 records (3 unreadable)"),
        "{}",
        stdout_of(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn stop_and_chunks_say_what_they_take() {
    for stop in ["LENGTH", "Length", "max_tokens", "eos", "END_TURN"] {
        let out = toolsift()
            .args(["parse", "--dialect", "hermes", "--stop", stop])
            .write_stdin("<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": ")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "--stop {stop}");
    }
    let out = toolsift()
        .args(["parse", "--stop", "bogus"])
        .write_stdin("x")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("stop (also eos, end_turn), length (also max_tokens)"));
    let help = toolsift().args(["parse", "--help"]).output().unwrap();
    assert!(stdout_of(&help).contains("also eos, end_turn"));
    let out = toolsift()
        .args(["parse", "--chunks", "0"])
        .write_stdin("x")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("must be at least 1"),
        "{}",
        stderr_of(&out)
    );
}
