//! Fuzz `pages.jsonl` reading: any bytes as the lines of a host's page file.
#![no_main]

use std::path::Path;

use crawlaudit::snapshot::Snapshot;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut snapshot = Snapshot::default();
    if snapshot
        .read_pages("shop.example", Path::new("pages.jsonl"), data)
        .is_ok()
    {
        // Every page read is on the host, and queries on it work.
        for (host, timeline) in snapshot.hosts() {
            assert_eq!(host, "shop.example");
            for (url, versions) in timeline.pages() {
                assert!(!versions.is_empty());
                let _ = snapshot.page_at(host, url, i64::MAX);
            }
        }
    }
});
