//! Fuzz the template line parser (combined, common, vhost_combined, vhost_common, gandi,
//! envoy, lighttpd, and the AWS formats alb, elb and s3) and the nginx
//! log_format compiler: the first line of the input is tried as an nginx
//! format string, every other line is parsed in every format.
//!
//! Checks: every field of a parsed line lies inside the line (fields
//! borrow from it; only S3's host, built from the bucket name, is not).
#![no_main]

use crawlaudit::logs::{Format, parse_line};
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;
use common::{fields_within, within};

fuzz_target!(|data: &[u8]| {
    let mut lines = data.split(|&b| b == b'\n');
    let first = String::from_utf8_lossy(lines.next().unwrap_or_default()).into_owned();
    let mut formats = vec![
        Format::Combined,
        Format::Common,
        Format::VhostCombined,
        Format::VhostCommon,
        Format::Gandi,
        Format::Envoy,
        Format::Lighttpd,
        Format::Alb,
        Format::Elb,
        Format::S3,
    ];
    if let Ok(nginx) = format!("nginx:{first}").parse::<Format>() {
        formats.push(nginx);
    }
    let compiled: Vec<_> = formats.iter().map(|f| f.compile().unwrap()).collect();
    for line in lines {
        for (format, c) in formats.iter().zip(&compiled) {
            if let Ok(r) = parse_line(c, line) {
                fields_within(line, &r);
                if *format != Format::S3 {
                    if let Some(host) = r.host() {
                        within(line, host);
                    }
                }
                let _ = r.client_ip();
            }
        }
    }
});
