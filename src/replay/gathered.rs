//! The crawler identities' requests per host, gathered from the chunks in
//! file order: one [`Activity`] per (host, identity), what is unique,
//! however many chunks meet the pair, and the delayed requests' rows their
//! steps point into.
//!
//! The ordered stage gathers what the chunks kept at the end of the run.
//! The audit gathers each chunk as the reader takes it, in file order
//! (`Collector::accept`, through [`super::Lookups::gathering`]): a CDN
//! log's chunks each charge thousands of (host, identity) pairs, and kept
//! until the end they held memory in proportion to the requests, and the
//! gathering ran on one thread after the reading.

use foldhash::HashMap;

use super::UnknownHosts;
use super::activity::{Activity, DelayedRows};
use super::kept::{ChargedHost, Kept};

/// Activities gathered from chunks in file order.
#[derive(Debug, Default)]
pub(crate) struct Gathered {
    /// The snapshot's hosts' activities, by (host number, identity
    /// number in the run): one map, not a map per host (thousands of small
    /// maps grew by reallocating while the chunks' activities were freed).
    by_id: HashMap<(u32, u32), Activity>,
    /// Other hosts' activities, by (the host's number among the run's
    /// other hosts, `Context::other_host_id`; identity number).
    by_other: HashMap<(u32, u32), Activity>,
    /// Each gathered chunk's delayed requests' rows: a chunk's steps are
    /// told its place here.
    delayed: Vec<DelayedRows>,
    /// The requests for hosts the snapshot does not describe.
    unknown_hosts: UnknownHosts,
}

/// What [`Gathered::into_parts`] returns: the snapshot hosts' activities
/// by (host number, identity number), the other hosts' by (their number
/// in the run, identity number), the chunks' delayed rows, and the
/// unknown hosts.
pub(crate) type GatheredParts = (
    HashMap<(u32, u32), Activity>,
    HashMap<(u32, u32), Activity>,
    Vec<DelayedRows>,
    UnknownHosts,
);

impl Gathered {
    /// Adds the activities, delayed rows and unknown hosts `kept` holds;
    /// a chunk comes after the chunks gathered before it in the files. A
    /// chunk already gathered adds nothing.
    pub(crate) fn gather(&mut self, kept: &mut Kept) {
        let Some((charged, delayed)) = kept.take_activities() else {
            return;
        };
        self.unknown_hosts.merge(kept.take_unknown_hosts());
        let chunk = u32::try_from(self.delayed.len()).expect("fewer than 2^32 chunks");
        self.delayed.push(delayed);
        for charged in charged {
            let (host, identity, mut activity) = charged.into_parts();
            activity.in_chunk(chunk);
            match host {
                ChargedHost::Snapshot(id) => {
                    add_activity(&mut self.by_id, (id, identity), activity);
                }
                ChargedHost::Other(n) => {
                    add_activity(&mut self.by_other, (n, identity), activity);
                }
            }
        }
    }

    /// The activities, the delayed rows and the unknown hosts.
    pub(crate) fn into_parts(self) -> GatheredParts {
        (self.by_id, self.by_other, self.delayed, self.unknown_hosts)
    }
}

/// Adds a chunk's `activity` to the one `map` holds under `key`, or keeps
/// it there (the chunks come in file order).
fn add_activity<K: std::hash::Hash + Eq>(
    map: &mut HashMap<K, Activity>,
    key: K,
    activity: Activity,
) {
    match map.entry(key) {
        std::collections::hash_map::Entry::Occupied(mut kept) => kept.get_mut().merge(activity),
        std::collections::hash_map::Entry::Vacant(slot) => {
            slot.insert(activity);
        }
    }
}
