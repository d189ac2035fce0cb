//! What the targets that read whole files through `read_input` share
//! (included with `#[path]`: each target is a binary of its own).

use std::path::PathBuf;
use std::sync::OnceLock;

use crawlaudit::logs::{FileReport, Request, Sink};

/// What a sink keeps of each request: enough to compare two reads.
#[derive(Default)]
pub struct Keep(pub Vec<(i64, u16, Option<u64>, Vec<u8>, Vec<u8>, bool)>);

impl Sink for Keep {
    fn record(&mut self, r: &Request<'_>) {
        assert!(r.resolution() > 0);
        if r.is_valid_request() {
            assert!(!r.target().is_empty() && r.target() != b"-");
        }
        self.0.push((
            r.time(),
            r.status(),
            r.bytes(),
            r.target().to_vec(),
            r.user_agent().to_vec(),
            r.is_valid_request(),
        ));
    }
}

/// The file this process writes its inputs to (`/dev/shm` when there is
/// one), named by `what`.
pub fn scratch(what: &str) -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let dir = if std::path::Path::new("/dev/shm").is_dir() {
            PathBuf::from("/dev/shm")
        } else {
            std::env::temp_dir()
        };
        dir.join(format!("crawlaudit-fuzz-{what}-{}", std::process::id()))
    })
}

/// Asserts that `report` accounts for every line: parsed + bad + empty +
/// directives = lines, the bad ones by reason add up, at most 10 samples,
/// and that the sinks got exactly the parsed requests.
pub fn accounted(
    report: &FileReport,
    sinks: Vec<Keep>,
) -> Vec<(i64, u16, Option<u64>, Vec<u8>, Vec<u8>, bool)> {
    assert_eq!(
        report.parsed + report.bad + report.empty + report.directives,
        report.lines,
        "{report:?}"
    );
    assert_eq!(report.bad_by_reason.values().sum::<u64>(), report.bad);
    assert!(report.not_requests <= report.parsed);
    assert!(report.samples.len() as u64 <= report.bad.min(10));
    let records: Vec<_> = sinks.into_iter().flat_map(|s| s.0).collect();
    assert_eq!(records.len() as u64, report.parsed);
    records
}
