//! Prints how crawlaudit identifies each User-Agent read from stdin (one per
//! line, optionally prefixed by a count and a space as `sort | uniq -c`
//! prints it): count, crawler name, category, robots tokens, origin.
//!
//! `cut -d'"' -f6 access.log | sort | uniq -c | sort -rn | head -40 |
//!  cargo run --release --example identify`

use std::io::BufRead;

use crawlaudit::bots::Catalogue;

fn main() {
    let catalogue = Catalogue::builtin();
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin");
        let trimmed = line.trim_start();
        let (count, ua) = match trimmed.split_once(' ') {
            Some((n, rest)) if n.bytes().all(|b| b.is_ascii_digit()) => (n, rest),
            _ => ("", trimmed),
        };
        match catalogue.identify(ua.as_bytes()) {
            Some(c) => println!(
                "{count}\t{}\t{}\t{}\t{:?}\t{ua}",
                c.name(),
                c.category(),
                c.tokens().join(","),
                c.origin()
            ),
            None => println!("{count}\t(human)\t-\t-\t-\t{ua}"),
        }
    }
}
