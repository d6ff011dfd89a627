//! The `toolsift` command-line tool.
fn main() {
    std::process::exit(toolsift::cli::main(std::env::args().skip(1).collect()));
}
