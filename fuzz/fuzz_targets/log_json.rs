//! Fuzz the JSON-lines parser with the automatic mapping and every named
//! layout (`json:cloudflare`, `json:gcp`, ...).
#![no_main]

use crawlaudit::logs::{Format, JSON_LAYOUTS, parse_line};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let names = std::iter::once("json".to_string())
        .chain(JSON_LAYOUTS.iter().map(|name| format!("json:{name}")));
    for name in names {
        let compiled = name.parse::<Format>().unwrap().compile().unwrap();
        for line in data.split(|&b| b == b'\n') {
            let _ = parse_line(&compiled, line).map(|r| (r.host().map(<[u8]>::len), r.time()));
        }
    }
});
