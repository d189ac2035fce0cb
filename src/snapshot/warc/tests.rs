//! WARC reader tests on records written here.

use std::io::Write;
use std::path::PathBuf;

use super::super::{Policy, Snapshot};

fn record(kind: &str, uri: &str, date: &str, block: &[u8], extra: &[(&str, &str)]) -> Vec<u8> {
    let mut out =
        format!("WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\nWARC-Date: {date}\r\n")
            .into_bytes();
    for (n, v) in extra {
        out.extend_from_slice(format!("{n}: {v}\r\n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
            block.len()
        )
        .as_bytes(),
    );
    out.extend_from_slice(block);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn http(status: &str, headers: &[&str], body: &[u8]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status}\r\n").into_bytes();
    for h in headers {
        out.extend_from_slice(h.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
    out
}

fn records() -> Vec<Vec<u8>> {
    let html = b"<html><head><meta name=\"robots\" content=\"noindex\"><meta name=googlebot content=nofollow></head><body>x</body></html>";
    let gz_html = gzip(html);
    let mut chunked = format!("{:x}\r\n", gz_html.len()).into_bytes();
    chunked.extend_from_slice(&gz_html);
    chunked.extend_from_slice(b"\r\n0\r\n\r\n");
    vec![
        record(
            "warcinfo",
            "",
            "2026-11-01T00:00:00Z",
            b"software: test",
            &[],
        ),
        record(
            "request",
            "http://a.example/robots.txt",
            "2026-11-01T00:00:00Z",
            b"GET /robots.txt HTTP/1.1\r\n\r\n",
            &[],
        ),
        record(
            "response",
            "http://a.example/robots.txt",
            "2026-11-01T00:00:00Z",
            &http(
                "200 OK",
                &["Content-Type: text/plain"],
                b"User-agent: *\nDisallow: /private/\n",
            ),
            &[],
        ),
        record(
            "response",
            "<https://a.example/page?x=1>",
            "2026-11-01T00:01:00Z",
            &http(
                "200 OK",
                &[
                    "Content-Type: text/html",
                    "Transfer-Encoding: chunked",
                    "Content-Encoding: gzip",
                    "X-Robots-Tag: noarchive",
                    "X-Robots-Tag: otherbot: noindex",
                ],
                &chunked,
            ),
            &[("WARC-Payload-Digest", "sha1:PAGE")],
        ),
        record(
            "response",
            "http://b.example/robots.txt",
            "2026-11-01T00:02:00Z",
            &http("404 Not Found", &[], b"nope"),
            &[],
        ),
        record(
            "response",
            "http://c.example/robots.txt",
            "2026-11-01T00:03:00Z",
            &http("503 Service Unavailable", &[], b""),
            &[],
        ),
        record(
            "response",
            "http://d.example/robots.txt",
            "2026-11-01T00:04:00Z",
            &http(
                "301 Moved Permanently",
                &["Location: http://a.example/robots.txt"],
                b"",
            ),
            &[],
        ),
        record(
            "revisit",
            "https://a.example/page?x=1",
            "2026-11-05T00:00:00Z",
            &http("304 Not Modified", &["X-Robots-Tag: noindex"], b""),
            &[("WARC-Payload-Digest", "sha1:PAGE")],
        ),
        record(
            "revisit",
            "https://a.example/other",
            "2026-11-05T00:00:00Z",
            &http("304 Not Modified", &[], b""),
            &[("WARC-Payload-Digest", "sha1:UNKNOWN")],
        ),
        record(
            "metadata",
            "http://a.example/robots.txt",
            "2026-11-01T00:00:00Z",
            b"outlinks: none",
            &[],
        ),
        record(
            "response",
            "dns:a.example",
            "2026-11-01T00:00:00Z",
            b"20261101 a.example. 300 IN A 192.0.2.1",
            &[],
        ),
    ]
}

fn write(name: &str, data: &[u8]) -> PathBuf {
    let dir = crate::test_dirs::process_dir().join("warc");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, data).unwrap();
    p
}

fn t(text: &str) -> i64 {
    i64::try_from(text.parse::<jiff::Timestamp>().unwrap().as_nanosecond()).unwrap()
}

fn check(s: &Snapshot) {
    let stats = &s.warc_stats()[0].1;
    assert_eq!(
        (
            stats.records,
            stats.responses,
            stats.revisits,
            stats.robots,
            stats.pages,
            stats.skipped
        ),
        (11, 5, 1, 4, 2, 5)
    );
    let now = t("2026-11-02T00:00:00Z");
    match s.policy_at("a.example", now).unwrap() {
        Policy::Rules { robots, version } => {
            assert!(!robots.check(&["x"], b"/private/a").allowed());
            assert!(
                version.name().ends_with(" 2026-11-01T00:00:00Z"),
                "{}",
                version.name()
            );
        }
        other => panic!("{other}"),
    }
    assert!(matches!(
        s.policy_at("b.example", now),
        Some(Policy::AllowAll { .. })
    ));
    assert!(matches!(
        s.policy_at("c.example", now),
        Some(Policy::DisallowAll { .. })
    ));
    assert!(
        matches!(s.policy_at("d.example", now), Some(Policy::Rules { .. })),
        "the 301 leads to a.example"
    );
    let page = s.page_at("a.example", "/page?x=1", now).unwrap();
    assert_eq!(
        page.rules().effective(&["googlebot"]).to_json().to_string(),
        r#"{"noarchive":true,"nofollow":true,"noindex":true}"#
    );
    assert_eq!(
        page.rules().effective(&["bingbot"]).to_json().to_string(),
        r#"{"noarchive":true,"noindex":true}"#
    );
    // The revisit: new headers, the same meta tags, the old status.
    let later = s
        .page_at("a.example", "/page?x=1", t("2026-11-06T00:00:00Z"))
        .unwrap();
    assert_eq!(later.status(), 200);
    assert_eq!(
        later.rules().effective(&["bingbot"]).to_json().to_string(),
        r#"{"noindex":true}"#
    );
    assert_eq!(
        later
            .rules()
            .effective(&["googlebot"])
            .to_json()
            .to_string(),
        r#"{"nofollow":true,"noindex":true}"#
    );
}

#[test]
fn plain_and_gzip_per_record_warc() {
    let plain: Vec<u8> = records().concat();
    check(&Snapshot::load(&[write("plain.warc", &plain)]).unwrap());
    let per_record: Vec<u8> = records().iter().flat_map(|r| gzip(r)).collect();
    check(&Snapshot::load(&[write("per-record.warc.gz", &per_record)]).unwrap());
}

#[test]
fn broken_records_are_errors_with_offsets() {
    let mut data = records()[..3].concat();
    let good = data.len();
    data.extend_from_slice(b"WARC/1.1\r\nWARC-Type: response\r\nContent-Length: 5000\r\n\r\nshort");
    let e = Snapshot::load(&[write("lying.warc", &data)])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&format!("lying.warc, byte {good}"))
            && e.contains("declares Content-Length 5000 but the file ends 5 bytes into its block"),
        "{e}"
    );
    let e = Snapshot::load(&[write("garbage.warc", b"<html>not a warc</html>")])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("garbage.warc, byte 0") && e.contains("must start with a WARC/1.x line"),
        "{e}"
    );
    let mut no_length = records()[0].clone();
    no_length.truncate(20);
    let e = Snapshot::load(&[write(
        "nolength.warc",
        b"WARC/1.0\r\nWARC-Type: warcinfo\r\n\r\n",
    )])
    .unwrap_err()
    .to_string();
    assert!(e.contains("no Content-Length"), "{e}");
    let bad_date = record(
        "response",
        "http://a.example/",
        "yesterday",
        &http("200 OK", &[], b""),
        &[],
    );
    let e = Snapshot::load(&[write("date.warc", &bad_date)])
        .unwrap_err()
        .to_string();
    assert!(e.contains("WARC-Date \"yesterday\""), "{e}");
}
