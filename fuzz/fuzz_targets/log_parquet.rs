//! Fuzz Parquet logs through the real reading path (`read_input` on a
//! file, the format detected from `PAR1`, as a user's data lake export
//! would be read): any bytes as the file, seeded with the Parquet log
//! fixture (`fuzz/seed.py`), written by polars.
//!
//! Checks: no panic and no abort (a forged count must be refused by the
//! page check before the decoder allocates by it); every row is accounted
//! for (parsed + bad + empty + directives = lines; the bad rows by reason
//! add up; at most 10 samples, each on a row that exists); the sinks got
//! exactly the parsed rows; and a second read gives the same answer.
#![no_main]

use crawlaudit::logs::{Format, Input, ReadOptions, read_input};
use libfuzzer_sys::fuzz_target;

#[path = "reading.rs"]
mod reading;
use reading::{Keep, accounted, scratch};

fuzz_target!(|data: &[u8]| {
    std::fs::write(scratch("parquet"), data).unwrap();
    let input = Input::File(scratch("parquet").clone());
    let options = ReadOptions {
        format: Format::Auto,
        chunk_size: 1,
    };
    let mut reads = Vec::new();
    for _ in 0..2 {
        let (sinks, report): (Vec<Keep>, _) = read_input(&input, &options, &Keep::default);
        for s in &report.samples {
            assert!(s.line >= 1 && s.line <= report.lines, "{s:?}");
        }
        let records = accounted(&report, sinks);
        reads.push((report, records));
    }
    let (a, b) = (&reads[0], &reads[1]);
    assert_eq!(a.0, b.0);
    assert!(a.1 == b.1);
});
