//! The `toolsift` command-line tool.
mod cli;

fn main() {
    std::process::exit(cli::main(std::env::args().collect()));
}
