//! Fuzz `--format regex:PATTERN`: the first line of the input is tried as
//! a pattern (an invalid one is an error, never a panic), the other lines
//! are read with it and with the README's two example patterns.
//!
//! Checks: a pattern `--format` accepts compiles; every field of a parsed
//! line lies inside the line (groups borrow, nothing is built); a line
//! read as a request has a target.
#![no_main]

use crawlaudit::logs::{Compiled, Format, Request, parse_line};
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;
use common::{fields_within, within};

/// The README's examples: a logfmt line, and a date written in parts.
const EXAMPLES: [&str; 2] = [
    r#"regex:^ts=(?P<time>\S+) host=(?P<host>\S+) ip=(?P<ip>\S+) method=(?P<method>\S+) path=(?P<uri>\S+) status=(?P<status>\S+) size=(?P<bytes>\S+) ua="(?P<user_agent>[^"]*)""#,
    r#"regex:^(?P<ip>\S+) \S+ \S+ \[(?P<month>[A-Za-z]+) - (?P<day>\d+), (?P<year>\d{4}):(?P<hour>\d\d):(?P<minute>\d\d):(?P<second>\d\d)\] "(?P<request>[^"]*)" (?P<status>\S+) (?P<bytes>\S+)$"#,
];

thread_local! {
    /// Compiled once: a parser keeps per-thread state (not `Sync`).
    static COMPILED: Vec<Compiled> = EXAMPLES
        .iter()
        .map(|p| p.parse::<Format>().unwrap().compile().unwrap())
        .collect();
}

fn check(line: &[u8], r: &Request<'_>) {
    fields_within(line, r);
    if let Some(host) = r.host() {
        within(line, host);
    }
    if r.is_valid_request() {
        assert!(!r.target().is_empty());
    }
    assert!(r.resolution() > 0);
}

fuzz_target!(|data: &[u8]| COMPILED.with(|examples| {
    let mut lines = data.split(|&b| b == b'\n');
    let first = lines.next().unwrap_or_default();
    let own = std::str::from_utf8(first).ok().and_then(|pattern| {
        let format = format!("regex:{pattern}").parse::<Format>().ok()?;
        Some(
            format
                .compile()
                .expect("a pattern --format accepts compiles"),
        )
    });
    for line in std::iter::once(first).chain(lines) {
        for c in examples.iter().chain(own.as_ref()) {
            if let Ok(r) = parse_line(c, line) {
                check(line, &r);
            }
        }
    }
}));
