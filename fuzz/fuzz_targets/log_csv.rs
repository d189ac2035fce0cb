//! Fuzz CSV and TSV logs through the real reading path (`read_input` on a
//! file with `--format csv`/`tsv`): the first line is the header row. The
//! first input byte picks the delimiter, whether `--csv-fields` maps the
//! header's first columns to `time` and `uri`/`request` (as a user names
//! columns the automatic mapping does not know), and whether a run of
//! over 1 MiB of one byte is spliced in (a row past `MAX_LINE`: the cut
//! and resume of the row limit). Each log is read twice, in chunks of 1
//! byte and of 8 MiB.
//!
//! Checks: every row is accounted for (parsed + bad + empty + directives
//! = lines; the bad rows by reason add up; at most 10 samples, each at a
//! line that exists); the sinks got exactly the parsed rows; a log read
//! without a fault was read to its end; and the chunk size changes
//! nothing but how many sinks there are.
#![no_main]

use crawlaudit::logs::{Format, Input, MAX_LINE, ReadOptions, read_input};
use libfuzzer_sys::fuzz_target;

#[path = "reading.rs"]
mod reading;
use reading::{Keep, accounted, scratch};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let tsv = mode & 1 != 0;
    let delimiter = if tsv { b'\t' } else { b',' };
    let mut log = rest.to_vec();
    if mode & 0x60 == 0x60 && log.len() >= 3 {
        // A row past MAX_LINE: a run of one byte spliced in somewhere.
        let fill = log[0];
        let at = usize::from(u16::from_le_bytes([log[1], log[2]])) % log.len();
        log.splice(
            at..at,
            std::iter::repeat_n(fill, MAX_LINE + 1 + usize::from(mode & 0x1f)),
        );
    }
    let mut format: Format = if tsv { "tsv" } else { "csv" }.parse().unwrap();
    if mode & 2 != 0 {
        // --csv-fields naming the header's first two columns.
        let header = log.split(|&b| b == b'\n').next().unwrap_or_default();
        let names: Vec<String> = header
            .split(|&b| b == delimiter)
            .take(2)
            .map(|c| String::from_utf8_lossy(c).trim_matches('"').to_string())
            .collect();
        let second = if mode & 4 != 0 { "request" } else { "uri" };
        let spec = match names.as_slice() {
            [a, b] => format!("time={a},{second}={b}"),
            [a] => format!("time={a}"),
            _ => String::new(),
        };
        match format.clone().with_csv_fields(&spec) {
            Ok(f) => format = f,
            Err(_) => return,
        }
    }
    std::fs::write(scratch("csv"), &log).unwrap();
    let input = Input::File(scratch("csv").clone());
    let mut reads = Vec::new();
    for chunk_size in [1, 8 << 20] {
        let options = ReadOptions {
            format: format.clone(),
            chunk_size,
        };
        let (sinks, report): (Vec<Keep>, _) = read_input(&input, &options, &Keep::default);
        let line_ends = log.iter().filter(|&&b| b == b'\n').count() as u64;
        for s in &report.samples {
            assert!(s.line >= 1 && s.line <= line_ends + 1, "{s:?}");
            assert!(s.text.len() <= 200 * 3, "{s:?}");
        }
        let records = accounted(&report, sinks);
        if report.fault.is_none() && !report.compressed {
            assert_eq!(report.bytes, log.len() as u64);
        }
        reads.push((report, records));
    }
    let (a, b) = (&reads[0], &reads[1]);
    assert_eq!(a.0, b.0);
    assert!(a.1 == b.1);
});
