//! The `crawlaudit` command line: parses arguments and dispatches to the
//! library. See `crawlaudit --help`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
