//! `crawlaudit logs LOG... [--format F]`: read logs and report how every
//! line parsed (the parse-only pass; no snapshot needed).

use std::collections::HashMap;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use std::time::Instant;

use crawlaudit::bots::Catalogue;
use crawlaudit::logs::{FileReport, Format, ReadOptions, Request, Sink, expand_inputs};

use super::read_input;

/// Arguments of `logs`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Reads the logs as `audit` would and prints, per file, the format used, the
lines read, parsed, empty and bad (by reason, with up to 10 samples), and any
fault. Exit code 2 when a file has a fault (unless --allow-partial).")]
pub struct Args {
    /// Log files, directories (recursively), glob patterns, or `-` for stdin.
    #[arg(required = true, value_name = "LOG")]
    logs: Vec<String>,
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
    /// Print the reports as JSON (one object per file, in a list).
    #[arg(long)]
    json: bool,
    /// A fault in one file does not make the exit code 2.
    #[arg(long)]
    allow_partial: bool,
    /// Also list the N most frequent User-Agents over all files, each with
    /// how the audit classes it (person or crawler, name, category).
    #[arg(long, value_name = "N", conflicts_with = "json")]
    agents: Option<usize>,
    /// A TOML crawler catalogue merged over the built-in one (for `--agents`).
    #[arg(long, value_name = "FILE")]
    bots: Option<std::path::PathBuf>,
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse()
}

/// Counts requests: the parse-only sink.
#[derive(Default)]
struct Count(u64);

impl Sink for Count {
    fn record(&mut self, request: &Request<'_>) {
        self.0 += u64::from(request.is_valid_request());
    }
}

/// Distinct User-Agents a chunk tallies for `--agents`; past it, further
/// new values are counted together as untallied (the tally is bounded by
/// this, not by the log).
const MAX_AGENTS_PER_CHUNK: usize = 200_000;

/// Counts requests per User-Agent (for `--agents`).
#[derive(Default)]
struct Agents {
    counts: HashMap<Vec<u8>, u64>,
    untallied: u64,
}

impl Sink for Agents {
    fn record(&mut self, request: &Request<'_>) {
        let ua = request.user_agent();
        if let Some(n) = self.counts.get_mut(ua) {
            *n += 1;
        } else if self.counts.len() < MAX_AGENTS_PER_CHUNK {
            self.counts.insert(ua.to_vec(), 1);
        } else {
            self.untallied += 1;
        }
    }
}

/// Runs `logs`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let inputs = expand_inputs(&args.logs).map_err(anyhow::Error::msg)?;
    let format = super::log_format(
        &args.format,
        args.json_fields.as_deref(),
        args.csv_fields.as_deref(),
    )?;
    let options = ReadOptions {
        format,
        ..ReadOptions::default()
    };
    let mut out = super::term::Escaped(BufWriter::new(io::stdout().lock()));
    let mut reports: Vec<FileReport> = Vec::new();
    let started = Instant::now();
    let mut total_bytes = 0u64;
    let mut agents: HashMap<Vec<u8>, u64> = HashMap::new();
    let mut untallied = 0u64;
    for input in &inputs {
        let report = if args.agents.is_some() {
            let (sinks, report) = read_input(input, &options, &Agents::default);
            for sink in sinks {
                untallied += sink.untallied;
                for (ua, n) in sink.counts {
                    *agents.entry(ua).or_default() += n;
                }
            }
            report
        } else {
            read_input(input, &options, &Count::default).1
        };
        total_bytes += report.bytes;
        if !args.json {
            print_report(&mut out, &report)?;
        }
        reports.push(report);
    }
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &reports)?;
        writeln!(out)?;
    } else if inputs.len() > 1 {
        let lines: u64 = reports.iter().map(|r| r.lines).sum();
        let bad: u64 = reports.iter().map(|r| r.bad).sum();
        writeln!(
            out,
            "total: {} files, {lines} lines, {bad} bad",
            inputs.len()
        )?;
    }
    if let Some(n) = args.agents {
        let catalogue = super::catalogue(args.bots.as_deref())?;
        print_agents(&mut out, &catalogue, agents, untallied, n)?;
    }
    out.flush()?;
    let (mb, rate) = super::megabytes_and_rate(total_bytes, seconds);
    let _ = writeln!(
        super::term::stderr(),
        "read {mb:.1} MB in {seconds:.2} s ({rate:.0} MB/s)"
    );
    let faults: Vec<&FileReport> = reports.iter().filter(|r| r.fault.is_some()).collect();
    if !faults.is_empty() && !args.allow_partial {
        for r in &faults {
            let _ = writeln!(
                super::term::stderr(),
                "crawlaudit: error: {}",
                r.fault.as_deref().unwrap_or("")
            );
        }
        return Ok(ExitCode::from(2));
    }
    Ok(ExitCode::SUCCESS)
}

/// The `--agents` table: requests, class (person, crawler, or self: the
/// site's own traffic by its User-Agent alone), name, category and the
/// User-Agent, tab-separated, most frequent first (ties by User-Agent).
fn print_agents(
    out: &mut impl Write,
    catalogue: &Catalogue,
    agents: HashMap<Vec<u8>, u64>,
    untallied: u64,
    n: usize,
) -> io::Result<()> {
    let mut rows: Vec<(Vec<u8>, u64)> = agents.into_iter().collect();
    rows.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    writeln!(out, "requests\tclass\tname\tcategory\tuser_agent")?;
    for (ua, count) in rows.iter().take(n) {
        let (class, name, category) = match catalogue.identify(ua) {
            Some(c) if c.category() == crawlaudit::bots::Category::SelfTraffic => {
                ("self", c.name().to_string(), "self")
            }
            Some(c) => ("crawler", c.name().to_string(), c.category().as_str()),
            None => ("person", "-".to_string(), "-"),
        };
        let shown = if ua.is_empty() {
            "-".into()
        } else {
            String::from_utf8_lossy(ua)
        };
        writeln!(out, "{count}\t{class}\t{name}\t{category}\t{shown}")?;
    }
    if rows.len() > n {
        let rest: u64 = rows[n..].iter().map(|r| r.1).sum();
        writeln!(
            out,
            "({} more User-Agents, {rest} requests)",
            rows.len() - n
        )?;
    }
    if untallied > 0 {
        writeln!(
            out,
            "({untallied} requests past {MAX_AGENTS_PER_CHUNK} distinct User-Agents in a chunk were not tallied)"
        )?;
    }
    Ok(())
}

fn print_report(out: &mut impl Write, r: &FileReport) -> io::Result<()> {
    let pct = |n: u64| {
        if r.lines == 0 {
            0.0
        } else {
            n as f64 * 100.0 / r.lines as f64
        }
    };
    writeln!(out, "{}", r.path)?;
    writeln!(
        out,
        "  format: {}{}",
        r.format,
        r.compression
            .as_deref()
            .map_or(String::new(), |c| format!(" ({c})"))
    )?;
    writeln!(
        out,
        "  lines: {}  parsed: {} ({:.2}%)  not requests: {}  empty: {}  directives: {}  bad: {} ({:.2}%)",
        r.lines,
        r.parsed,
        pct(r.parsed),
        r.not_requests,
        r.empty,
        r.directives,
        r.bad,
        pct(r.bad)
    )?;
    for (reason, n) in &r.bad_by_reason {
        writeln!(out, "  bad {reason}: {n}")?;
    }
    for s in &r.samples {
        writeln!(out, "    line {} ({}): {}", s.line, s.reason, s.text)?;
    }
    if let Some(fault) = &r.fault {
        writeln!(out, "  FAULT: {fault}")?;
    }
    Ok(())
}
