//! The audit as one library call: the log inputs are read in parallel,
//! each chunk collected by a [`Collector`] (Disallow judged on the spot),
//! then the ordered stage judges per host ([`crate::replay`]). The command line's
//! `audit` is this call with flags turned into an [`AuditConfig`], and the
//! report ([`crate::report::Report`]) built and written from its result.
//!
//! ```
//! use crawlaudit::audit::{self, AuditConfig};
//! use crawlaudit::bots::{Catalogue, IpRanges};
//! use crawlaudit::logs::Input;
//! use crawlaudit::replay::{Context, Settings};
//! use crawlaudit::snapshot::Snapshot;
//!
//! let dir = std::env::temp_dir().join(format!("crawlaudit-doc-audit-{}", std::process::id()));
//! std::fs::create_dir_all(dir.join("snap/shop.example")).unwrap();
//! std::fs::write(dir.join("snap/shop.example/robots.txt"), "User-agent: *\nDisallow: /cart/\n").unwrap();
//! std::fs::write(
//!     dir.join("access.log"),
//!     "192.0.2.7 - - [01/Nov/2026:10:00:00 +0000] \"GET /cart/1 HTTP/1.1\" 200 5 \"-\" \"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)\"\n",
//! )
//! .unwrap();
//! let snapshot = Snapshot::load(&[dir.join("snap")]).unwrap();
//! let ctx = Context::new(snapshot, Catalogue::builtin(), IpRanges::default(), Settings::default());
//! let run = audit::run(&ctx, &AuditConfig::new(vec![Input::File(dir.join("access.log"))]));
//! assert_eq!(run.files[0].parsed, 1);
//! assert_eq!(run.outcome.violations.get(0).unwrap().rule(), "Disallow: /cart/");
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

use std::time::{Duration, Instant};

use crate::logs::{FileReport, Input, ReadOptions, read_input};
use crate::replay::{Collector, Context, Lookups, Outcome, replay_gathered};

/// What the audit reads, and how.
#[derive(Default)]
pub struct AuditConfig<'p> {
    /// The log inputs, audited in this order (files and standard input).
    pub inputs: Vec<Input>,
    /// How each input is read: the format (or detection) and chunk size.
    pub read: ReadOptions,
    /// Told of each input before and after it is read (a progress bar).
    pub progress: Option<&'p (dyn Fn(Progress<'_>) + Sync)>,
}

impl AuditConfig<'_> {
    /// The inputs, read with the default options and no progress.
    pub fn new(inputs: Vec<Input>) -> Self {
        AuditConfig {
            inputs,
            ..AuditConfig::default()
        }
    }
}

/// What [`run`] tells [`AuditConfig::progress`].
#[derive(Debug)]
pub enum Progress<'a> {
    /// The input is about to be read.
    Reading(&'a Input),
    /// The input was read: its accounting.
    Read(&'a Input, &'a FileReport),
}

/// What an audit found, and what each input held.
#[derive(Debug)]
pub struct AuditRun {
    /// Violations, findings, per-crawler activity, counts and the next
    /// night's state.
    pub outcome: Outcome,
    /// Per input, in order: its lines by class, bad lines with samples,
    /// and its fault, if any.
    pub files: Vec<FileReport>,
    /// How long each of the audit's two stages took.
    pub timings: StageTimes,
}

/// The wall time of each of [`run`]'s stages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StageTimes {
    /// Reading the inputs: parsing, identifying the crawlers and judging
    /// Disallow, in parallel chunks.
    pub reading: Duration,
    /// The ordered stage: the chunks gathered per host and crawler,
    /// crawl-delay, noindex and referrals judged, the violations merged.
    pub judging: Duration,
}

impl AuditRun {
    /// Nothing could be read: every input has a fault and no line (an
    /// empty report would only replace the last good one).
    pub fn nothing_read(&self) -> bool {
        self.files.iter().all(|f| f.fault.is_some() && f.lines == 0)
    }

    /// The inputs' faults, in order.
    pub fn faults(&self) -> Vec<&str> {
        self.files
            .iter()
            .filter_map(|f| f.fault.as_deref())
            .collect()
    }
}

/// Audits `config.inputs` against `ctx`: reads each input in parallel
/// chunks, collects and judges them, and returns the outcome with each
/// input's accounting. Faults of one input (unreadable, a broken
/// compressed stream, an undetectable format) are in its [`FileReport`];
/// the others are audited all the same.
pub fn run(ctx: &Context, config: &AuditConfig<'_>) -> AuditRun {
    let started = Instant::now();
    // The robots.txt lookups, handed from chunk to chunk, and the
    // activities of the chunks the reader accepts, gathered as it reads.
    let lookups = Lookups::gathering();
    let mut collectors = Vec::new();
    let mut files = Vec::with_capacity(config.inputs.len());
    for input in &config.inputs {
        if let Some(progress) = config.progress {
            progress(Progress::Reading(input));
        }
        let (sinks, report) = read_input(input, &config.read, &|| {
            Collector::with_lookups(ctx, &lookups)
        });
        if let Some(progress) = config.progress {
            progress(Progress::Read(input, &report));
        }
        collectors.extend(sinks);
        files.push(report);
    }
    // The blocks read are freed (a compressed input's were allocated and
    // freed by the workers' heaps): back to the system before the judge.
    crate::memory::give_back_freed();
    let read = Instant::now();
    // The lookups (hosts times crawlers of them, with a CDN's log) are
    // freed while the ordered stage gathers the chunks, not after it.
    let (outcome, ()) = rayon::join(
        || replay_gathered(ctx, collectors, &lookups),
        || lookups.free(),
    );
    let timings = StageTimes {
        reading: read - started,
        judging: read.elapsed(),
    };
    AuditRun {
        outcome,
        files,
        timings,
    }
}
