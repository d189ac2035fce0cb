//! `crawlaudit audit [OPTIONS] [LOG]...`: the main job.

use std::collections::BTreeMap;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use serde_json::json;

use crawlaudit::audit::{self, AuditConfig, AuditRun, Progress};
use crawlaudit::bots::IpRanges;
use crawlaudit::logs::{FileReport, Format, Input, ReadOptions, expand_inputs};
use crawlaudit::replay::{Context, Settings, VIOLATION_KINDS, ViolationKind};
use crawlaudit::report::{OutputFormats, Report, RunInfo};
use crawlaudit::shard::Shard;
use crawlaudit::snapshot::Snapshot;
use crawlaudit::time::{
    ALWAYS, DAY, HOUR, MINUTE, SECOND, format_time, from_seconds, whole_seconds,
};

use super::demo::Demo;

/// Exit code when `--fail-on` matched.
const EXIT_FAIL_ON: u8 = 3;

/// Arguments of `audit`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
With no LOG and no --snapshot, audits the bundled demo site and its logs.

Exit codes: 0 success; 2 usage or input error (a file that cannot be read, a
broken gzip, zstd or bzip2 stream, an invalid snapshot; the report is still
written when logs were read, unless nothing could be); 3 --fail-on matched.")]
pub struct Args {
    /// Log files, directories (recursively), glob patterns, or `-` for stdin.
    #[arg(value_name = "LOG")]
    pub(crate) logs: Vec<String>,
    /// A site snapshot: a snapshot directory, or WARC / .warc.gz files (repeatable).
    #[arg(long, value_name = "PATH")]
    snapshot: Vec<PathBuf>,
    /// The host of log lines whose format carries none (default: the
    /// snapshot's host, when it describes exactly one).
    #[arg(long, value_name = "HOST")]
    site: Option<String>,
    /// auto, combined, common, vhost_combined, gandi, json, json:cloudflare, json:gcp,
    /// json:azure, json:fastly, json:akamai, json:traefik, w3c, alb, elb, s3, envoy,
    /// lighttpd, haproxy[:Host,User-Agent,...], parquet, nginx:'<log_format>',
    /// regex:'<pattern>', csv, or tsv.
    // The text above is `--help`'s, not Markdown: its `<...>` are not tags.
    #[allow(rustdoc::invalid_html_tags)]
    #[arg(long, default_value = "auto", value_parser = parse_format)]
    format: Format,
    /// JSON (and Parquet column) field mapping overrides:
    /// `time=ts,ip=client,uri=httpRequest.requestUrl,...` (names: time, ip, method, uri,
    /// request, protocol, status, bytes, referer, user_agent, host, query; keys may be
    /// dotted paths).
    #[arg(long, value_name = "MAP")]
    json_fields: Option<String>,
    /// CSV/TSV column mapping overrides: `time=When,ip=Client,...`.
    #[arg(long, value_name = "MAP")]
    csv_fields: Option<String>,
    /// Where the report goes (replaced atomically).
    #[arg(long, default_value = "reports", value_name = "DIR")]
    out: PathBuf,
    /// Any of csv, parquet, json, html.
    #[arg(long, default_value = "csv,parquet,json,html", value_name = "LIST")]
    output_formats: String,
    /// A TOML crawler catalogue merged over the built-in one.
    #[arg(long, value_name = "FILE")]
    bots: Option<PathBuf>,
    /// How old a robots.txt copy a crawler may act on.
    #[arg(long, default_value = "24h", value_name = "DURATION", value_parser = parse_duration)]
    robots_cache_grace: i64,
    /// How long an engine may take to drop a page after its crawler saw noindex.
    #[arg(long, default_value = "72h", value_name = "DURATION", value_parser = parse_duration)]
    index_grace: i64,
    /// Audit requests from this time on (RFC 3339 or a date).
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    since: Option<i64>,
    /// Audit requests before this time (RFC 3339 or a date).
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    until: Option<i64>,
    /// Exit 3 when a violation of one of these kinds is found: disallow,
    /// crawl-delay, noindex, unavailable-after, or any.
    #[arg(long, value_name = "VIOLATION_KINDS")]
    fail_on: Option<String>,
    /// Count these crawler categories' violations in the totals and
    /// `--fail-on` too: `monitor` (uptime monitors, which the site
    /// configures itself, are left out by default; they stay in the tables).
    #[arg(long, value_name = "CATEGORIES")]
    include: Option<String>,
    /// An unreadable file or broken compressed stream is reported but does not
    /// make the exit code 2.
    #[arg(long)]
    allow_partial: bool,
    /// The operators' published crawler IP range files (see `ranges update`).
    #[arg(long, value_name = "DIR")]
    ip_ranges: Option<PathBuf>,
    /// Carry over what the next nightly run needs (Parquet; read before,
    /// rewritten atomically after; created when missing).
    #[arg(long, value_name = "FILE")]
    pub(crate) state: Option<PathBuf>,
    /// Audit only the hosts of shard K of N (K from 0; see `merge`).
    #[arg(long, value_name = "K/N")]
    pub(crate) shard: Option<Shard>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Print each stage's wall time on stderr at the end: set-up, reading,
    /// judging, building and writing the report.
    #[arg(long)]
    pub(crate) timings: bool,
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse()
}

/// `24h`, `30m`, `90s`, `2d`, `1h30m`, or a number of seconds.
fn parse_duration(s: &str) -> Result<i64, String> {
    let err = || format!("{s:?} is not a duration: write e.g. 24h, 30m, 90s, 2d or 1h30m");
    if let Ok(secs) = s.parse::<u64>() {
        return i64::try_from(secs)
            .ok()
            .and_then(from_seconds)
            .ok_or_else(err);
    }
    let mut total: i64 = 0;
    let mut number = String::new();
    for c in s.chars() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let unit = match c {
            'd' => DAY,
            'h' => HOUR,
            'm' => MINUTE,
            's' => SECOND,
            _ => return Err(err()),
        };
        let n: i64 = number.parse().map_err(|_| err())?;
        total = total
            .checked_add(n.checked_mul(unit).ok_or_else(err)?)
            .ok_or_else(err)?;
        number.clear();
    }
    if !number.is_empty() || s.is_empty() {
        return Err(err());
    }
    Ok(total)
}

/// RFC 3339, or a date (midnight UTC).
fn parse_time(s: &str) -> Result<i64, String> {
    let ts = match s.parse::<jiff::Timestamp>() {
        Ok(ts) => ts,
        Err(_) => s
            .parse::<jiff::civil::Date>()
            .ok()
            .and_then(|d| d.to_zoned(jiff::tz::TimeZone::UTC).ok())
            .map(|z| z.timestamp())
            .ok_or_else(|| {
                format!("{s:?} is not a time: write 2026-11-01T00:00:00Z or 2026-11-01")
            })?,
    };
    i64::try_from(ts.as_nanosecond())
        .ok()
        // The earliest nanosecond means "always" in the snapshot.
        .filter(|t| *t != ALWAYS)
        .ok_or_else(|| format!("{s:?} is out of range (1677-09-21 to 2262-04-11)"))
}

pub(crate) fn parse_formats(list: &str) -> anyhow::Result<OutputFormats> {
    let mut f = OutputFormats {
        csv: false,
        parquet: false,
        json: false,
        html: false,
    };
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        match name {
            "csv" => f.csv = true,
            "parquet" => f.parquet = true,
            "json" => f.json = true,
            "html" => f.html = true,
            other => bail!("--output-formats: unknown format {other:?} (csv, parquet, json, html)"),
        }
    }
    Ok(f)
}

fn parse_fail_on(list: &str) -> anyhow::Result<Vec<ViolationKind>> {
    let mut kinds = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if name == "any" {
            kinds.extend(ViolationKind::ALL);
            continue;
        }
        match ViolationKind::from_name(name) {
            Some(k) => kinds.push(k),
            None => bail!(
                "--fail-on: unknown kind {name:?} ({}, any)",
                VIOLATION_KINDS.join(", ")
            ),
        }
    }
    Ok(kinds)
}

/// The `--include` categories: names of crawler categories.
fn parse_include(list: &str) -> anyhow::Result<Vec<String>> {
    let mut names = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        match crawlaudit::bots::Category::from_name(name) {
            Some(c) => names.push(c.as_str().to_string()),
            None => bail!(
                "--include: unknown crawler category {name:?} (left out by default: {})",
                crawlaudit::bots::Category::LEFT_OUT_BY_DEFAULT
                    .iter()
                    .map(|c| c.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
    names.sort();
    names.dedup();
    Ok(names)
}

/// The share of a file's lines that may be bad before a warning asks
/// whether `--format` is right (1%).
const BAD_LINES_WARNING: f64 = 0.01;

/// What the reader should know to trust the numbers, found by the run:
/// no snapshot, a `--site` the snapshot does not describe, lines without
/// a host that several snapshot hosts could own, a window without
/// requests, a file with many bad lines, no `--ip-ranges`. Printed on
/// stderr and kept in `summary.json`'s `warnings`.
fn run_warnings(
    ctx: &Context,
    args: &Args,
    counts: &crawlaudit::replay::Counts,
    files: &[crawlaudit::logs::FileReport],
    no_ranges: bool,
) -> Vec<String> {
    let mut warnings = Vec::new();
    let hosts: Vec<&str> = ctx.snapshot().hosts().map(|(h, _)| h).collect();
    if args.snapshot.is_empty() && !args.logs.is_empty() {
        warnings
            .push("no --snapshot: no host can be judged; only findings are reported".to_string());
    }
    if let Some(site) = &args.site {
        if !hosts.is_empty() && ctx.snapshot().host(site).is_none() {
            warnings.push(format!(
                "--site {site} is not a host of the snapshot ({}): requests without a host are charged to it and not judged (unknown-host)",
                shown_hosts(&hosts)
            ));
        }
    }
    if counts.no_host > 0 {
        warnings.push(format!(
            "{} requests name no host and the snapshot describes {} hosts ({}): they were not judged; give --site HOST to say which site the log is of",
            counts.no_host,
            hosts.len(),
            shown_hosts(&hosts)
        ));
    }
    if (args.since.is_some() || args.until.is_some())
        && counts.requests > 0
        && counts.outside_window == counts.requests
    {
        warnings.push(format!(
            "no request falls in the window ({} to {}): all {} requests were outside it",
            args.since
                .map_or_else(|| "the start".to_string(), format_time),
            args.until
                .map_or_else(|| "the end".to_string(), format_time),
            counts.requests
        ));
    }
    for f in files {
        if f.lines > 0 && f.bad as f64 > f.lines as f64 * BAD_LINES_WARNING {
            warnings.push(format!(
                "{}: {} of {} lines ({:.1}%) could not be read as {}: is --format right? (samples in summary.json)",
                f.path,
                f.bad,
                f.lines,
                f.bad as f64 * 100.0 / f.lines as f64,
                f.format
            ));
        }
    }
    if no_ranges {
        warnings.push(
            "no --ip-ranges: claimed crawlers are not checked against their published addresses, so impersonators are not found (verified is null)".to_string(),
        );
    }
    warnings
}

/// Up to five host names, then how many more.
fn shown_hosts(hosts: &[&str]) -> String {
    let mut shown = hosts.iter().take(5).copied().collect::<Vec<_>>().join(", ");
    if hosts.len() > 5 {
        shown.push_str(&format!(" and {} more", hosts.len() - 5));
    }
    shown
}

/// What an audit needs before it reads a line: the flags checked, the
/// inputs listed, the catalogue, ranges and snapshot loaded (the CLI's run
/// and every task of `crawlaudit-spark` prepare it from the same flags).
pub(crate) struct Prepared {
    formats: OutputFormats,
    fail_on: Vec<ViolationKind>,
    include: Vec<String>,
    demo: Option<Demo>,
    ranges_dir: Option<PathBuf>,
    ranges_files: Vec<crawlaudit::report::RangeFile>,
    pub(crate) inputs: Vec<Input>,
    pub(crate) read: ReadOptions,
    pub(crate) ctx: Context,
    /// With `--state`, where the reading of the state file's rows puts its
    /// error.
    state_failure: Option<Arc<Mutex<Option<crawlaudit::report::ReportError>>>>,
}

/// Lowers the calling thread's priority to the lowest (nice 19) where the
/// system allows it; elsewhere, or when refused, it stays as it is.
fn at_idle_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority reads no memory of ours; on Linux, PRIO_PROCESS
    // with 0 names the calling thread alone.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 19);
    }
}

/// Checks the flags and loads what the audit reads besides the logs.
/// `driver`: the run that writes the report, which checks `--out` and
/// `--state` before any work, lists the inputs and reads the `--state` file
/// (a distributed run's tasks write nothing, are handed each file's path,
/// and get their hosts' state from the driver). `remote`: a distributed
/// run's log arguments that are URIs of object storage (`s3://...`, see
/// [`is_uri`]) are not paths: the files the driver listed under them,
/// which come after the local inputs; `None`: every argument is a path.
pub(crate) fn prepare(
    args: &Args,
    driver: bool,
    remote: Option<&[String]>,
) -> anyhow::Result<Prepared> {
    let formats = parse_formats(&args.output_formats)?;
    let fail_on = args
        .fail_on
        .as_deref()
        .map(parse_fail_on)
        .transpose()?
        .unwrap_or_default();
    let include = args
        .include
        .as_deref()
        .map(parse_include)
        .transpose()?
        .unwrap_or_default();
    let demo = if args.logs.is_empty() && args.snapshot.is_empty() {
        Some(Demo::unpack()?)
    } else {
        None
    };
    let (log_args, snapshot_paths, ranges_dir) = match &demo {
        Some(d) => (
            vec![d.log().display().to_string()],
            vec![d.snapshot()],
            Some(d.ip_ranges()),
        ),
        None => (
            args.logs.clone(),
            args.snapshot.clone(),
            args.ip_ranges.clone(),
        ),
    };
    let log_args: Vec<String> = match remote {
        Some(_) => log_args.into_iter().filter(|a| !is_uri(a)).collect(),
        None => log_args,
    };
    let remote = remote.unwrap_or_default();
    if driver && log_args.is_empty() && remote.is_empty() {
        bail!("no logs to audit: give log files, directories, patterns or - (stdin)");
    }
    // Before any work: where the report and the state go.
    if driver {
        super::check_out(&args.out)?;
        if let Some(state) = &args.state {
            super::refuse_inside_out(state, &args.out, "--state")?;
        }
    }
    let inputs = if !driver {
        // A task is handed each file's path.
        Vec::new()
    } else if log_args.is_empty() {
        remote
            .iter()
            .map(|u| Input::File(PathBuf::from(u)))
            .collect()
    } else {
        let mut inputs = expand_inputs(&log_args).map_err(anyhow::Error::msg)?;
        inputs.extend(remote.iter().map(|u| Input::File(PathBuf::from(u))));
        inputs
    };
    let format = super::log_format(
        &args.format,
        args.json_fields.as_deref(),
        args.csv_fields.as_deref(),
    )?;
    let catalogue = super::catalogue(args.bots.as_deref())?;
    let ranges = match &ranges_dir {
        Some(dir) => super::load_ranges(dir)?,
        None => IpRanges::default(),
    };
    let ranges_files: Vec<crawlaudit::report::RangeFile> = ranges
        .files()
        .map(|(file, created)| crawlaudit::report::RangeFile {
            file: file.to_string(),
            created: created.map(crawlaudit::time::format_time),
        })
        .collect();
    let snapshot = Snapshot::load(&snapshot_paths)?;
    if let (Some(since), Some(until)) = (args.since, args.until) {
        if since >= until {
            bail!("--since is not before --until: the audit window would be empty");
        }
    }
    if let Some(site) = &args.site {
        crawlaudit::host::check_host(site).map_err(|m| anyhow::anyhow!("--site {site:?}: {m}"))?;
    }
    let settings = Settings {
        robots_cache_grace: args.robots_cache_grace,
        index_grace: args.index_grace,
        since: args.since,
        until: args.until,
        site: args.site.clone(),
        shard: args.shard,
    };
    let mut ctx = Context::new(snapshot, catalogue, ranges, settings);
    let mut state_failure = None;
    if let Some(path) = &args.state {
        if driver {
            // Read, and its columns checked, now: a file that is not a
            // state stops the run before any work. Its rows become the
            // state while the logs are read; a row that is not a state's
            // stops the run once they are ([`Prepared::state_failure`]).
            let file = crawlaudit::report::open_state(path)?;
            let reading = std::thread::spawn(move || {
                // At the lowest priority, on what the logs' reading leaves
                // of the cores. It is done during the reading (50,000
                // hosts: 85–140 ms after the process starts, the reading
                // at about 160 ms), which it slows by 10–20 ms; started
                // when the reading ends, it slowed the ordered stage's
                // gathering by as much (BENCHMARKS.md, issue 14's
                // thirty-eighth step).
                at_idle_priority();
                file.into_state()
            });
            let failure: Arc<Mutex<Option<crawlaudit::report::ReportError>>> = Arc::default();
            let failed = failure.clone();
            ctx = ctx.with_state_loader(move || match reading.join() {
                Ok(Ok(state)) => state,
                Ok(Err(e)) => {
                    *failed.lock().unwrap_or_else(PoisonError::into_inner) = Some(e);
                    crawlaudit::replay::State::default()
                }
                Err(panic) => std::panic::resume_unwind(panic),
            });
            state_failure = Some(failure);
        } else {
            // A task's collectors only ask whether there is a state; its
            // judgement is given its hosts' part.
            ctx = ctx.with_state(crawlaudit::replay::State::default());
        }
    }
    Ok(Prepared {
        formats,
        fail_on,
        include,
        demo,
        ranges_dir,
        ranges_files,
        inputs,
        read: ReadOptions {
            format,
            ..ReadOptions::default()
        },
        ctx,
        state_failure,
    })
}

/// Whether a log argument is a URI (`scheme://...`, the scheme as RFC 3986
/// spells one): object storage that a distributed run reads through
/// `pyarrow.fs`, not a path.
pub(crate) fn is_uri(arg: &str) -> bool {
    arg.split_once("://").is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    })
}

/// Runs `audit`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let mut prepared = prepare(args, true, None)?;
    // The demo's temporary files are removed however the run ends: they
    // are owned here, not by `prepared`, which is never dropped.
    let _demo_files = prepared.demo.as_mut().and_then(Demo::take_files);
    // Never dropped: the process ends after the run, and freeing a CDN's
    // thousands of parsed robots.txt files one by one would only cost time.
    let prepared = std::mem::ManuallyDrop::new(prepared);
    let set_up = started.elapsed();
    let inputs = &prepared.inputs;
    // The progress bar counts input files' sizes on disk (stdin: 0).
    let sizes: Vec<u64> = inputs
        .iter()
        .map(|i| match i {
            Input::File(p) => std::fs::metadata(p).map_or(0, |m| m.len()),
            Input::Stdin => 0,
        })
        .collect();
    let bar = (!args.quiet && io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(sizes.iter().sum());
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} {msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar
    });
    let progress = |p: Progress<'_>| match p {
        Progress::Reading(input) => {
            if let Some(bar) = &bar {
                bar.set_message(super::term::escape(&input.name()));
            }
        }
        Progress::Read(input, report) => {
            if let Some(bar) = &bar {
                if let Input::File(path) = input {
                    bar.inc(std::fs::metadata(path).map_or(0, |m| m.len()));
                }
            }
            if *input == Input::Stdin && report.fault.is_none() && report.lines == 0 {
                let _ = writeln!(
                    super::term::stderr(),
                    "crawlaudit: warning: standard input was empty (0 lines)"
                );
            }
        }
    };
    let config = AuditConfig {
        inputs: inputs.clone(),
        read: prepared.read.clone(),
        progress: Some(&progress),
    };
    let run = audit::run(&prepared.ctx, &config);
    let audited = Instant::now();
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    prepared.state_failure()?;
    let AuditRun {
        mut outcome,
        files,
        timings,
    } = run;
    let files = prepared.named_files(files);
    let run_info = prepared.run_info(args, &outcome.counts, &files, started, args.shard);
    refuse_nothing_read(args, &files)?;
    // The next night's state is written beside its file while the report
    // is built (much of it on one core), and takes its place once the
    // report is written.
    let next_state = std::mem::take(&mut outcome.state);
    let (report, staged) = std::thread::scope(|s| {
        let staging = s.spawn(|| prepared.stage_state(args, &files, &next_state));
        // The rows are freed as their table is built.
        let report = Report::build_taking_rows(&mut outcome, &run_info);
        let staged = staging
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (report, staged)
    });
    let mut report = report?;
    let ctx = &prepared.ctx;
    report.name_rule_groups(|host, version, line| ctx.rule_group(host, version, line));
    let built = Instant::now();
    let code = prepared.conclude(args, &report, &files, staged)?;
    if args.timings {
        let stages = [
            ("set-up", set_up, String::new()),
            (
                "reading",
                timings.reading,
                rate(sizes.iter().sum(), timings.reading),
            ),
            ("judging", timings.judging, String::new()),
            ("building the report", built - audited, String::new()),
            ("writing the report", built.elapsed(), String::new()),
        ];
        print_timings(&stages, started.elapsed());
    }
    // The process ends here: freeing millions of rows one by one would
    // only cost time (a tenth of a large audit's).
    std::mem::forget(outcome);
    std::mem::forget(next_state);
    std::mem::forget(report);
    Ok(ExitCode::from(code))
}

/// Prints `--timings`' table on stderr: each stage's wall time with a
/// note (may be empty), and the whole run's.
pub(crate) fn print_timings(stages: &[(&str, Duration, String)], total: Duration) {
    use std::fmt::Write as _;
    let w = stages.iter().map(|(s, ..)| s.len()).max().unwrap_or(0);
    let mut text = String::from("crawlaudit: stage timings (wall time)\n");
    for (stage, took, note) in stages {
        let _ = write!(text, "  {stage:<w$} {:>9.3} s", took.as_secs_f64());
        if !note.is_empty() {
            let _ = write!(text, "   {note}");
        }
        text.push('\n');
    }
    let _ = writeln!(text, "  {:<w$} {:>9.3} s", "total", total.as_secs_f64());
    let _ = super::term::stderr().write_all(text.as_bytes());
}

/// The rate of reading `bytes` (the inputs' size on disk) in `took`, as
/// `--timings` shows it; nothing when no size is known (standard input).
fn rate(bytes: u64, took: Duration) -> String {
    if bytes == 0 {
        return String::new();
    }
    let (mb, rate) = super::megabytes_and_rate(bytes, took.as_secs_f64());
    format!("{mb:.1} MB, {rate:.0} MB/s")
}

/// Nothing could be read: an empty report would only replace the last
/// good one (the faults are printed, and the run is an error).
pub(crate) fn refuse_nothing_read(args: &Args, files: &[FileReport]) -> anyhow::Result<()> {
    if files.iter().all(|f| f.fault.is_some() && f.lines == 0) {
        for fault in files.iter().filter_map(|f| f.fault.as_deref()) {
            let _ = writeln!(super::term::stderr(), "crawlaudit: error: {fault}");
        }
        bail!(
            "no log could be read: the report in {} is left as it was",
            args.out.display()
        );
    }
    Ok(())
}

impl Prepared {
    /// The inputs' accounting as the report names them (the demo's log by
    /// where it comes from, not by the temporary directory it was
    /// unpacked to: the report must not depend on that).
    pub(crate) fn named_files(&self, mut files: Vec<FileReport>) -> Vec<FileReport> {
        if let Some(d) = &self.demo {
            for report in &mut files {
                report.path = report
                    .path
                    .replace(&d.log().display().to_string(), "fixtures/demo/access.log");
            }
        }
        files
    }

    /// What the report says of the run: its inputs, settings and warnings.
    pub(crate) fn run_info(
        &self,
        args: &Args,
        counts: &crawlaudit::replay::Counts,
        files: &[FileReport],
        started: Instant,
        shard: Option<Shard>,
    ) -> RunInfo {
        let ctx = &self.ctx;
        let demo = &self.demo;
        let mut settings_shown = BTreeMap::new();
        settings_shown.insert("format".to_string(), json!(args.format.to_string()));
        settings_shown.insert(
            "robots_cache_grace_seconds".to_string(),
            json!(whole_seconds(args.robots_cache_grace)),
        );
        settings_shown.insert(
            "index_grace_seconds".to_string(),
            json!(whole_seconds(args.index_grace)),
        );
        settings_shown.insert("site".to_string(), json!(ctx.default_host()));
        settings_shown.insert("include".to_string(), json!(self.include));
        settings_shown.insert("since".to_string(), json!(args.since.map(format_time)));
        settings_shown.insert("until".to_string(), json!(args.until.map(format_time)));
        settings_shown.insert("demo".to_string(), json!(demo.is_some()));
        settings_shown.insert(
            "ip_ranges".to_string(),
            // The demo's by origin, not by its temporary directory.
            json!(if demo.is_some() {
                Some("fixtures/demo/ip-ranges".to_string())
            } else {
                self.ranges_dir.as_ref().map(|d| d.display().to_string())
            }),
        );
        let warnings = run_warnings(ctx, args, counts, files, self.ranges_dir.is_none());
        RunInfo {
            warnings,
            inputs: files.to_vec(),
            snapshots: if demo.is_some() {
                vec!["(bundled demo)".into()]
            } else {
                ctx.snapshot().sources().to_vec()
            },
            settings: settings_shown,
            seconds: started.elapsed().as_secs_f64(),
            shard,
            ip_ranges: self.ranges_files.clone(),
        }
    }

    /// The error of the state file's rows, found when the replay read
    /// them (the run stops: its report and state would rest on a state
    /// that is not the previous night's).
    pub(crate) fn state_failure(&self) -> anyhow::Result<()> {
        let failed = self
            .state_failure
            .as_ref()
            .and_then(|f| f.lock().unwrap_or_else(PoisonError::into_inner).take());
        match failed {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }

    /// With `--state`, writes the next night's `state` beside the state
    /// file, for [`Prepared::conclude`] to put in its place; nothing after
    /// a fault, unless `--allow-partial` (the night is to be run again,
    /// from the old state).
    pub(crate) fn stage_state(
        &self,
        args: &Args,
        files: &[FileReport],
        state: &crawlaudit::replay::State,
    ) -> anyhow::Result<Option<crawlaudit::report::StagedState>> {
        let Some(path) = &args.state else {
            return Ok(None);
        };
        if files.iter().any(|f| f.fault.is_some()) && !args.allow_partial {
            return Ok(None);
        }
        Ok(Some(crawlaudit::report::stage_state(path, state)?))
    }

    /// Writes the report, prints its warnings and summary, puts the next
    /// night's state in place (`staged`, [`Prepared::stage_state`]; its
    /// error, if staging failed, once the report is written), and gives
    /// the exit code: 2 after a fault, 3 when `--fail-on` matched, else 0.
    pub(crate) fn conclude(
        &self,
        args: &Args,
        report: &Report,
        files: &[FileReport],
        staged: anyhow::Result<Option<crawlaudit::report::StagedState>>,
    ) -> anyhow::Result<u8> {
        // The headline's totals: monitors' rows only with `--include monitor`.
        let matched: u64 = ViolationKind::ALL
            .into_iter()
            .filter(|k| self.fail_on.contains(k))
            .map(|k| report.summary.violations.get(k))
            .sum();
        report
            .write(&args.out, self.formats)
            .with_context(|| format!("the report was not written to {}", args.out.display()))?;
        for warning in &report.summary.warnings {
            let _ = writeln!(super::term::stderr(), "crawlaudit: warning: {warning}");
        }
        // A closed stdout silences the summary, never the state, the exit code
        // or the messages on stderr.
        super::unless_broken_pipe(super::print_summary(report, &args.out, self.demo.is_some()))?;
        let faults: Vec<&str> = files.iter().filter_map(|f| f.fault.as_deref()).collect();
        if let Some(staged) = staged? {
            staged.commit()?;
        }
        let code = if !faults.is_empty() && !args.allow_partial {
            for fault in &faults {
                let _ = writeln!(super::term::stderr(), "crawlaudit: error: {fault}");
            }
            super::EXIT_INPUT_ERROR
        } else if matched > 0 {
            let _ = writeln!(
                super::term::stderr(),
                "crawlaudit: --fail-on matched {matched} violation(s)"
            );
            EXIT_FAIL_ON
        } else {
            0
        };
        Ok(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_told_from_paths() {
        for uri in [
            "s3://bucket/logs/",
            "gs://b/k.log.gz",
            "abfss://c@a.dfs.core.windows.net/p",
            "hdfs://nn:8020/logs",
            "file:///tmp/a.log",
        ] {
            assert!(is_uri(uri), "{uri}");
        }
        for path in [
            "logs/a.log",
            "/tmp/a://b",
            "-",
            "://x",
            "1s3://b",
            "a b://c",
            "s3:/b",
        ] {
            assert!(!is_uri(path), "{path}");
        }
    }

    #[test]
    fn durations_times_and_lists() {
        assert_eq!(parse_duration("24h").unwrap(), 24 * HOUR);
        assert_eq!(parse_duration("1h30m").unwrap(), HOUR * 3 / 2);
        assert_eq!(parse_duration("2d").unwrap(), 48 * HOUR);
        assert_eq!(parse_duration("90").unwrap(), 90_000_000_000);
        assert!(
            parse_duration("soon")
                .unwrap_err()
                .contains("not a duration")
        );
        assert!(
            parse_duration("10").is_ok()
                && parse_duration("10x").is_err()
                && parse_duration("h").is_err()
        );
        assert_eq!(
            parse_time("2026-11-01").unwrap(),
            parse_time("2026-11-01T00:00:00Z").unwrap()
        );
        assert!(parse_time("tomorrow").is_err());
        assert_eq!(
            parse_fail_on("disallow, noindex").unwrap(),
            [ViolationKind::Disallow, ViolationKind::Noindex]
        );
        assert_eq!(parse_fail_on("any").unwrap().len(), 4);
        assert!(
            parse_fail_on("spam")
                .unwrap_err()
                .to_string()
                .contains("unknown kind")
        );
        assert!(
            parse_formats("csv,xml")
                .unwrap_err()
                .to_string()
                .contains("unknown format")
        );
        assert!(parse_formats("csv,html").unwrap().html);
    }
}
