//! Golden tests of the log formats: each directory of `fixtures/logs/` holds
//! `input.log`, `format.txt` (the `--format` value), `detected.txt` (what
//! auto-detection must find; empty when the format needs `--format`) and `expected.tsv` (every record, then the
//! accounting). Re-bless with `UPDATE_EXPECT=1 cargo test --test logs_golden`
//! and review the diff.

mod common;

use std::fmt::Write as _;
use std::path::Path;

use crawlaudit::logs::{FileReport, Format, Input, ReadOptions, Request, Sink, detect, read_input};

#[derive(Default)]
struct Render(String);

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).replace('\t', "\\t")
}

impl Sink for Render {
    fn record(&mut self, r: &Request<'_>) {
        let time = jiff::Timestamp::from_nanosecond(r.time().into()).unwrap();
        let _ = writeln!(
            self.0,
            "{time}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            r.resolution(),
            text(r.client()),
            text(r.method()),
            text(r.target()),
            text(r.protocol()),
            if r.is_valid_request() {
                "request"
            } else {
                "not-a-request"
            },
            r.status(),
            r.bytes().map_or("-".to_string(), |b| b.to_string()),
            text(r.referer()),
            text(r.user_agent()),
            r.host().map_or("-".to_string(), text),
        );
    }
}

fn render_report(r: &FileReport) -> String {
    let mut s = format!(
        "# format={} lines={} parsed={} not_requests={} empty={} directives={} bad={}\n",
        r.format, r.lines, r.parsed, r.not_requests, r.empty, r.directives, r.bad
    );
    for sample in &r.samples {
        let _ = writeln!(
            s,
            "# bad line {} ({}): {}",
            sample.line, sample.reason, sample.text
        );
    }
    s
}

fn check_case(dir: &Path) {
    let format: Format = std::fs::read_to_string(dir.join("format.txt"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let input = dir.join("input.log");
    for chunk_size in [1usize, 97, 8 << 20] {
        let options = ReadOptions {
            format: format.clone(),
            chunk_size,
        };
        let (sinks, report) = read_input(&Input::File(input.clone()), &options, &Render::default);
        assert!(
            report.fault.is_none(),
            "{}: {:?}",
            dir.display(),
            report.fault
        );
        let mut got: String = sinks.into_iter().map(|s| s.0).collect();
        got.push_str(&render_report(&report));
        if let Err(e) = common::check_golden(&got, &dir.join("expected.tsv")) {
            panic!("chunk size {chunk_size}: {e}");
        }
    }
    let detected = std::fs::read_to_string(dir.join("detected.txt")).unwrap();
    let sample = std::fs::read(&input).unwrap();
    let found = detect(&sample).map(|f| f.to_string()).unwrap_or_default();
    assert_eq!(
        found,
        detected.trim(),
        "auto-detection of {}",
        dir.display()
    );
}

#[test]
fn every_format_reads_its_golden_fixture() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/logs");
    let cases = common::case_dirs(&root);
    assert!(cases.len() >= 8, "{} cases", cases.len());
    for case in cases {
        check_case(&case);
    }
}
