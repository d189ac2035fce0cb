//! Generates a realistic combined access log for benchmarks: browsers and
//! crawlers (about 30% crawler traffic, some impersonators), shop-like URLs,
//! search referrals, increasing times with jitter. Reproducible from a seed.
//!
//! `cargo run --release --example gen_log -- --size 1G --seed 1 > access.log`
//! (`--hosts 10000`: a CDN's `vhost_combined` log of 10,000 hosts)

use std::io::{self, BufWriter, Write};

#[path = "../tests/support/rng.rs"]
mod rng;
use rng::Rng;

const BROWSERS: &[&str] = &[
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
];

/// (user agent, client prefix): crawlers from their operators' ranges.
const CRAWLERS: &[(&str, &str)] = &[
    (
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "66.249.66.",
    ),
    (
        "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "66.249.68.",
    ),
    (
        "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
        "157.55.39.",
    ),
    (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
        "20.171.207.",
    ),
    (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
        "216.73.216.",
    ),
    (
        "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
        "54.36.148.",
    ),
    (
        "Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)",
        "85.208.96.",
    ),
    (
        "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
        "5.255.231.",
    ),
    (
        "meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)",
        "57.141.0.",
    ),
    ("python-requests/2.32.3", "203.0.113."),
    // An impersonator: Googlebot's name from a cloud address.
    (
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "45.148.10.",
    ),
];

const SECTIONS: &[&str] = &[
    "products", "category", "blog", "search", "cart", "account", "tag", "news", "help", "images",
];
const REFERRERS: &[&str] = &[
    "-",
    "-",
    "-",
    "https://www.google.com/",
    "https://www.bing.com/",
    "https://duckduckgo.com/",
    "https://shop.example/",
    "https://chatgpt.com/",
];

fn parse_size(s: &str) -> u64 {
    let (num, mult) = match s.as_bytes().last() {
        Some(b'G' | b'g') => (&s[..s.len() - 1], 1 << 30),
        Some(b'M' | b'm') => (&s[..s.len() - 1], 1 << 20),
        Some(b'K' | b'k') => (&s[..s.len() - 1], 1 << 10),
        _ => (s, 1),
    };
    num.parse::<u64>()
        .expect("--size: a number with an optional K, M or G")
        * mult
}

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let get = |flag: &str, default: &str| -> String {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
            .unwrap_or_else(|| default.to_string())
    };
    let size = parse_size(&get("--size", "64M"));
    // `--hosts N`: a CDN's log of N hosts (`vhost_combined`, `hostK.example`
    // first); without it, one host's `combined` log, as before.
    let hosts: u64 = get("--hosts", "0").parse().expect("--hosts: a number");
    let mut rng = Rng(get("--seed", "1").parse().expect("--seed: a number"));
    let mut out = BufWriter::with_capacity(1 << 20, io::stdout().lock());
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    // Start 2026-11-01T00:00:00Z and advance about 20 ms a line.
    let mut millis: u64 = 0;
    let mut written = 0u64;
    let mut line = String::with_capacity(512);
    while written < size {
        millis += rng.below(40);
        let secs = millis / 1000;
        let day = 1 + secs / 86_400 % 30;
        let (h, m, s) = (secs / 3600 % 24, secs / 60 % 60, secs % 60);
        let crawler = rng.below(100) < 30;
        let (ua, ip) = if crawler {
            let (ua, prefix) = CRAWLERS[rng.below(CRAWLERS.len() as u64) as usize];
            (ua, format!("{prefix}{}", rng.below(250) + 1))
        } else {
            (
                rng.pick(BROWSERS),
                format!(
                    "{}.{}.{}.{}",
                    1 + rng.below(223),
                    rng.below(256),
                    rng.below(256),
                    1 + rng.below(254)
                ),
            )
        };
        let section = rng.pick(SECTIONS);
        let mut path = format!("/{section}/{}", rng.below(5000));
        match rng.below(10) {
            0 => path.push_str(&format!("?page={}", rng.below(20))),
            1 => path.push_str(&format!("?sort=price&sessionid={:x}", rng.next())),
            2 => path = "/robots.txt".to_string(),
            _ => {}
        }
        let status = match rng.below(100) {
            0..=84 => 200,
            85..=89 => 304,
            90..=94 => 301,
            95..=98 => 404,
            _ => 500,
        };
        let referer = if crawler { "-" } else { rng.pick(REFERRERS) };
        line.clear();
        use std::fmt::Write as _;
        if hosts > 0 {
            let _ = write!(line, "host{}.example:443 ", rng.below(hosts));
        }
        let _ = writeln!(
            line,
            "{ip} - - [{day:02}/{}/2026:{h:02}:{m:02}:{s:02} +0000] \"GET {path} HTTP/1.1\" {status} {} \"{referer}\" \"{ua}\"",
            MONTHS[10],
            rng.below(60_000)
        );
        out.write_all(line.as_bytes())?;
        written += line.len() as u64;
    }
    out.flush()
}
