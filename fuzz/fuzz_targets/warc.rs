//! Fuzz WARC reading: any bytes as a WARC file (plain; a gzip member when
//! the input starts with the gzip magic).
#![no_main]

use std::path::Path;

use crawlaudit::snapshot::Snapshot;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut snapshot = Snapshot::default();
    if let Ok(stats) = snapshot.read_warc(Path::new("fuzz.warc"), data) {
        // Every record is counted once: used or skipped.
        assert!(stats.responses + stats.revisits + stats.skipped <= stats.records);
        let found: usize = snapshot
            .hosts()
            .map(|(_, t)| t.robots_versions().len() + t.pages().values().map(Vec::len).sum::<usize>())
            .sum();
        assert_eq!(found as u64, stats.robots + stats.pages);
        for (host, _) in snapshot.hosts() {
            let _ = snapshot.policy_at(host, 0);
        }
    }
});
