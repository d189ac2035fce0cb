//! Replay benchmarks: collecting (per log line: identification, the
//! Disallow verdict, what is kept for the ordered stage) and judging (per
//! kept crawler request: crawl-delay gaps, findings, the join and sort of
//! the violations), on parsed lines in memory (no I/O, no parsing).
//!
//! Run with `cargo bench --bench replay`. The lines look like the
//! end-to-end benchmark's (`benches/e2e_logs.sh`): one host, three lines
//! in ten from crawlers (search, AI and SEO crawlers, one asking for a
//! Crawl-delay, an impostor, a script), the rest people, some referred by
//! a search engine; a robots.txt with groups per crawler, wildcards and
//! retired sections.

use std::path::PathBuf;

use crawlaudit::bots::{Catalogue, IpRanges};
use crawlaudit::logs::{Format, Sink, parse_line};
use crawlaudit::replay::{Collector, Context, Settings, replay};
use crawlaudit::snapshot::Snapshot;
use divan::counter::ItemsCount;
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

/// Lines per chunk, and chunks per run (a chunk of the reader is ~8 MiB:
/// about 40,000 lines).
const LINES: usize = 40_000;
const CHUNKS: usize = 4;

const CRAWLERS: &[&str] = &[
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
    "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    "python-requests/2.31.0",
    "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
];

const PEOPLE: &[&str] = &[
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0",
];

const PATHS: &[&str] = &[
    "/product/{}",
    "/cart/{}",
    "/search?q=item-{}",
    "/retired/section-{}/page",
    "/category/{}?sort=price&utm_source=news",
    "/account/{}",
];

fn snapshot() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("crawlaudit-bench-replay-{}", std::process::id()));
    let site = dir.join("shop.example");
    std::fs::create_dir_all(&site).unwrap();
    let mut robots = String::from(
        "User-agent: *\nDisallow: /cart/\nDisallow: /account/\nDisallow: /*?q=\n\n\
         User-agent: Googlebot\nUser-agent: bingbot\nDisallow: /cart/\nDisallow: /search\n\n\
         User-agent: AhrefsBot\nCrawl-delay: 2\nDisallow: /account/\n\n\
         User-agent: GPTBot\nDisallow: /\n\n",
    );
    for i in 0..240 {
        robots.push_str(&format!("User-agent: *\nDisallow: /retired/section-{i}/\n"));
    }
    std::fs::write(site.join("robots.txt"), robots).unwrap();
    dir
}

/// `LINES` combined lines of chunk `c`, a second apart in file order.
fn chunk(c: usize) -> Vec<String> {
    (0..LINES)
        .map(|i| {
            let n = c * LINES + i;
            let (ua, referer) = if n % 10 < 3 {
                (CRAWLERS[n % CRAWLERS.len()], "-")
            } else if n % 10 == 3 {
                (PEOPLE[n % PEOPLE.len()], "https://www.google.com/")
            } else {
                (PEOPLE[n % PEOPLE.len()], "https://shop.example/")
            };
            let path = PATHS[(n / 7) % PATHS.len()].replace("{}", &(n % 997).to_string());
            let (h, m, s) = (n / 3600 % 24, n / 60 % 60, n % 60);
            format!(
                "198.51.{}.{} - - [01/Nov/2026:{h:02}:{m:02}:{s:02} +0000] \"GET {path} HTTP/1.1\" 200 5120 \"{referer}\" \"{ua}\"",
                n / 250 % 250,
                n % 250
            )
        })
        .collect()
}

fn context() -> Context {
    let dir = snapshot();
    let ctx = Context::new(
        Snapshot::load(std::slice::from_ref(&dir)).unwrap(),
        Catalogue::builtin(),
        IpRanges::default(),
        Settings::default(),
    );
    std::fs::remove_dir_all(dir).unwrap();
    ctx
}

fn collect<'c>(ctx: &'c Context, chunks: &[Vec<String>]) -> Vec<Collector<'c>> {
    let format = Format::Combined.compile().unwrap();
    chunks
        .iter()
        .map(|lines| {
            let mut c = Collector::new(ctx);
            for line in lines {
                c.record(&parse_line(&format, line.as_bytes()).unwrap());
            }
            c.finish();
            c
        })
        .collect()
}

/// Collecting, per line: parsing is done beforehand (`cargo bench --bench
/// logs` measures it), so this is the collector's own cost.
#[divan::bench]
fn collect_per_line(bencher: Bencher) {
    let ctx = context();
    let format = Format::Combined.compile().unwrap();
    let lines = chunk(0);
    let parsed: Vec<_> = lines
        .iter()
        .map(|l| parse_line(&format, l.as_bytes()).unwrap())
        .collect();
    bencher.counter(ItemsCount::new(LINES)).bench_local(|| {
        let mut c = Collector::new(&ctx);
        for request in &parsed {
            c.record(black_box(request));
        }
        c.finish();
        c.counts().crawler
    });
}

/// Judging, per kept crawler request: the collectors of `CHUNKS` chunks
/// (made beforehand, outside the timing) replayed into an outcome.
#[divan::bench]
fn judge_per_crawler_request(bencher: Bencher) {
    let ctx = context();
    let chunks: Vec<Vec<String>> = (0..CHUNKS).map(chunk).collect();
    let crawler_requests: u64 = collect(&ctx, &chunks)
        .iter()
        .map(|c| c.counts().crawler)
        .sum();
    assert!(crawler_requests > 0);
    bencher
        .counter(ItemsCount::new(crawler_requests as usize))
        .with_inputs(|| collect(&ctx, &chunks))
        .bench_local_values(|collectors| {
            let outcome = replay(&ctx, collectors);
            assert!(!outcome.violations.is_empty());
            outcome.violations.len()
        });
}
