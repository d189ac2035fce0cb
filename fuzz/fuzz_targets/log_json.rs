//! Fuzz the JSON-lines parser with the automatic and Cloudflare mappings.
#![no_main]

use crawlaudit::logs::{Format, parse_line};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for name in ["json", "json:cloudflare"] {
        let compiled = name.parse::<Format>().unwrap().compile().unwrap();
        for line in data.split(|&b| b == b'\n') {
            let _ = parse_line(&compiled, line).map(|r| (r.host().map(<[u8]>::len), r.time()));
        }
    }
});
