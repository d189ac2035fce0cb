//! Fuzz the template line parser (combined, common, vhost_combined, envoy,
//! lighttpd) and the nginx log_format compiler: the first line of the input
//! is tried as an nginx format string, every other line is parsed in every
//! format.
#![no_main]

use crawlaudit::logs::{Format, parse_line};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut lines = data.split(|&b| b == b'\n');
    let first = String::from_utf8_lossy(lines.next().unwrap_or_default()).into_owned();
    let mut formats = vec![
        Format::Combined,
        Format::Common,
        Format::VhostCombined,
        Format::Envoy,
        Format::Lighttpd,
    ];
    if let Ok(nginx) = format!("nginx:{first}").parse::<Format>() {
        formats.push(nginx);
    }
    let compiled: Vec<_> = formats.iter().map(|f| f.compile().unwrap()).collect();
    for line in lines {
        for c in &compiled {
            if let Ok(r) = parse_line(c, line) {
                // Borrowed fields lie inside the line.
                assert!(r.client().len() <= line.len());
                let _ = (r.host(), r.client_ip());
            }
        }
    }
});
