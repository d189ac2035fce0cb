//! Fuzz the W3C extended parser: `#` lines are directives (`#Fields:` sets
//! the columns), the rest are data lines.
#![no_main]

use crawlaudit::logs::{Format, parse_line};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut compiled = Format::W3c.compile().unwrap();
    compiled.directive(b"#Fields: date time c-ip cs-method cs-uri-stem cs-uri-query sc-status cs(User-Agent) cs(Referer) cs-host");
    for line in data.split(|&b| b == b'\n') {
        if line.first() == Some(&b'#') {
            compiled.directive(line);
        } else {
            let _ = parse_line(&compiled, line).map(|r| (r.target().len(), r.user_agent().len()));
        }
    }
});
