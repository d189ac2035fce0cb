//! `crawlaudit merge`: shard reports added up into the report of one run.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser;
use crawlaudit::report::Report;

/// `crawlaudit merge`.
#[derive(Debug, Parser)]
#[command(after_help = "\
Reads the report directories written by `audit --shard K/N` (every K of one
N, each once; their Parquet tables and summary.json) and writes the report a
single `audit` over all hosts would have written: the same CSV, NDJSON,
Parquet and HTML bytes, and summary.json but for its run time.

Exit codes: 0 success; 2 a directory that is not a shard report, shards
missing or repeated, or shards of different inputs or settings.")]
pub struct Args {
    /// Shard report directories.
    #[arg(value_name = "REPORT_DIR", required = true)]
    dirs: Vec<PathBuf>,
    /// Where the merged report goes (replaced atomically).
    #[arg(long, default_value = "reports", value_name = "DIR")]
    out: PathBuf,
    /// Any of csv, parquet, json, html.
    #[arg(long, default_value = "csv,parquet,json,html", value_name = "LIST")]
    output_formats: String,
}

/// Runs `merge`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let formats = super::audit::parse_formats(&args.output_formats)?;
    super::check_out(&args.out)?;
    for dir in &args.dirs {
        super::refuse_inside_out(dir, &args.out, "a shard report")?;
    }
    let report = Report::merge(&args.dirs)?;
    report
        .write(&args.out, formats)
        .with_context(|| format!("the report was not written to {}", args.out.display()))?;
    super::unless_broken_pipe(super::print_summary(&report, &args.out, false))?;
    Ok(ExitCode::SUCCESS)
}
