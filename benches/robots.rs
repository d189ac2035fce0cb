//! robots.txt evaluator benchmarks: parse time and checks per second on a
//! realistic file (~200 rules, wildcards, several groups), on a hostile
//! one (10,000 rules whose patterns carry 50 `*` each), and on one of many
//! rules under one directory (a documentation site's file: 30,000
//! `Disallow: /html/...` lines).
//!
//! Run with `cargo bench --bench robots`. Inputs are generated with a fixed
//! seed, so every run measures the same bytes.

use crawlaudit::robots::Robots;
use divan::counter::{BytesCount, ItemsCount};
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

/// A small deterministic generator (xorshift64*), so the bench needs no crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const WORDS: &[&str] = &[
    "products", "category", "search", "cart", "checkout", "account", "blog", "news", "tag", "page",
    "images", "static", "api", "v1", "v2", "print", "feed", "amp", "filter", "sort", "archive",
];

fn random_path(rng: &mut Rng, wildcards: bool) -> String {
    let mut path = String::new();
    for _ in 0..1 + rng.below(4) {
        path.push('/');
        path.push_str(rng.pick(WORDS));
    }
    if wildcards && rng.below(3) == 0 {
        path.push_str(rng.pick(&["/*?", "*", "/*.pdf$", "*sort=", "/*/print", "$"]));
    } else if rng.below(2) == 0 {
        path.push('/');
    }
    path
}

/// About 200 rules in 8 groups, a third with wildcards, like a large shop's file.
fn realistic_robots() -> Vec<u8> {
    let mut rng = Rng(0x5EED);
    let mut out = String::from("# generated realistic robots.txt\n");
    for agent in [
        "*",
        "Googlebot",
        "bingbot",
        "GPTBot",
        "AhrefsBot",
        "Yandex",
        "Baiduspider",
        "CCBot",
    ] {
        out.push_str(&format!("User-agent: {agent}\n"));
        if rng.below(2) == 0 {
            out.push_str("Crawl-delay: 5\n");
        }
        for _ in 0..25 {
            let kind = if rng.below(4) == 0 {
                "Allow"
            } else {
                "Disallow"
            };
            out.push_str(&format!("{kind}: {}\n", random_path(&mut rng, true)));
        }
        out.push('\n');
    }
    out.push_str("Sitemap: https://shop.example/sitemap.xml\n");
    out.into_bytes()
}

/// 10,000 rules, each a pattern with 50 `*` over the same few bytes that
/// the URLs use, so the cheap filters do not reject them and the matcher
/// has to work.
fn hostile_robots() -> Vec<u8> {
    let mut rng = Rng(0xBAD);
    let mut out = String::from("User-agent: *\n");
    for _ in 0..10_000 {
        let mut pattern = String::from("/");
        for _ in 0..50 {
            pattern.push_str(rng.pick(&["a", "b", "ab", "/", "ba"]));
            pattern.push('*');
        }
        pattern.push_str(rng.pick(&["a", "b$", "/", "ab$"]));
        let kind = if rng.below(2) == 0 {
            "Allow"
        } else {
            "Disallow"
        };
        out.push_str(&format!("{kind}: {pattern}\n"));
    }
    out.into_bytes()
}

/// `count` paths; hostile ones are `len` bytes over the hostile patterns'
/// alphabet.
fn urls(count: usize, hostile: Option<usize>) -> Vec<Vec<u8>> {
    let mut rng = Rng(0xFEED);
    (0..count)
        .map(|_| {
            if let Some(len) = hostile {
                (0..len)
                    .map(|i| if i == 0 { b'/' } else { b"ab/"[rng.below(3)] })
                    .collect()
            } else {
                let mut p = random_path(&mut rng, false);
                if rng.below(3) == 0 {
                    p.push_str("?sort=price&page=2");
                }
                p.into_bytes()
            }
        })
        .collect()
}

#[divan::bench]
fn parse_realistic(bencher: Bencher) {
    let body = realistic_robots();
    bencher
        .counter(BytesCount::of_slice(&body))
        .bench(|| Robots::parse(black_box(&body)));
}

#[divan::bench]
fn parse_hostile(bencher: Bencher) {
    let body = hostile_robots();
    bencher
        .counter(BytesCount::of_slice(&body))
        .bench(|| Robots::parse(black_box(&body)));
}

#[divan::bench(args = ["Googlebot", "SomeBot"])]
fn check_realistic(bencher: Bencher, token: &str) {
    let robots = Robots::parse(&realistic_robots());
    let paths = urls(1000, None);
    bencher.counter(ItemsCount::new(paths.len())).bench(|| {
        let group = robots.group(&[token]);
        paths
            .iter()
            .filter(|p| group.check(black_box(p)).allowed())
            .count()
    });
}

/// Per URL of the given length: the patterns need about 75 literal bytes,
/// so short paths are rejected by length, long ones are matched early, and
/// lengths near the patterns' own are the worst case.
#[divan::bench(args = [40, 80, 100, 120, 200, 1000])]
fn check_hostile(bencher: Bencher, path_len: usize) {
    let robots = Robots::parse(&hostile_robots());
    let paths = urls(100, Some(path_len));
    bencher.counter(ItemsCount::new(paths.len())).bench(|| {
        let group = robots.group(&["x"]);
        paths
            .iter()
            .filter(|p| group.check(black_box(p)).allowed())
            .count()
    });
}

/// `rules` rules under one directory, as a documentation site's file lists
/// its retired manuals (`Disallow: /html/A44550_1/`), with a few wildcards.
fn one_directory_robots(rules: usize) -> Vec<u8> {
    let mut out = String::from("User-agent: *\nDisallow: /*.pdf$\nAllow: /html/index\n");
    for n in 0..rules {
        out.push_str(&format!(
            "Disallow: /html/E{:05}_{:02}/\n",
            n * 7 % 100_000,
            n % 13
        ));
    }
    out.into_bytes()
}

/// Paths under the directory: half under a listed manual, half not.
fn one_directory_urls(rules: usize, count: usize) -> Vec<Vec<u8>> {
    let mut rng = Rng(0xD0C5);
    (0..count)
        .map(|i| {
            let n = rng.below(rules);
            let manual = if i % 2 == 0 { n % 13 } else { 13 + n % 7 };
            format!("/html/E{:05}_{manual:02}/toc.htm", n * 7 % 100_000).into_bytes()
        })
        .collect()
}

/// Per URL, against a file of that many rules under one directory.
#[divan::bench(args = [100, 1_000, 30_000])]
fn check_one_directory(bencher: Bencher, rules: usize) {
    let robots = Robots::parse(&one_directory_robots(rules));
    let paths = one_directory_urls(rules, 1000);
    bencher.counter(ItemsCount::new(paths.len())).bench(|| {
        let group = robots.group(&["Googlebot"]);
        paths
            .iter()
            .filter(|p| group.check(black_box(p)).allowed())
            .count()
    });
}
