//! Command-line parsing and dispatch. Each subcommand lives in its own file
//! with its arguments and a `run` function. A hidden module of the library,
//! so that the binary and the Python package (`crawlaudit-spark`) parse the
//! same flags; the rest of the library never sees clap.

mod audit;
mod check;
mod demo;
mod logs;
mod merge;
mod ranges;
mod rules;
mod rules_snapshot;
pub mod spark;
mod term;

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crawlaudit::replay::ViolationKind;
use crawlaudit::report::Report;

use clap::{Parser, Subcommand};

/// Exit code for usage and input errors.
const EXIT_INPUT_ERROR: u8 = 2;

/// Which crawlers disobeyed this site's robots rules?
#[derive(Debug, Parser)]
#[command(name = "crawlaudit", version, about, long_about = None)]
struct Cli {
    /// Worker threads, polars' included (default: one per core; at most 4 per core and 256).
    #[arg(long, global = true, value_name = "N")]
    threads: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

// Parsed once per run: the size of the largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    /// Audit access logs against a site snapshot and write the compliance report.
    Audit(audit::Args),
    /// Test URLs against a robots.txt file, as Google's robots.txt tester does.
    Check(check::Args),
    /// Explain the effective indexing rules (X-Robots-Tag, robots meta) for one crawler.
    Rules(rules::Args),
    /// Crawler IP range files (`ranges update DIR`).
    Ranges(ranges::Args),
    /// Read access logs and report how every line parsed (no snapshot needed).
    Logs(logs::Args),
    /// Merge shard reports (`audit --shard K/N`) into the report of one run.
    Merge(merge::Args),
}

/// `--threads` is capped at this many per core: more only costs start-up
/// time and memory (each reader of a stream starts one thread per worker).
const THREADS_PER_CORE: usize = 4;
/// ... and at this many in all.
const MAX_THREADS: usize = 256;

/// The `--threads` value used for `asked`.
fn capped_threads(asked: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    asked
        .min(cores.saturating_mul(THREADS_PER_CORE))
        .min(MAX_THREADS)
}

/// `bytes` read in `seconds` as megabytes (10^6 bytes) and megabytes a
/// second, as `crawlaudit logs` and `audit --timings` print them (a run too
/// short for the clock counts as a nanosecond).
fn megabytes_and_rate(bytes: u64, seconds: f64) -> (f64, f64) {
    let mb = bytes as f64 / 1e6;
    (mb, mb / seconds.max(1e-9))
}

/// A command line clap refused, in one line on stderr (its own text runs
/// to several, with a usage line that may show an option as required),
/// exit code 2; help and version are printed as clap prints them.
fn argument_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            ExitCode::from(EXIT_INPUT_ERROR)
        } else {
            ExitCode::SUCCESS
        };
    }
    let _ = writeln!(term::stderr(), "{}", argument_error_line(e));
    ExitCode::from(EXIT_INPUT_ERROR)
}

/// A clap error in one line: `crawlaudit: error: ...; tips (see crawlaudit
/// COMMAND --help)`.
pub(crate) fn argument_error_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines
        .next()
        .unwrap_or("invalid arguments")
        .trim_start_matches("error: ");
    let tips: Vec<&str> = lines.filter_map(|l| l.strip_prefix("tip: ")).collect();
    let command = std::env::args()
        .nth(1)
        .filter(|c| ["audit", "check", "rules", "logs", "merge", "ranges"].contains(&c.as_str()))
        .map_or_else(
            || "crawlaudit --help".to_string(),
            |c| format!("crawlaudit {c} --help"),
        );
    let mut line = format!("crawlaudit: error: {first}");
    for tip in tips {
        line.push_str(&format!("; {tip}"));
    }
    line.push_str(&format!(" (see {command})"));
    line
}

/// Runs the command line and returns the process exit code: 0 on success,
/// 2 on a usage or input error (with a one-line message on stderr).
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return argument_error(&e),
    };
    if let Some(asked) = cli.threads {
        let n = capped_threads(asked);
        if n < asked {
            let _ = writeln!(
                term::stderr(),
                "crawlaudit: warning: --threads {asked} is more than this machine can use: capped at {n} ({THREADS_PER_CORE} per core, at most {MAX_THREADS})"
            );
        }
        // polars (the report's frames, Parquet logs) keeps a pool of its
        // own, one thread per core unless told: `--threads` bounds it too.
        // SAFETY: no other thread runs yet (neither pool is started), so
        // nothing reads the environment while it is changed.
        unsafe { std::env::set_var("POLARS_MAX_THREADS", n.max(1).to_string()) };
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build_global()
        {
            let _ = writeln!(
                term::stderr(),
                "crawlaudit: error: cannot start {n} threads: {e}"
            );
            return ExitCode::from(EXIT_INPUT_ERROR);
        }
    }
    let result = match cli.command {
        Command::Audit(args) => audit::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Rules(args) => rules::run(&args),
        Command::Ranges(args) => ranges::run(&args),
        Command::Logs(args) => logs::run(&args),
        Command::Merge(args) => merge::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            let _ = writeln!(term::stderr(), "crawlaudit: error: {}", one_line(&err));
            ExitCode::from(EXIT_INPUT_ERROR)
        }
    }
}

/// Prints a report's headline numbers and its top crawlers (`audit` and
/// `merge`), from the report alone.
pub(crate) fn print_summary(report: &Report, out: &Path, demo: bool) -> anyhow::Result<()> {
    let mut o = term::stdout();
    let s = &report.summary;
    let files = s.inputs.files.len();
    if demo {
        writeln!(
            o,
            "auditing the bundled demo (two sites, one week): crawlaudit audit fixtures/demo/access.log --snapshot fixtures/demo/snapshot --ip-ranges fixtures/demo/ip-ranges; give logs and --snapshot to audit yours"
        )?;
    }
    writeln!(
        o,
        "{files} file(s), {} lines ({} bad): {} crawler and {} human requests, {}{} unjudged",
        s.inputs.lines,
        s.inputs.bad_lines,
        s.requests.crawler,
        s.requests.human,
        if s.requests.self_traffic > 0 {
            format!("{} the site's own, ", s.requests.self_traffic)
        } else {
            String::new()
        },
        s.requests.unjudged,
    )?;
    let totals: Vec<String> = ViolationKind::ALL
        .iter()
        .map(|k| format!("{} {k}", s.violations.get(*k)))
        .collect();
    writeln!(o, "violations: {}", totals.join(", "))?;
    for (category, n) in &s.not_counted {
        writeln!(
            o,
            "not counted above: {n} violations of {category} crawlers, which the site configures itself (--include {category} counts them; they are in the tables)"
        )?;
    }
    // The summary's numbers (what the findings cover), with the findings
    // table's rows beside them.
    let rows = report.finding_rows_by_kind()?;
    if !s.findings.is_empty() {
        let shown: Vec<String> = s
            .findings
            .iter()
            .map(|(k, n)| {
                let r = rows.get(k).copied().unwrap_or(0);
                format!("{n} {k} ({r} row{})", if r == 1 { "" } else { "s" })
            })
            .collect();
        writeln!(o, "findings: {}", shown.join(", "))?;
    }
    let crawlers = report.crawler_rows()?;
    writeln!(o)?;
    writeln!(
        o,
        "{:<28} {:<10} {:>9} {:>9} {:>12} {:>8} {:>8}",
        "crawler", "verified", "requests", "disallow", "crawl-delay", "noindex", "unavail."
    )?;
    for row in crawlers.iter().take(10) {
        // The verification has its own column: a long name is cut, never
        // the word that says it is unverified.
        let name = row
            .crawler
            .strip_suffix(crawlaudit::replay::UNVERIFIED_SUFFIX)
            .unwrap_or(&row.crawler);
        let name = if name.chars().count() > 28 {
            format!("{}…", name.chars().take(27).collect::<String>())
        } else {
            name.to_string()
        };
        let verified = match row.verified {
            Some(true) => "yes",
            Some(false) => "no",
            None => "unknown",
        };
        let [disallow, crawl_delay, noindex, unavailable_after] = row.violations;
        writeln!(
            o,
            "{name:<28} {verified:<10} {:>9} {disallow:>9} {crawl_delay:>12} {noindex:>8} {unavailable_after:>8}",
            row.requests
        )?;
    }
    if crawlers.len() > 10 {
        writeln!(
            o,
            "... and {} more crawlers (crawlers.csv)",
            crawlers.len() - 10
        )?;
    }
    writeln!(o)?;
    writeln!(o, "report written to {}/", out.display())?;
    Ok(())
}

/// An error and its causes on one line, each cause once: errors that name
/// their cause in their own message are not followed by it again.
fn one_line(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let part = cause.to_string();
        if !text.contains(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
    }
    text
}

/// The built-in crawler catalogue, with a `--bots` file merged over it.
/// The log format of `--format`, with `--json-fields` overrides applied.
fn log_format(
    format: &crawlaudit::logs::Format,
    json_fields: Option<&str>,
    csv_fields: Option<&str>,
) -> anyhow::Result<crawlaudit::logs::Format> {
    let mut format = format.clone();
    if let Some(spec) = json_fields {
        format = format.with_json_fields(spec).map_err(anyhow::Error::msg)?;
    }
    if let Some(spec) = csv_fields {
        format = format.with_csv_fields(spec).map_err(anyhow::Error::msg)?;
    }
    Ok(format)
}

fn catalogue(bots: Option<&std::path::Path>) -> anyhow::Result<crawlaudit::bots::Catalogue> {
    Ok(match bots {
        Some(path) => crawlaudit::bots::Catalogue::load(path)?,
        None => crawlaudit::bots::Catalogue::builtin(),
    })
}

/// `result`, but a closed stdout (`crawlaudit audit | head`, a dead
/// logger) is not an error: what was to be printed is lost, nothing else.
fn unless_broken_pipe(result: anyhow::Result<()>) -> anyhow::Result<()> {
    match result {
        Err(e) if is_broken_pipe(&e) => Ok(()),
        other => other,
    }
}

/// Checks, before any work, that the report may go to `out`
/// ([`crawlaudit::report::check_out`]).
fn check_out(out: &Path) -> anyhow::Result<()> {
    use crawlaudit::report::{ReportError, check_out};
    match check_out(out) {
        Ok(_) => Ok(()),
        Err(e @ ReportError::Out { .. }) => Err(e.into()),
        Err(e) => Err(anyhow::Error::new(e)
            .context(format!("the report was not written to {}", out.display()))),
    }
}

/// Refuses `path` (named `what` in the message) when it lies inside the
/// report directory `out`, which every run replaces whole.
fn refuse_inside_out(path: &Path, out: &Path, what: &str) -> anyhow::Result<()> {
    // Compared as absolute paths with links resolved, as far as they exist.
    let resolve = |p: &Path| -> PathBuf {
        let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        let mut existing = abs.as_path();
        let mut rest = Vec::new();
        while !existing.exists() {
            match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name.to_os_string());
                    existing = parent;
                }
                _ => return abs.clone(),
            }
        }
        let mut resolved = std::fs::canonicalize(existing).unwrap_or_else(|_| existing.into());
        resolved.extend(rest.iter().rev());
        resolved
    };
    if resolve(path).starts_with(resolve(out)) {
        anyhow::bail!(
            "{what} {} lies inside --out {}, which every run replaces whole: keep it elsewhere",
            path.display(),
            out.display()
        );
    }
    Ok(())
}

/// Reads one input as [`crawlaudit::logs::read_input`] does, and warns when
/// standard input gave nothing: an empty pipe is a 0-line audit that
/// succeeds, which is worth a line on stderr (a closed one is a fault).
pub(crate) fn read_input<S, F>(
    input: &crawlaudit::logs::Input,
    options: &crawlaudit::logs::ReadOptions,
    make_sink: &F,
) -> (Vec<S>, crawlaudit::logs::FileReport)
where
    S: crawlaudit::logs::Sink,
    F: Fn() -> S + Sync,
{
    let (sinks, report) = crawlaudit::logs::read_input(input, options, make_sink);
    if *input == crawlaudit::logs::Input::Stdin && report.fault.is_none() && report.lines == 0 {
        let _ = writeln!(
            term::stderr(),
            "crawlaudit: warning: standard input was empty (0 lines)"
        );
    }
    (sinks, report)
}

/// Loads an `--ip-ranges` directory and prints what it skipped as warnings.
fn load_ranges(dir: &Path) -> anyhow::Result<crawlaudit::bots::IpRanges> {
    let ranges = crawlaudit::bots::IpRanges::load_dir(dir)?;
    for warning in ranges.warnings() {
        let _ = writeln!(term::stderr(), "crawlaudit: warning: {warning}");
    }
    Ok(ranges)
}

/// A closed stdout (`crawlaudit check ... | head`) is not an error.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .filter_map(|e| e.downcast_ref::<io::Error>())
        .any(|e| e.kind() == io::ErrorKind::BrokenPipe)
}
