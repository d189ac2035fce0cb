//! One log chunk collected for every shard at once: each line goes to the
//! collector of its host's shard (`shard::shard_of`, lines without a host to
//! the `--site` host's shard, or to shard 0 as `Shard::owns` says), so
//! that what a shard's collector keeps is what a `--shard K/N` run's
//! collector keeps of the chunk, while the chunk is read once. When the
//! chunk is done, each shard's part is written as bytes (`super::wire`) for
//! the task that judges that shard.

use foldhash::{HashMap, HashMapExt};

use super::wire::Writer;
use super::{Collector, Context, Lookups};
use crate::host::normalize_host;
use crate::logs::{Request, Sink};
use crate::shard::shard_of;

/// Raw host values remembered per chunk before the table is emptied.
const MAX_HOST_VALUES: usize = 65_536;

/// The [`Sink`] of one chunk of `distributed::ingest`: a [`Collector`] per
/// shard met, and when the chunk is done, each shard's part as bytes.
pub struct SplitCollector<'c> {
    ctx: &'c Context,
    lookups: &'c Lookups<'c>,
    count: u32,
    /// Per shard, its collector, made when the chunk meets a line of it.
    parts: Vec<Option<Collector<'c>>>,
    /// Host values as logged to their shard.
    shards: HashMap<Box<[u8]>, u32>,
    /// The shard of lines without a host.
    no_host: u32,
    /// Once the chunk is done: per shard met, its part as bytes.
    encoded: Vec<(u32, Vec<u8>)>,
}

impl<'c> SplitCollector<'c> {
    /// A chunk's collector for `count` shards (at least 1).
    ///
    /// # Panics
    /// When `count` is 0.
    pub fn new(ctx: &'c Context, lookups: &'c Lookups<'c>, count: u32) -> Self {
        assert!(count > 0, "a shard count is at least 1");
        let no_host = match ctx.default_host() {
            Some(host) => shard_of(host, count),
            None => 0,
        };
        SplitCollector {
            ctx,
            lookups,
            count,
            parts: (0..count).map(|_| None).collect(),
            shards: HashMap::new(),
            no_host,
            encoded: Vec::new(),
        }
    }

    /// Each shard's part of the chunk, as bytes, in shard order (shards
    /// without a line of the chunk have none).
    pub fn into_parts(self) -> Vec<(u32, Vec<u8>)> {
        self.encoded
    }

    fn shard(&mut self, request: &Request<'_>) -> u32 {
        let Some(raw) = request.host() else {
            return self.no_host;
        };
        if let Some(&s) = self.shards.get(raw) {
            return s;
        }
        let s = shard_of(&normalize_host(&String::from_utf8_lossy(raw)), self.count);
        if self.shards.len() >= MAX_HOST_VALUES {
            self.shards.clear();
        }
        self.shards.insert(raw.into(), s);
        s
    }
}

impl Sink for SplitCollector<'_> {
    fn record(&mut self, request: &Request<'_>) {
        let s = self.shard(request) as usize;
        let (ctx, lookups) = (self.ctx, self.lookups);
        self.parts[s]
            .get_or_insert_with(|| Collector::with_lookups(ctx, lookups))
            .record(request);
    }

    fn finish(&mut self) {
        let names = self.ctx.identity_names();
        for (s, part) in self.parts.iter_mut().enumerate() {
            let Some(mut collector) = part.take() else {
                continue;
            };
            collector.kept.delayed_mut().seal();
            collector.flush_hosts();
            let agents = collector.agents_met();
            let mut w = Writer::new(&agents);
            collector.kept.write(&mut w, &names, self.ctx);
            // Written with the part: not handed to this process's run.
            collector.kept.take_unknown_hosts();
            collector.finish();
            self.encoded.push((s as u32, w.finish()));
        }
        self.shards = HashMap::new();
    }
}
