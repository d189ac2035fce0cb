//! Crawler identification benchmarks: building the catalogue, identifying a
//! distinct User-Agent (no cache), and the per-log-line cost with the cache.
//!
//! Run with `cargo bench --bench bots`. The User-Agents are generated from
//! templates of real browsers, crawlers, libraries and scanners with varying
//! versions, so that most are distinct strings, as in a real log.

use crawlaudit::bots::{Catalogue, Identifier};
use divan::counter::ItemsCount;
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

const TEMPLATES: &[&str] = &[
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{v}.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/{v}.1 Safari/605.1.15",
    "Mozilla/5.0 (X11; Linux x86_64; rv:{v}.0) Gecko/20100101 Firefox/{v}.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_{v} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 14; Pixel {v}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36",
    "Mozilla/5.0 (compatible; Googlebot/2.{v}; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{v}.0.6998.165 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (compatible; bingbot/2.{v}; +http://www.bing.com/bingbot.htm)",
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.{v}; +https://openai.com/gptbot)",
    "Mozilla/5.0 (compatible; AhrefsBot/7.{v}; +http://ahrefs.com/robot/)",
    "Mozilla/5.0 (compatible; SemrushBot/7~bl{v}; +http://www.semrush.com/bot.html)",
    "Mozilla/5.0 (compatible; MJ12bot/v1.4.{v}; http://mj12bot.com/)",
    "facebookexternalhit/1.{v} (+http://www.facebook.com/externalhit_uatext.php)",
    "python-requests/2.{v}.0",
    "curl/8.{v}.0",
    "Mozilla/5.0 (compatible; Unknownbot{v}/1.0; +https://example.com/bot)",
    "Mozilla/5.0 (compatible; linkdexbot/2.{v}; +http://www.linkdex.com/bots/)",
];

fn user_agents(count: usize) -> Vec<String> {
    (0..count)
        .map(|i| TEMPLATES[i % TEMPLATES.len()].replace("{v}", &(i / TEMPLATES.len()).to_string()))
        .collect()
}

#[divan::bench(sample_count = 10)]
fn build_catalogue() -> Catalogue {
    Catalogue::builtin()
}

/// One distinct User-Agent, identified without a cache.
#[divan::bench]
fn identify_distinct(bencher: Bencher) {
    let catalogue = Catalogue::builtin();
    let uas = user_agents(1000);
    bencher.counter(ItemsCount::new(uas.len())).bench(|| {
        uas.iter()
            .filter(|ua| catalogue.identify(black_box(ua.as_bytes())).is_some())
            .count()
    });
}

/// A log of 100,000 lines over 2,000 distinct User-Agents (skewed: the
/// first ones are far more frequent), through the per-thread cache.
#[divan::bench]
fn identify_per_line_cached(bencher: Bencher) {
    let catalogue = Catalogue::builtin();
    let uas = user_agents(2000);
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let lines: Vec<&[u8]> = (0..100_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Square of a uniform number: a skewed pick.
            let u = (state % 1000) as usize;
            uas[u * u * uas.len() / 1_000_000].as_bytes()
        })
        .collect();
    let mut identifier = Identifier::new(&catalogue);
    for line in &lines {
        identifier.identify(line);
    }
    bencher
        .counter(ItemsCount::new(lines.len()))
        .bench_local(|| {
            lines
                .iter()
                .filter(|ua| identifier.identify(black_box(ua)).is_some())
                .count()
        });
}
