//! Seeded inputs shared by the benches and the performance tests: prose, HTML files
//! written through a hermes `write_file` call (valid and malformed as small models
//! break it), a large arguments object, parallel calls and one call per dialect.
#![allow(dead_code)]

/// A small deterministic generator (xorshift64).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Split `len` bytes into chunks of `min..=max` bytes (seeded): the chunk lengths.
pub fn chunk_lens(len: usize, seed: u64, min: usize, max: usize) -> Vec<usize> {
    let mut rng = Rng::new(seed);
    let mut lens = Vec::new();
    let mut left = len;
    while left > 0 {
        let n = (min + rng.below(max - min + 1)).min(left);
        lens.push(n);
        left -= n;
    }
    lens
}

/// `bytes` cut into `lens`-sized chunks.
pub fn chunks<'a>(bytes: &'a [u8], lens: &[usize]) -> Vec<&'a [u8]> {
    let mut at = 0;
    lens.iter()
        .map(|&n| {
            let c = &bytes[at..at + n];
            at += n;
            c
        })
        .collect()
}

const WORDS: &[&str] = &[
    "the", "model", "returns", "a", "stream", "of", "tokens", "and", "each", "chunk", "is",
    "parsed", "as", "it", "arrives", "without", "waiting", "for", "end", "request", "server",
    "client", "latency", "buffer", "value", "function", "result", "error", "simple", "fast",
    "naïve", "café", "über", "response", "into", "with", "from", "that", "this", "when",
];

/// About `len` bytes of prose and markdown with no call in it: paragraphs, headings,
/// lists, inline code, fenced code with comparisons, links and a little HTML.
pub fn prose(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut s = String::with_capacity(len + 256);
    while s.len() < len {
        match rng.below(10) {
            0 => s.push_str(&format!("## {} {}\n\n", rng.pick(WORDS), rng.pick(WORDS))),
            1 => {
                for _ in 0..3 {
                    s.push_str(&format!(
                        "- **{}** `{}()` {}\n",
                        rng.pick(WORDS),
                        rng.pick(WORDS),
                        rng.pick(WORDS)
                    ));
                }
                s.push('\n');
            }
            2 => s.push_str("```rust\nif a < b && c > d { let x = [1, 2]; }\n```\n\n"),
            3 => s.push_str(&format!(
                "See [the {} docs](https://example.com/{}) or <details>{}</details>.\n\n",
                rng.pick(WORDS),
                rng.pick(WORDS),
                rng.pick(WORDS)
            )),
            _ => {
                let n = 20 + rng.below(40);
                for i in 0..n {
                    if i > 0 {
                        s.push(' ');
                    }
                    s.push_str(rng.pick(WORDS));
                }
                s.push_str(".\n\n");
            }
        }
    }
    s.into_bytes()
}

/// An HTML page of about `len` bytes: attributes with double quotes, a script with a
/// `\d` regex, tabs for indentation.
pub fn html(len: usize, seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let mut s = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n\t<meta charset=\"UTF-8\">\n\t<title>Demo</title>\n\t<style>\n\t\tbody { font-family: sans-serif; }\n\t</style>\n</head>\n<body>\n",
    );
    let mut n = 0;
    while s.len() + 200 < len {
        n += 1;
        match rng.below(4) {
            0 => s.push_str(&format!(
                "\t<div class=\"card\" id=\"c{n}\">\n\t\t<h2>{} {}</h2>\n\t</div>\n",
                rng.pick(WORDS),
                rng.pick(WORDS)
            )),
            1 => s.push_str(&format!(
                "\t<p>The {} {} {} &amp; {}.</p>\n",
                rng.pick(WORDS),
                rng.pick(WORDS),
                rng.pick(WORDS),
                rng.pick(WORDS)
            )),
            2 => s.push_str(&format!(
                "\t<a href=\"/{}\" title=\"{}\">{}</a>\n",
                rng.pick(WORDS),
                rng.pick(WORDS),
                rng.pick(WORDS)
            )),
            _ => s.push_str(&format!(
                "\t<script>\n\t\tconst ok{n} = /^\\d+$/.test(\"{}\");\n\t</script>\n",
                rng.pick(WORDS)
            )),
        }
    }
    s.push_str("</body>\n</html>\n");
    s
}

/// A hermes `write_file` call of `content`, validly escaped.
pub fn write_file_call(content: &str) -> Vec<u8> {
    let args = serde_json::json!({ "path": "index.html", "content": content });
    let call = serde_json::json!({ "name": "write_file", "arguments": args });
    format!("<tool_call>\n{call}\n</tool_call>").into_bytes()
}

/// The same call as a small model breaks it: raw newlines and tabs in the string,
/// unescaped inner quotes in attributes, `\d` written as a lone escape.
pub fn write_file_call_malformed(content: &str) -> Vec<u8> {
    // The content goes in raw: newlines, tabs and attribute quotes unescaped, and the
    // regex's backslash left alone, so `\d` arrives as an invalid escape.
    let body = content;
    format!(
        "<tool_call>\n{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"index.html\", \"content\": \"{body}\"}}}}\n</tool_call>"
    )
    .into_bytes()
}

/// A valid arguments object of about `len` bytes: many members of every JSON type.
pub fn big_args(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut s = String::with_capacity(len + 256);
    s.push('{');
    let mut i = 0;
    while s.len() + 160 < len {
        if i > 0 {
            s.push_str(", ");
        }
        match rng.below(5) {
            0 => s.push_str(&format!(
                "\"text{i}\": \"{} {} \\\"{}\\\"\\n{} {}\"",
                rng.pick(WORDS),
                rng.pick(WORDS),
                rng.pick(WORDS),
                rng.pick(WORDS),
                rng.pick(WORDS)
            )),
            1 => s.push_str(&format!(
                "\"n{i}\": {}.{}",
                rng.below(100000),
                rng.below(1000)
            )),
            2 => s.push_str(&format!(
                "\"list{i}\": [{}, {}, true, null, \"{}\"]",
                rng.below(1000),
                rng.below(1000),
                rng.pick(WORDS)
            )),
            3 => s.push_str(&format!(
                "\"obj{i}\": {{\"id\": {}, \"name\": \"{}\", \"ok\": false}}",
                rng.below(1 << 20),
                rng.pick(WORDS)
            )),
            _ => s.push_str(&format!(
                "\"code{i}\": \"fn main() {{\\n\\tprintln!(\\\"{}\\\");\\n}}\\n\"",
                rng.pick(WORDS)
            )),
        }
        i += 1;
    }
    s.push('}');
    s.into_bytes()
}

/// A hermes call carrying `args`.
pub fn hermes_call(name: &str, args: &[u8]) -> Vec<u8> {
    let mut v = format!("<tool_call>\n{{\"name\": \"{name}\", \"arguments\": ").into_bytes();
    v.extend_from_slice(args);
    v.extend_from_slice(b"}\n</tool_call>");
    v
}

/// `n` small hermes calls in one response.
pub fn parallel_calls(n: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut v = Vec::new();
    for i in 0..n {
        let city = rng.pick(WORDS);
        v.extend_from_slice(
            format!(
                "<tool_call>\n{{\"name\": \"get_weather\", \"arguments\": {{\"city\": \"{city}\", \"days\": {}}}}}\n</tool_call>\n",
                i % 7 + 1
            )
            .as_bytes(),
        );
    }
    v
}

/// One representative call per dialect (with a little prose around it).
pub fn dialect_calls() -> Vec<(toolsift::Dialect, Vec<u8>)> {
    use toolsift::Dialect;
    vec![
        (
            Dialect::Hermes,
            b"Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}\n</tool_call>".to_vec(),
        ),
        (
            Dialect::Qwen3Coder,
            b"Let me check.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>".to_vec(),
        ),
        (
            Dialect::Gemma4,
            b"Let me check.\n<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>,days:3}<tool_call|>".to_vec(),
        ),
    ]
}

/// An adversarial stream: near-markers, lone quotes that force the look-ahead, deep
/// nesting and broken escapes, in a call and around it.
pub fn adversarial(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut v = Vec::new();
    for _ in 0..64 {
        v.extend_from_slice(b"<tool_ <tool_cal <tool_callx < <<think <|tool_call ");
    }
    v.extend_from_slice(b"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"s\": \"");
    for _ in 0..200 {
        match rng.below(4) {
            0 => v.extend_from_slice(b"say \"hi\", \"x\": 1 "),
            1 => v.extend_from_slice(b"\\q\\u12\\"),
            2 => v.extend_from_slice(b"\"}, {\"k\""),
            _ => v.extend_from_slice(b"[[[{\"a\": ["),
        }
    }
    v.extend_from_slice(b"\"}}\n</tool_call>");
    v
}
