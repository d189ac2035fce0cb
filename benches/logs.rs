//! Log line parsing benchmarks, per format, in MB/s on in-memory lines
//! (no I/O): the per-line cost the reader pays in each chunk.
//!
//! Run with `cargo bench --bench logs`. The end-to-end comparison with
//! `wc -l`, `zcat` and GoAccess is `benches/e2e_logs.sh`.

use crawlaudit::logs::{Format, parse_line};
use divan::counter::BytesCount;
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

fn lines(template: impl Fn(usize) -> String) -> Vec<String> {
    (0..10_000).map(template).collect()
}

fn bench(bencher: Bencher, format: Format, lines: Vec<String>) {
    let mut compiled = format.compile().unwrap();
    compiled.directive(b"#Fields: date time c-ip cs-method cs-uri-stem cs-uri-query sc-status sc-bytes cs(Referer) cs(User-Agent)");
    let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
    bencher.counter(BytesCount::new(bytes)).bench_local(|| {
        lines
            .iter()
            .filter(|l| parse_line(&compiled, black_box(l.as_bytes())).is_ok())
            .count()
    });
}

const UA: &str = "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

#[divan::bench]
fn combined(bencher: Bencher) {
    let l = lines(|i| {
        format!(
            "66.249.66.{} - - [01/Nov/2026:00:{:02}:{:02} +0000] \"GET /products/{i}?page=2 HTTP/1.1\" 200 {i} \"https://www.google.com/\" \"{UA}\"",
            i % 250,
            i / 60 % 60,
            i % 60
        )
    });
    bench(bencher, Format::Combined, l);
}

#[divan::bench]
fn nginx_custom(bencher: Bencher) {
    let format: Format = "nginx:$host $remote_addr [$time_iso8601] \"$request\" $status $bytes_sent \"$http_referer\" \"$http_user_agent\" $request_time".parse().unwrap();
    let l = lines(|i| {
        format!(
            "shop.example 66.249.66.{} [2026-11-01T00:{:02}:{:02}+00:00] \"GET /products/{i} HTTP/1.1\" 200 {i} \"-\" \"{UA}\" 0.004",
            i % 250,
            i / 60 % 60,
            i % 60
        )
    });
    bench(bencher, format, l);
}

#[divan::bench]
fn w3c_iis(bencher: Bencher) {
    let ua = UA.replace(' ', "+");
    let l = lines(|i| {
        format!(
            "2026-11-01 00:{:02}:{:02} 66.249.66.{} GET /products/{i} page=2 200 {i} - {ua}",
            i / 60 % 60,
            i % 60,
            i % 250
        )
    });
    bench(bencher, Format::W3c, l);
}

#[divan::bench]
fn json_cloudflare(bencher: Bencher) {
    let l = lines(|i| {
        format!(
            r#"{{"ClientIP":"66.249.66.{}","ClientRequestHost":"shop.example","ClientRequestMethod":"GET","ClientRequestURI":"/products/{i}","ClientRequestUserAgent":"{UA}","EdgeResponseStatus":200,"EdgeResponseBytes":{i},"EdgeStartTimestamp":"2026-11-01T00:{:02}:{:02}Z"}}"#,
            i % 250,
            i / 60 % 60,
            i % 60
        )
    });
    bench(bencher, "json:cloudflare".parse().unwrap(), l);
}

#[divan::bench]
fn haproxy(bencher: Bencher) {
    let l = lines(|i| {
        format!(
            "Nov  1 00:{:02}:{:02} lb1 haproxy[2101]: 66.249.66.{}:41234 [01/Nov/2026:00:{:02}:{:02}.123] www~ web/app1 0/0/1/12/13 200 {i} - - ---- 3/3/1/1/0 0/0 \"GET /products/{i}?page=2 HTTP/1.1\"",
            i / 60 % 60,
            i % 60,
            i % 250,
            i / 60 % 60,
            i % 60
        )
    });
    bench(bencher, "haproxy".parse().unwrap(), l);
}

#[divan::bench]
fn gandi(bencher: Bencher) {
    let l = lines(|i| {
        format!(
            "shop.example 66.249.66.{} - - [01/Nov/2026:00:{:02}:{:02} +0000] (0 s) \"GET /products/{i}?page=2 HTTP/1.1\" 200 {i} \"https://www.google.com/\" \"{UA}\"",
            i % 250,
            i / 60 % 60,
            i % 60
        )
    });
    bench(bencher, "gandi".parse().unwrap(), l);
}

/// The combined lines, read by a `--format regex:` pattern.
#[divan::bench]
fn regex_combined(bencher: Bencher) {
    let format: Format = r#"regex:^(?P<ip>\S+) \S+ \S+ \[(?P<time>[^\]]+)\] "(?P<request>[^"]*)" (?P<status>\d{3}) (?P<bytes>\S+) "(?P<referer>[^"]*)" "(?P<user_agent>[^"]*)"$"#.parse().unwrap();
    let l = lines(|i| {
        format!(
            "66.249.66.{} - - [01/Nov/2026:00:{:02}:{:02} +0000] \"GET /products/{i}?page=2 HTTP/1.1\" 200 {i} \"https://www.google.com/\" \"{UA}\"",
            i % 250,
            i / 60 % 60,
            i % 60
        )
    });
    bench(bencher, format, l);
}

#[divan::bench]
fn json_gcp(bencher: Bencher) {
    let l = lines(|i| {
        format!(
            r#"{{"httpRequest":{{"requestMethod":"GET","requestUrl":"https://shop.example/products/{i}?page=2","status":200,"responseSize":"{i}","userAgent":"{UA}","remoteIp":"66.249.66.{}","referer":"https://www.google.com/"}},"resource":{{"type":"http_load_balancer"}},"severity":"INFO","timestamp":"2026-11-01T00:{:02}:{:02}.123456Z"}}"#,
            i % 250,
            i / 60 % 60,
            i % 60
        )
    });
    bench(bencher, "json:gcp".parse().unwrap(), l);
}

#[divan::bench]
fn json_akamai(bencher: Bencher) {
    let ua = UA
        .replace('/', "%2F")
        .replace(';', "%3B")
        .replace('(', "%28")
        .replace(')', "%29")
        .replace(' ', "+");
    let l = lines(|i| {
        format!(
            r#"{{"version":1,"cp":"123456","reqTimeSec":"{}","cliIP":"66.249.66.{}","reqHost":"shop.example","reqMethod":"GET","reqPath":"/products/{i}","queryStr":"page=2","statusCode":"200","bytes":"{i}","UA":"{ua}","referer":"https%3A%2F%2Fwww.google.com%2F"}}"#,
            1_793_491_200 + i,
            i % 250
        )
    });
    bench(bencher, "json:akamai".parse().unwrap(), l);
}

#[divan::bench]
fn envoy(bencher: Bencher) {
    let l = lines(|i| {
        format!(
            "[2026-11-01T00:{:02}:{:02}.123Z] \"GET /products/{i}?page=2 HTTP/1.1\" 200 - 0 {i} 3 2 \"66.249.66.{}\" \"{UA}\" \"cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2\" \"shop.example\" \"10.0.0.1:8080\"",
            i / 60 % 60,
            i % 60,
            i % 250
        )
    });
    bench(bencher, Format::Envoy, l);
}

/// A sink that counts requests.
#[derive(Default)]
struct CountSink(usize);

impl crawlaudit::logs::Sink for CountSink {
    fn record(&mut self, _: &crawlaudit::logs::Request<'_>) {
        self.0 += 1;
    }
}

/// CSV has no line parser of its own (a quoted field may hold line ends):
/// the whole reading path, `read_input` on a file of the page cache, one
/// thread splitting rows and the others reading them into requests.
#[divan::bench]
fn csv_read_input(bencher: Bencher) {
    let mut text = String::from("time,client_ip,request,status,bytes,referer,user_agent\n");
    for i in 0..10_000 {
        text.push_str(&format!(
            "2026-11-01T00:{:02}:{:02}Z,66.249.66.{},GET /products/{i}?page=2 HTTP/1.1,200,{i},https://www.google.com/,\"{UA}\"\n",
            i / 60 % 60,
            i % 60,
            i % 250
        ));
    }
    let path = std::env::temp_dir().join(format!("crawlaudit-bench-{}.csv", std::process::id()));
    std::fs::write(&path, &text).unwrap();
    let input = crawlaudit::logs::Input::File(path.clone());
    let options = crawlaudit::logs::ReadOptions {
        format: "csv".parse().unwrap(),
        chunk_size: 1 << 20,
    };
    bencher
        .counter(BytesCount::new(text.len()))
        .bench_local(|| {
            let (sinks, _): (Vec<CountSink>, _) =
                crawlaudit::logs::read_input(&input, &options, &CountSink::default);
            sinks.iter().map(|s| s.0).sum::<usize>()
        });
    let _ = std::fs::remove_file(&path);
}
