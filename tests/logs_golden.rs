//! Golden tests of the log formats: each directory of `fixtures/logs/` holds
//! `input.log`, `format.txt` (the `--format` value), `detected.txt` (what
//! auto-detection must find; empty when the format needs `--format`) and `expected.tsv` (every record, then the
//! accounting). Each input is also read compressed with gzip, zstd and
//! bzip2 (made here), at the same chunk sizes, and must give the same
//! text. Re-bless with `UPDATE_EXPECT=1 cargo test --test logs_golden`
//! and review the diff.

mod common;

use std::fmt::Write as _;
use std::io::Write as _;
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

/// Reads `input` at `chunk_size` and renders every record, then the
/// accounting; an input fault fails the test.
fn render(input: &Path, format: &Format, chunk_size: usize) -> (String, FileReport) {
    let options = ReadOptions {
        format: format.clone(),
        chunk_size,
    };
    let (sinks, report) = read_input(
        &Input::File(input.to_path_buf()),
        &options,
        &Render::default,
    );
    assert!(
        report.fault.is_none(),
        "{}: {:?}",
        input.display(),
        report.fault
    );
    let mut got: String = sinks.into_iter().map(|s| s.0).collect();
    got.push_str(&render_report(&report));
    (got, report)
}

/// `data` compressed as gzip, zstd and bzip2, named for each.
fn compressed(data: &[u8]) -> [(&'static str, &'static str, Vec<u8>); 3] {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(data).unwrap();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bz.write_all(data).unwrap();
    [
        ("gzip", "input.log.gz", gz.finish().unwrap()),
        ("zstd", "input.log.zst", zstd::encode_all(data, 3).unwrap()),
        ("bzip2", "input.log.bz2", bz.finish().unwrap()),
    ]
}

fn check_case(dir: &Path) {
    let format: Format = std::fs::read_to_string(dir.join("format.txt"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let input = dir.join("input.log");
    let name = dir.file_name().unwrap().to_string_lossy();
    let tmp = common::fresh_dir(&format!("logs-golden-{name}"));
    let plain = std::fs::read(&input).unwrap();
    let variants = compressed(&plain).map(|(kind, file, bytes)| {
        let path = tmp.join(file);
        std::fs::write(&path, bytes).unwrap();
        (kind, path)
    });
    for chunk_size in [1usize, 97, 8 << 20] {
        let (got, _) = render(&input, &format, chunk_size);
        if let Err(e) = common::check_golden(&got, &dir.join("expected.tsv")) {
            panic!("chunk size {chunk_size}: {e}");
        }
        // Compressed, the same records and accounting.
        for (kind, path) in &variants {
            let (compressed_got, report) = render(path, &format, chunk_size);
            assert_eq!(
                report.compression.as_deref(),
                Some(*kind),
                "{}",
                path.display()
            );
            assert!(
                compressed_got == got,
                "{name} as {kind}, chunk size {chunk_size}:\n--- plain\n{got}--- {kind}\n{compressed_got}"
            );
        }
    }
    let detected = std::fs::read_to_string(dir.join("detected.txt")).unwrap();
    let found = detect(&plain).map(|f| f.to_string()).unwrap_or_default();
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
