//! `toolsift proxy` as a user starts it: flags, the config file, and what is wrong with
//! either named before anything listens.

use assert_cmd::Command;
use std::io::{BufRead, BufReader};
use std::process::Stdio;

fn toolsift() -> Command {
    Command::cargo_bin("toolsift").expect("the toolsift binary")
}

fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toolsift-proxy-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn fails_with(args: &[&str], needle: &str) {
    let out = toolsift().arg("proxy").args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains(needle), "{args:?}: {stderr}");
}

#[test]
fn bad_settings_are_named() {
    fails_with(&["--upstream", "http://127.0.0.1:1/v1"], "--listen");
    fails_with(
        &["--listen", "127.0.0.1:0", "--upstream", "ftp://x/v1"],
        "expected http(s)://",
    );
    fails_with(
        &[
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            "http://x/v1",
            "--dialect",
            "hermez",
        ],
        "hermes",
    );
    fails_with(
        &[
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            "https://x/v1",
            "--upstream-ca",
            "/no/such/ca.pem",
        ],
        "/no/such/ca.pem",
    );
    let file = temp_file(
        "unknown-key.toml",
        "listen = \"127.0.0.1:0\"\nlisten_on = 1\n",
    );
    fails_with(&["--config", file.to_str().unwrap()], "listen_on");
    let file = temp_file("bad-timeout.toml", "idle_timeout = 0\n");
    fails_with(
        &[
            "--config",
            file.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            "http://x/v1",
        ],
        "idle_timeout",
    );
}

#[test]
fn the_config_file_starts_the_proxy_and_flags_win() {
    let file = temp_file(
        "proxy.toml",
        "listen = \"127.0.0.1:1\"\nupstream = \"http://127.0.0.1:9/v1\"\nhold_calls = true\n\
         [[models]]\nmatch = \"coder\"\ndialect = \"qwen3_coder\"\nreasoning_open = true\n",
    );
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("toolsift"))
        .args([
            "proxy",
            "--config",
            file.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(line.contains("listening on http://127.0.0.1:"), "{line}");
    assert!(
        !line.contains("127.0.0.1:1/"),
        "the flag's address wins: {line}"
    );
    assert!(line.contains("upstream http://127.0.0.1:9/v1"), "{line}");
    assert!(line.contains("dialect by model name"), "{line}");
    assert!(line.contains("calls held until released"), "{line}");
}

/// An upstream URL without `/v1` sends every request to `/chat/completions`: the proxy
/// says so when it starts, before it listens.
#[test]
fn an_upstream_without_v1_is_warned_about_at_start() {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("toolsift"))
        .args([
            "proxy",
            "--upstream",
            "http://127.0.0.1:9",
            "--listen",
            "127.0.0.1:0",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let (mut warning, mut listening) = (String::new(), String::new());
    err.read_line(&mut warning).unwrap();
    err.read_line(&mut listening).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        warning.contains("warning: --upstream http://127.0.0.1:9 has no /v1"),
        "{warning}"
    );
    assert!(warning.contains("http://127.0.0.1:9/v1"), "{warning}");
    assert!(listening.contains("listening on"), "{listening}");
}

#[test]
fn help_lists_the_operational_options() {
    let out = toolsift().args(["proxy", "--help"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for option in [
        "--config",
        "--upstream-ca",
        "--connect-timeout",
        "--idle-timeout",
        "--max-body-bytes",
        "--reasoning-open",
        "--model-reasoning-open",
        "--log",
    ] {
        assert!(text.contains(option), "{option} in {text}");
    }
}
