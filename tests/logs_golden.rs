//! Golden tests of the log formats: each directory of `fixtures/logs/` holds
//! `input.log`, `format.txt` (the `--format` value), `detected.txt` (what
//! auto-detection must find; empty when the format needs `--format`) and `expected.tsv` (every record, then the
//! accounting). Each input is also read compressed with gzip, zstd and
//! bzip2 (made here), at the same chunk sizes, and must give the same
//! text (a Parquet input, which is read from a file by columns, must be
//! refused compressed). Re-bless with `UPDATE_EXPECT=1 cargo test --test logs_golden`
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
        // Compressed, the same records and accounting; a compressed Parquet
        // file is refused (Parquet is read from a file, by columns).
        if matches!(format, Format::Parquet(_)) {
            for (kind, path) in &variants {
                let options = ReadOptions {
                    format: format.clone(),
                    chunk_size,
                };
                let (_, report) =
                    read_input(&Input::File(path.clone()), &options, &Render::default);
                let fault = report.fault.unwrap_or_default();
                assert!(
                    fault.contains("a Parquet log is read from a file"),
                    "{name} as {kind}: {fault}"
                );
            }
            continue;
        }
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
    // Detected, a file reads as it does with its format given (plain and
    // compressed: a stream detects from its first bytes too).
    if !found.is_empty() && found == format.to_string() && !matches!(format, Format::Auto) {
        let want = render(&input, &format, 97).0;
        for path in std::iter::once(&input).chain(variants.iter().map(|(_, p)| p)) {
            if matches!(format, Format::Parquet(_)) && path != &input {
                continue;
            }
            assert_eq!(
                render(path, &Format::Auto, 97).0,
                want,
                "{} read with --format auto",
                path.display()
            );
        }
    }
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

/// Writes `fixtures/logs/parquet/input.log`, a Parquet log of ten rows in
/// row groups of three (columns named as the automatic JSON mapping knows
/// them, a timestamp in microseconds, nulls, a bad status, an unused
/// column). Run `cargo test --test logs_golden -- --ignored
/// write_parquet_fixture`, then re-bless the expected output.
#[test]
#[ignore = "writes the Parquet fixture"]
fn write_parquet_fixture() {
    use polars::prelude::*;
    let at = |s: &str| s.parse::<jiff::Timestamp>().unwrap().as_microsecond();
    let time = Series::new(
        "timestamp".into(),
        [
            Some(at("2024-05-06T07:08:09.123456Z")),
            Some(at("2024-05-06T07:08:10Z")),
            Some(at("2024-05-06T07:08:11.5Z")),
            Some(at("2024-05-06T07:08:12Z")),
            None,
            Some(at("2024-05-06T07:08:14Z")),
            Some(at("2024-05-06T07:08:15Z")),
            Some(at("2024-05-06T07:08:16Z")),
            Some(at("2024-05-06T07:08:17Z")),
            Some(at("2024-05-06T07:08:18Z")),
        ],
    )
    .cast(&DataType::Datetime(TimeUnit::Microseconds, None))
    .unwrap();
    let mut frame = DataFrame::new(
        10,
        vec![
            time.into(),
            Column::new(
                "client_ip".into(),
                [
                    "66.249.66.1",
                    "2001:db8::7",
                    "198.51.100.4",
                    "203.0.113.9",
                    "198.51.100.6",
                    "198.51.100.6",
                    "198.51.100.6",
                    "198.51.100.6",
                    "192.0.2.1:5000",
                    "198.51.100.6",
                ],
            ),
            Column::new(
                "host".into(),
                [
                    Some("www.example.com"),
                    Some("shop.example.com:8443"),
                    Some("www.example.com"),
                    None,
                    Some("www.example.com"),
                    Some("www.example.com"),
                    Some("www.example.com"),
                    Some("www.example.com"),
                    Some("www.example.com"),
                    Some("www.example.com"),
                ],
            ),
            Column::new(
                "method".into(),
                [
                    "GET", "HEAD", "GET", "GET", "GET", "GET", "GET", "POST", "GET", "GET",
                ],
            ),
            Column::new(
                "uri".into(),
                [
                    Some("/music/?a=1&b=%20x"),
                    Some("/robots.txt"),
                    Some("/missing"),
                    Some("https://api.example.com:8443/v1?q=a"),
                    Some("/bad-time"),
                    Some("/bad-status"),
                    None,
                    Some("/cart"),
                    Some("/client-port"),
                    Some("/last"),
                ],
            ),
            Column::new(
                "status".into(),
                [
                    Some(200i32),
                    Some(304),
                    Some(404),
                    Some(200),
                    Some(200),
                    Some(2000),
                    Some(400),
                    Some(303),
                    None,
                    Some(200),
                ],
            ),
            Column::new(
                "bytes".into(),
                [
                    Some(5120i64),
                    Some(0),
                    Some(19),
                    Some(2),
                    None,
                    None,
                    None,
                    Some(0),
                    None,
                    Some(1),
                ],
            ),
            Column::new(
                "referer".into(),
                [
                    None,
                    Some("https://duckduckgo.com/"),
                    Some("https://www.bing.com/"),
                    None,
                    None,
                    None,
                    None,
                    Some("https://www.example.com/cart"),
                    None,
                    None,
                ],
            ),
            Column::new(
                "user_agent".into(),
                [
                    Some(
                        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
                    ),
                    Some("curl/8.5.0"),
                    Some("Mozilla/5.0 (X11; Linux x86_64) \"quoted\""),
                    Some("python-requests/2.31.0"),
                    None,
                    None,
                    None,
                    Some("Mozilla/5.0 (Windows NT 10.0; Win64; x64)"),
                    Some("port in the client"),
                    Some("last row"),
                ],
            ),
            Column::new(
                "cache_status".into(),
                [
                    "HIT", "MISS", "MISS", "PASS", "HIT", "HIT", "MISS", "PASS", "HIT", "HIT",
                ],
            ),
        ],
    )
    .unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/logs/parquet/input.log");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    ParquetWriter::new(std::fs::File::create(&path).unwrap())
        .with_row_group_size(Some(3))
        .finish(&mut frame)
        .unwrap();
}
