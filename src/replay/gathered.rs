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

use std::collections::hash_map::Entry;

use foldhash::HashMap;

use super::UnknownHosts;
use super::activity::{Activity, DelayedRows};
use super::kept::{ChargedHost, Kept};

/// Activities gathered from chunks in file order.
#[derive(Debug, Default)]
pub(crate) struct Gathered {
    /// The snapshot's hosts' activities, by (host number, identity
    /// number in the run): one table, not a table per host (thousands of
    /// small maps grew by reallocating while the chunks' activities were
    /// freed).
    by_id: Numbered,
    /// Other hosts' activities, by (the host's number among the run's
    /// other hosts, `Context::other_host_id`; identity number).
    by_other: Numbered,
    /// Each gathered chunk's delayed requests' rows: a chunk's steps are
    /// told its place here.
    delayed: Vec<DelayedRows>,
    /// The requests for hosts the snapshot does not describe.
    unknown_hosts: UnknownHosts,
}

/// Activities by (host number, identity number): each pair's activity in
/// a vector, in the order first met, and the map from pair to place. A
/// CDN log's run gathers hundreds of thousands of pairs: the map's entries
/// are twelve bytes, not an activity's two hundred, so its probes touch
/// less memory and it grows without moving the activities; the vector is
/// what the judging sorts anyway.
#[derive(Debug, Default)]
struct Numbered {
    place: HashMap<(u32, u32), u32>,
    activities: Vec<((u32, u32), Activity)>,
}

impl Numbered {
    /// Adds a chunk's `activity` to the one held for `key`, or keeps it
    /// (the chunks come in file order).
    fn add(&mut self, key: (u32, u32), activity: Activity) {
        let next = u32::try_from(self.activities.len()).expect("fewer than 2^32 pairs");
        match self.place.entry(key) {
            Entry::Occupied(at) => self.activities[*at.get() as usize].1.merge(activity),
            Entry::Vacant(slot) => {
                slot.insert(next);
                self.activities.push((key, activity));
            }
        }
    }
}

/// What [`Gathered::into_parts`] returns: the snapshot hosts' activities
/// with their (host number, identity number), the other hosts' with
/// (their number in the run, identity number), each pair once and in no
/// particular order; the chunks' delayed rows, and the unknown hosts.
pub(crate) type GatheredParts = (
    Vec<((u32, u32), Activity)>,
    Vec<((u32, u32), Activity)>,
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
                ChargedHost::Snapshot(id) => self.by_id.add((id, identity), activity),
                ChargedHost::Other(n) => self.by_other.add((n, identity), activity),
            }
        }
    }

    /// The activities, the delayed rows and the unknown hosts.
    pub(crate) fn into_parts(self) -> GatheredParts {
        (
            self.by_id.activities,
            self.by_other.activities,
            self.delayed,
            self.unknown_hosts,
        )
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::bots::Catalogue;
    use crate::replay::activity::Seen;

    /// Each pair is held once, in the order first met; a later chunk's
    /// activity of a pair is merged into the one held, whatever pairs
    /// came between.
    #[test]
    fn pairs_are_held_once_and_merged_in_file_order() {
        let cat = Catalogue::builtin();
        let g = cat.by_name("Googlebot").unwrap().clone();
        let agent: Arc<str> = "agent".into();
        let activity = |time: i64, requests: usize| {
            let seen = Seen {
                crawler: &g,
                time,
                resolution: 1,
                verified: None,
                robots_txt: false,
                client: "192.0.2.1",
                agent: &agent,
            };
            let mut a = Activity::new(&seen, false);
            for _ in 0..requests {
                a.add(&seen, || unreachable!("no steps kept"));
            }
            a
        };
        let mut n = Numbered::default();
        n.add((7, 1), activity(50, 2));
        n.add((3, 1), activity(40, 1));
        n.add((7, 2), activity(60, 1));
        n.add((7, 1), activity(10, 3));
        n.add((3, 1), activity(90, 4));
        let held: Vec<((u32, u32), u64, i64, i64)> = n
            .activities
            .iter()
            .map(|(k, a)| (*k, a.requests(), a.first(), a.last().0))
            .collect();
        assert_eq!(
            held,
            [
                ((7, 1), 5, 10, 50),
                ((3, 1), 5, 40, 90),
                ((7, 2), 1, 60, 60),
            ]
        );
        assert_eq!(n.place.len(), 3);
    }
}
