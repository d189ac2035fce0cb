//! The audit as tasks that share nothing, for a cluster (Apache Spark, through
//! the Python package in `python/`): each log file is read once, by one
//! task, and what each shard's judgement needs crosses the cluster's
//! shuffle as bytes.
//!
//! - [`ingest`]: one task per log file. Reads it with the audit's reader,
//!   identifies and verifies each crawler request and judges its Disallow
//!   on the spot, as `crawlaudit audit` does, and returns the file's
//!   accounting and, per chunk of the file and shard (the host's shard,
//!   [`crate::shard`]), what that shard's ordered stage needs of the chunk
//!   (a [`Part`]: counts, violations, per crawler and host its activity and
//!   the requests a Crawl-delay applies to, engine fetches and referrals of
//!   pages with indexing rules).
//! - [`judge`]: one task per shard, over that shard's parts in file order
//!   (files in the order given, each file's chunks in order): the outcome
//!   a `crawlaudit audit --shard K/N` over the same files returns.
//! - The shard outcomes become shard reports, which `merge`
//!   ([`crate::report::Report::merge`]) adds up into the report one run
//!   writes, byte for byte.
//!
//! Why the result is exact: every rule is per host, a host's lines all go
//! to its shard, and a shard's parts are judged in the order one run reads
//! them; chunk boundaries change nothing a run finds (the reader's
//! determinism), so parts of many files equal the chunks of one run.
//!
//! ```
//! use crawlaudit::distributed::{self, Part};
//! use crawlaudit::bots::{Catalogue, IpRanges};
//! use crawlaudit::logs::{Input, ReadOptions};
//! use crawlaudit::replay::{Context, Settings};
//! use crawlaudit::shard::Shard;
//! use crawlaudit::snapshot::Snapshot;
//!
//! let dir = std::env::temp_dir().join(format!("crawlaudit-doc-distributed-{}", std::process::id()));
//! std::fs::create_dir_all(dir.join("snap/shop.example")).unwrap();
//! std::fs::write(dir.join("snap/shop.example/robots.txt"), "User-agent: *\nDisallow: /cart/\n").unwrap();
//! std::fs::write(
//!     dir.join("access.log"),
//!     "192.0.2.7 - - [01/Nov/2026:10:00:00 +0000] \"GET /cart/1 HTTP/1.1\" 200 5 \"-\" \"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)\"\n",
//! )
//! .unwrap();
//! let snapshot = || Snapshot::load(&[dir.join("snap")]).unwrap();
//! let ctx = Context::new(snapshot(), Catalogue::builtin(), IpRanges::default(), Settings::default());
//! let ingested = distributed::ingest(&ctx, &Input::File(dir.join("access.log")), &ReadOptions::default(), 0, 2);
//! assert_eq!(ingested.file.parsed, 1);
//! // The host's shard has the one part; another process judges it.
//! let shard = crawlaudit::shard::shard_of("shop.example", 2);
//! let parts: Vec<&Part> = ingested.parts.iter().filter(|p| p.shard == shard).collect();
//! assert_eq!(parts.len(), 1);
//! let mut judge_ctx = Context::new(snapshot(), Catalogue::builtin(), IpRanges::default(), Settings::default());
//! let outcome = distributed::judge(
//!     &mut judge_ctx,
//!     Shard { index: shard, count: 2 },
//!     None,
//!     parts.iter().map(|p| p.bytes.as_slice()),
//! )
//! .unwrap();
//! assert_eq!(outcome.violations.get(0).unwrap().rule(), "Disallow: /cart/");
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

use crate::logs::{FileReport, Input, ReadOptions, read_input};
use crate::replay::{Context, Lookups, Outcome, SplitCollector, State, WireError, replay_parts};
use crate::shard::{Shard, shard_of};

/// What one shard's ordered stage needs of one chunk of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// The shard (`0..count`).
    pub shard: u32,
    /// The file's number in the job's list of inputs.
    pub file: u32,
    /// The chunk's number in the file.
    pub chunk: u32,
    /// The chunk's part, as [`judge`] reads it.
    pub bytes: Vec<u8>,
}

/// What [`ingest`] read of one file.
#[derive(Debug)]
pub struct Ingested {
    /// The file's accounting: its lines by class, bad lines with samples,
    /// its fault.
    pub file: FileReport,
    /// Per chunk (in order) and shard (in order), the shard's part.
    pub parts: Vec<Part>,
}

/// Reads `input`, the `file`-th of the job's inputs, and splits what its
/// chunks keep among `shards` shards. `ctx` is the job's context with no
/// shard; with `--state`, any state (an empty one will do: the collectors
/// only ask whether there is one).
///
/// # Panics
/// When `shards` is 0.
pub fn ingest(
    ctx: &Context,
    input: &Input,
    read: &ReadOptions,
    file: u32,
    shards: u32,
) -> Ingested {
    let lookups = Lookups::default();
    let (sinks, report) = read_input(input, read, &|| SplitCollector::new(ctx, &lookups, shards));
    let mut parts = Vec::new();
    for (chunk, sink) in sinks.into_iter().enumerate() {
        let chunk = u32::try_from(chunk).expect("fewer than 2^32 chunks");
        for (shard, bytes) in sink.into_parts() {
            parts.push(Part {
                shard,
                file,
                chunk,
                bytes,
            });
        }
    }
    lookups.free();
    Ingested {
        file: report,
        parts,
    }
}

/// Judges shard `shard` from its parts, in file order, with the
/// previous night's `state` of the shard's hosts ([`state_of_shard`]):
/// the outcome of `crawlaudit audit --shard K/N` over the same files. `ctx`
/// is the job's context: its shard and state are set for this judgement
/// and put back after it, so that a worker that keeps one context for its
/// tasks ingests the next file with every line (a context with a shard
/// keeps only that shard's lines).
///
/// # Errors
/// A part that this version's [`ingest`] did not write with the same
/// catalogue and snapshot.
pub fn judge<'b>(
    ctx: &mut Context,
    shard: Shard,
    state: Option<State>,
    parts: impl IntoIterator<Item = &'b [u8]>,
) -> Result<Outcome, WireError> {
    let shard_before = ctx.settings().shard;
    ctx.set_shard(Some(shard));
    let state_before = ctx.replace_state(state);
    let outcome = replay_parts(ctx, parts);
    // The judgement's working sets are freed: back to the system before
    // the task hands its outcome over (a cluster's worker process lives
    // on to run other tasks, and its memory limit counts what its heap
    // keeps). A local audit trims once, before its report instead.
    crate::memory::give_back_freed();
    ctx.set_shard(shard_before);
    ctx.replace_state(state_before);
    outcome
}

/// The entries of `state` whose host belongs to `shard`.
pub fn state_of_shard(state: &State, shard: Shard) -> State {
    state.of_hosts(|host| shard_of(host, shard.count) == shard.index)
}

/// The shards' states as one (their hosts are disjoint).
pub fn join_states(states: impl IntoIterator<Item = State>) -> State {
    let mut all = State::default();
    for s in states {
        all.join(s);
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::{Catalogue, IpRanges};
    use crate::replay::Settings;
    use crate::snapshot::Snapshot;

    #[test]
    fn states_split_by_shard_join_as_they_were() {
        let mut state = State::default();
        for h in [
            "a.example",
            "b.example",
            "c.example",
            "d.example",
            "e.example",
        ] {
            state.insert_last(
                h,
                "Googlebot",
                crate::replay::LastRequest {
                    time: 1,
                    resolution: 1,
                    robots_fetch: None,
                },
            );
        }
        let parts: Vec<State> = (0..3)
            .map(|index| state_of_shard(&state, Shard { index, count: 3 }))
            .collect();
        assert!(parts.iter().all(|p| p.len().0 < 5));
        assert_eq!(join_states(parts), state);
    }

    #[test]
    fn a_corrupt_part_is_an_error() {
        let snapshot = Snapshot::load(&[]).unwrap();
        let mut ctx = Context::new(
            snapshot,
            Catalogue::builtin(),
            IpRanges::default(),
            Settings::default(),
        );
        let shard = Shard { index: 0, count: 1 };
        let e = judge(&mut ctx, shard, None, [&b"CAk2\xff"[..]]).unwrap_err();
        assert!(e.to_string().contains("truncated"), "{e}");
        assert!(judge(&mut ctx, shard, None, [&b"nope"[..]]).is_err());
    }
}

#[cfg(test)]
mod chunk_tests {
    use super::*;
    use crate::audit::{self, AuditConfig};
    use crate::bots::{Catalogue, IpRanges};
    use crate::replay::Settings;
    use crate::snapshot::Snapshot;

    const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/demo");

    fn ctx() -> Context {
        let snapshot = Snapshot::load(&[std::path::Path::new(DEMO).join("snapshot")]).unwrap();
        let ranges = IpRanges::load_dir(&std::path::Path::new(DEMO).join("ip-ranges")).unwrap();
        Context::new(snapshot, Catalogue::builtin(), ranges, Settings::default())
    }

    /// Many small chunks of one file, split among shards and judged per
    /// shard, find what one run finds: the same rows in every table.
    #[test]
    fn small_chunks_split_among_shards_judge_as_one_run() {
        let log = Input::File(std::path::Path::new(DEMO).join("access.log"));
        let whole = audit::run(&ctx(), &AuditConfig::new(vec![log.clone()])).outcome;
        let read = ReadOptions {
            chunk_size: 2048,
            ..ReadOptions::default()
        };
        for count in [1, 3] {
            let ingested = ingest(&ctx(), &log, &read, 0, count);
            assert!(ingested.parts.iter().any(|p| p.chunk > 5), "small chunks");
            let mut rows = Vec::new();
            let mut findings = 0;
            let mut requests = 0;
            // One context for every task, as a worker keeps one.
            let mut worker = ctx();
            for index in 0..count {
                let outcome = judge(
                    &mut worker,
                    Shard { index, count },
                    None,
                    ingested
                        .parts
                        .iter()
                        .filter(|p| p.shard == index)
                        .map(|p| p.bytes.as_slice()),
                )
                .unwrap();
                rows.extend(outcome.violations.iter().map(|v| format!("{v:?}")));
                findings += outcome.findings.len();
                requests += outcome.counts.requests;
            }
            let mut expected: Vec<String> =
                whole.violations.iter().map(|v| format!("{v:?}")).collect();
            rows.sort();
            expected.sort();
            assert!(expected.len() > 20);
            assert_eq!(rows, expected, "{count} shards");
            assert_eq!(findings, whole.findings.len(), "{count} shards");
            assert_eq!(requests, whole.counts.requests, "{count} shards");
            // A file ingested after a judgement on the same context is
            // split as before (the judgement put the context back).
            assert!(worker.settings().shard.is_none() && !worker.has_state());
            let again = ingest(&worker, &log, &read, 0, count);
            assert_eq!(again.parts, ingested.parts, "{count} shards");
        }
    }
}
