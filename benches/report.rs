//! Report benchmarks, per violation row: building the report's frames
//! from an audit's outcome, and writing each file format of it (CSV,
//! Parquet, NDJSON) to a temporary directory.
//!
//! Run with `cargo bench --bench report`. The violations look like the
//! end-to-end benchmark's (`benches/e2e_logs.sh`): nine crawlers, Disallow
//! and Crawl-delay rows, a few hundred rules, distinct URLs and client
//! addresses, a second or so apart.

use std::sync::Arc;

use crawlaudit::replay::{Counts, Outcome, Violation, ViolationKind};
use crawlaudit::report::{OutputFormats, Report, RunInfo};
use divan::counter::ItemsCount;
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

/// Rows per run: the violations of 1 GiB of the benchmark's log.
const ROWS: usize = 600_000;

const CRAWLERS: &[&str] = &[
    "GPTBot",
    "ClaudeBot",
    "SemrushBot",
    "AhrefsBot",
    "YandexBot",
    "meta-externalagent",
    "python-requests",
    "Googlebot",
    "bingbot",
];

fn outcome(rows: usize) -> Outcome {
    let texts = |n: usize, f: &dyn Fn(usize) -> String| -> Vec<Arc<str>> {
        (0..n).map(|i| Arc::from(f(i))).collect()
    };
    let crawlers = texts(CRAWLERS.len(), &|i| CRAWLERS[i].to_string());
    let rules = texts(300, &|i| format!("Disallow: /retired/section-{i}/"));
    let clients = texts(5_000, &|i| format!("203.0.{}.{}", i / 250, i % 250));
    let host: Arc<str> = "shop.example".into();
    let method: Arc<str> = "GET".into();
    let version: Arc<str> = "robots.txt".into();
    let gap: Arc<str> = "gap 1s < 2s".into();
    let none: Arc<str> = "".into();
    let agent: Arc<str> =
        "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)".into();
    let start = 1_793_491_200_000_000_000i64;
    let violations = (0..rows)
        .map(|i| {
            let delay = i % 5 == 0;
            Violation {
                time: start + (i as i64 / 3) * 1_000_000_000,
                host: host.clone(),
                crawler: crawlers[i % crawlers.len()].clone(),
                verified: None,
                client_ip: clients[(i * 7) % clients.len()].clone(),
                kind: if delay {
                    ViolationKind::CrawlDelay
                } else {
                    ViolationKind::Disallow
                },
                method: method.clone(),
                url: format!(
                    "/retired/section-{}/item-{i}?ref=feed&page={}",
                    i % 300,
                    i % 17
                ),
                status: 200,
                rule: if delay {
                    "Crawl-delay: 2".into()
                } else {
                    rules[i % rules.len()].clone()
                },
                rule_line: Some(10 + (i % 300) as u32),
                robots_version: Some(version.clone()),
                detail: if delay { gap.clone() } else { none.clone() },
                user_agent: Some(agent.clone()),
            }
        })
        .collect();
    Outcome {
        violations,
        findings: Vec::new(),
        activity: Vec::new(),
        counts: Counts::default(),
        charged_without_requests: Default::default(),
        state: Default::default(),
    }
}

#[divan::bench(sample_count = 10)]
fn build(bencher: Bencher) {
    let outcome = outcome(ROWS);
    bencher
        .counter(ItemsCount::new(ROWS))
        .bench(|| black_box(Report::build(&outcome, &RunInfo::default()).unwrap()));
}

/// As `build`, freeing the rows as their table grows (what the audit
/// does).
#[divan::bench(sample_count = 10)]
fn build_taking_rows(bencher: Bencher) {
    bencher
        .counter(ItemsCount::new(ROWS))
        .with_inputs(|| outcome(ROWS))
        .bench_local_values(|mut outcome| {
            black_box(Report::build_taking_rows(&mut outcome, &RunInfo::default()).unwrap())
        });
}

/// Writes one format of the report (and the marker and its directory).
fn write(bencher: Bencher, formats: OutputFormats) {
    let report = Report::build(&outcome(ROWS), &RunInfo::default()).unwrap();
    let dir = std::env::temp_dir().join(format!("crawlaudit-bench-report-{}", std::process::id()));
    let out = dir.join("reports");
    bencher
        .counter(ItemsCount::new(ROWS))
        .bench(|| report.write(&out, formats).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}

const NONE: OutputFormats = OutputFormats {
    csv: false,
    parquet: false,
    json: false,
    html: false,
};

#[divan::bench(sample_count = 10)]
fn write_csv(bencher: Bencher) {
    write(bencher, OutputFormats { csv: true, ..NONE });
}

#[divan::bench(sample_count = 10)]
fn write_parquet(bencher: Bencher) {
    write(
        bencher,
        OutputFormats {
            parquet: true,
            ..NONE
        },
    );
}

#[divan::bench(sample_count = 10)]
fn write_ndjson(bencher: Bencher) {
    write(bencher, OutputFormats { json: true, ..NONE });
}

#[divan::bench(sample_count = 10)]
fn write_all(bencher: Bencher) {
    write(bencher, OutputFormats::default());
}
