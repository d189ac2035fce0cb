//! The `crawlaudit` command line: parses arguments and dispatches to the
//! library. See `crawlaudit --help`.

fn main() -> std::process::ExitCode {
    crawlaudit::cli::main()
}
