//! Fuzz Parquet logs through the real reading path (`read_input` on a
//! file, the format detected from `PAR1`, as a user's data lake export
//! would be read): any bytes as the file, seeded with Parquet logs written
//! by polars (`fuzz/seed.py`: the fixture and a few row-group layouts).
//!
//! Checks: no panic and no abort (a forged count must be refused by the
//! page check before the decoder allocates by it); every row is accounted
//! for (parsed + bad + empty + directives = lines; the bad rows by reason
//! add up; at most 10 samples, each on a row that exists); the sinks got
//! exactly the parsed rows; and a second read gives the same answer.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use crawlaudit::logs::{Format, Input, ReadOptions, Request, Sink, read_input};
use libfuzzer_sys::fuzz_target;

/// What a sink keeps of each request: enough to compare two reads.
#[derive(Default)]
struct Keep(Vec<(i64, u16, Vec<u8>, Vec<u8>, bool)>);

impl Sink for Keep {
    fn record(&mut self, r: &Request<'_>) {
        assert!(r.resolution() > 0);
        if r.is_valid_request() {
            assert!(!r.target().is_empty() && r.target() != b"-");
        }
        self.0.push((
            r.time(),
            r.status(),
            r.target().to_vec(),
            r.user_agent().to_vec(),
            r.is_valid_request(),
        ));
    }
}

fn path() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let dir = if std::path::Path::new("/dev/shm").is_dir() {
            PathBuf::from("/dev/shm")
        } else {
            std::env::temp_dir()
        };
        dir.join(format!("crawlaudit-fuzz-parquet-{}.parquet", std::process::id()))
    })
}

fuzz_target!(|data: &[u8]| {
    std::fs::write(path(), data).unwrap();
    let input = Input::File(path().clone());
    let options = ReadOptions {
        format: Format::Auto,
        chunk_size: 1,
    };
    let mut reads = Vec::new();
    for _ in 0..2 {
        let (sinks, report): (Vec<Keep>, _) = read_input(&input, &options, &Keep::default);
        assert_eq!(
            report.parsed + report.bad + report.empty + report.directives,
            report.lines,
            "{report:?}"
        );
        assert_eq!(report.bad_by_reason.values().sum::<u64>(), report.bad);
        assert!(report.not_requests <= report.parsed);
        assert!(report.samples.len() as u64 <= report.bad.min(10));
        for s in &report.samples {
            assert!(s.line >= 1 && s.line <= report.lines, "{s:?}");
        }
        let records: Vec<_> = sinks.into_iter().flat_map(|s| s.0).collect();
        assert_eq!(records.len() as u64, report.parsed);
        reads.push((report, records));
    }
    let (a, b) = (&reads[0], &reads[1]);
    assert_eq!(a.0, b.0);
    assert!(a.1 == b.1);
});
