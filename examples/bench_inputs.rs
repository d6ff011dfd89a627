//! Writes the benches' inputs (`benches/support/inputs.rs`) to files, so benchmarks in
//! other languages (the Python side-by-side, `python/bench/vllm_side_by_side.py`) run on
//! exactly the same bytes.
//!
//! Usage: cargo run --release --example bench_inputs -- DIR

#[path = "../benches/support/inputs.rs"]
mod inputs;

use std::path::PathBuf;

const MIB: usize = 1 << 20;

fn main() -> std::io::Result<()> {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| {
        eprintln!("usage: bench_inputs DIR");
        std::process::exit(2)
    }));
    std::fs::create_dir_all(&dir)?;
    let html = inputs::html(19 * 1024, 19);
    let files: [(&str, Vec<u8>); 4] = [
        ("prose_1mib.txt", inputs::prose(MIB, 1)),
        ("write_file_19k_valid.txt", inputs::write_file_call(&html)),
        (
            "write_file_19k_malformed.txt",
            inputs::write_file_call_malformed(&html),
        ),
        ("parallel_100_calls.txt", inputs::parallel_calls(100, 6)),
    ];
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes)?;
    }
    // The file's content as the call should carry it, for checking the final call.
    std::fs::write(dir.join("write_file_19k_content.html"), html)?;
    Ok(())
}
