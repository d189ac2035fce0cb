//! Fuzz the HAProxy HTTP log parser, without named captures (`haproxy`)
//! and with them (`haproxy:Host,User-Agent`, `haproxy:Host,User-Agent,Referer`,
//! `haproxy:User-Agent`).
//!
//! Checks: naming the captures changes only the host, User-Agent and
//! referer (the same lines are read, with the same reason when bad, the
//! same client, time, request, status and bytes); without captures the
//! User-Agent and referer are empty; every field taken from the line
//! lies inside it, and a decoded header value is no longer than the line.
#![no_main]

use crawlaudit::logs::{Compiled, Format, Request, parse_line};
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;
use common::{fields_within, within};

const FORMATS: [&str; 4] = [
    "haproxy",
    "haproxy:Host,User-Agent",
    "haproxy:Host,User-Agent,Referer",
    "haproxy:User-Agent",
];

thread_local! {
    /// Compiled once: a parser keeps per-thread state (not `Sync`).
    static COMPILED: Vec<Compiled> = FORMATS
        .iter()
        .map(|f| f.parse::<Format>().unwrap().compile().unwrap())
        .collect();
}

type Core<'a> = (
    &'a [u8],
    i64,
    i64,
    &'a [u8],
    &'a [u8],
    &'a [u8],
    bool,
    u16,
    Option<u64>,
);

fn core<'a>(r: &'a Request<'_>) -> Core<'a> {
    (
        r.client(),
        r.time(),
        r.resolution(),
        r.method(),
        r.target(),
        r.protocol(),
        r.is_valid_request(),
        r.status(),
        r.bytes(),
    )
}

fuzz_target!(|data: &[u8]| COMPILED.with(|formats| {
    let [plain, captures @ ..] = formats.as_slice() else {
        unreachable!()
    };
    for line in data.split(|&b| b == b'\n') {
        let base = parse_line(plain, line);
        if let Ok(r) = &base {
            fields_within(line, r);
            assert!(r.user_agent().is_empty() && r.referer().is_empty());
            if let Some(host) = r.host() {
                within(line, host);
            }
        }
        for c in captures {
            let with = parse_line(c, line);
            match (&base, &with) {
                (Ok(a), Ok(b)) => {
                    assert!(core(a) == core(b), "captures changed more than the headers");
                    for field in [b.user_agent(), b.referer(), b.host().unwrap_or_default()] {
                        assert!(field.len() <= line.len());
                    }
                }
                (Err(a), Err(b)) => assert_eq!(a, b),
                _ => panic!("captures changed whether the line reads: {base:?} / {with:?}"),
            }
        }
    }
}));
