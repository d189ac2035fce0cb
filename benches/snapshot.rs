//! WARC loading throughput: a generated crawl of 2,000 HTML pages (~20 KB
//! each, X-Robots-Tag headers, robots meta tags, a robots.txt per host),
//! as a plain WARC and gzip per record, loaded into a snapshot.
//!
//! Run with `cargo bench --bench snapshot`.

use std::io::Write;
use std::path::PathBuf;

use crawlaudit::snapshot::Snapshot;
use divan::Bencher;
use divan::counter::BytesCount;

fn main() {
    divan::main();
}

fn record(uri: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\nWARC-Date: 2026-11-01T00:00:00Z\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

fn crawl() -> Vec<Vec<u8>> {
    let filler: String =
        "<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p>\n"
            .repeat(220);
    let mut records = Vec::new();
    for host in 0..20 {
        records.push(record(&format!("https://h{host}.example/robots.txt"), b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nUser-agent: *\nDisallow: /private/\n"));
        for page in 0..100 {
            let body = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Robots-Tag: googlebot: nofollow\r\n\r\n<html><head><title>p{page}</title><meta name=robots content=\"noindex, max-snippet: 50\"></head><body>{filler}</body></html>"
            );
            records.push(record(
                &format!("https://h{host}.example/p/{page}"),
                body.as_bytes(),
            ));
        }
    }
    records
}

fn write(name: &str, data: &[u8]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("crawlaudit-bench-{name}"));
    std::fs::write(&path, data).unwrap();
    path
}

#[divan::bench(sample_count = 10)]
fn load_plain_warc(bencher: Bencher) {
    let data = crawl().concat();
    let path = write("plain.warc", &data);
    bencher
        .counter(BytesCount::new(data.len()))
        .bench(|| Snapshot::load(std::slice::from_ref(&path)).unwrap());
}

#[divan::bench(sample_count = 10)]
fn load_gzip_per_record_warc(bencher: Bencher) {
    let records = crawl();
    let raw: usize = records.iter().map(Vec::len).sum();
    let data: Vec<u8> = records
        .iter()
        .flat_map(|r| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(r).unwrap();
            e.finish().unwrap()
        })
        .collect();
    let path = write("gz.warc.gz", &data);
    // Throughput counts the uncompressed WARC bytes.
    bencher
        .counter(BytesCount::new(raw))
        .bench(|| Snapshot::load(std::slice::from_ref(&path)).unwrap());
}
