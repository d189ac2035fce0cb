//! What a nightly run carries over to the next (SPEC section 11): per
//! crawler identity and host the last request (for a crawl-delay gap across
//! midnight) and the last robots.txt fetch, and per engine crawler and URL
//! the 2xx fetches a later search referral may rest on (for noindex). With
//! it, N consecutive runs over one day each report the violations one run
//! over the N days would.

use std::collections::BTreeMap;

/// A 2xx fetch of a page by an engine's crawler (not an impersonator).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fetch {
    /// When, UTC nanoseconds.
    pub time: i64,
    /// Verified against published ranges; `None` when unknown.
    pub verified: Option<bool>,
    /// The client address.
    pub client: String,
    /// The request method.
    pub method: String,
    /// The response status.
    pub status: u16,
}

/// The last request of a crawler identity on a host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LastRequest {
    /// When, UTC nanoseconds.
    pub time: i64,
    /// The timestamp resolution of its log line, nanoseconds.
    pub resolution: i64,
    /// The last `/robots.txt` fetch, if any was seen.
    pub robots_fetch: Option<i64>,
}

/// One host's part of a [`State`]: identity → last request, and
/// (crawler, URL) → fetches.
pub(crate) type HostState = (
    BTreeMap<String, LastRequest>,
    BTreeMap<(String, String), Vec<Fetch>>,
);

/// A judged host and its new entries.
pub(crate) type JudgedHost = (String, HostState);

/// The carried-over state of one or more runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    /// Per (host, crawler identity).
    pub last: BTreeMap<(String, String), LastRequest>,
    /// Per (host, crawler name, URL): the fetches that a referral after the
    /// last run may still rest on, oldest first.
    pub fetches: BTreeMap<(String, String, String), Vec<Fetch>>,
}

impl State {
    /// The entries of one host: (identity → last request) and
    /// ((crawler, URL) → fetches).
    pub(crate) fn host(&self, host: &str) -> HostState {
        let last = self
            .last
            .range((host.to_string(), String::new())..)
            .take_while(|((h, _), _)| h == host)
            .map(|((_, id), l)| (id.clone(), *l))
            .collect();
        let fetches = self
            .fetches
            .range((host.to_string(), String::new(), String::new())..)
            .take_while(|((h, _, _), _)| h == host)
            .map(|((_, c, u), f)| ((c.clone(), u.clone()), f.clone()))
            .collect();
        (last, fetches)
    }

    /// The next state: `prior`'s entries of the hosts not in `judged`,
    /// and each judged host's new entries in place of its old ones (the
    /// entries replaced are never copied: a night of many hosts costs
    /// their entries once).
    pub(crate) fn next(prior: &State, judged: Vec<JudgedHost>) -> State {
        let hosts: foldhash::HashSet<&str> = judged.iter().map(|(h, _)| h.as_str()).collect();
        let mut next = State {
            last: prior
                .last
                .iter()
                .filter(|((h, _), _)| !hosts.contains(h.as_str()))
                .map(|(k, v)| (k.clone(), *v))
                .collect(),
            fetches: prior
                .fetches
                .iter()
                .filter(|((h, _, _), _)| !hosts.contains(h.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        };
        drop(hosts);
        for (host, (last, fetches)) in judged {
            for (id, l) in last {
                next.last.insert((host.clone(), id), l);
            }
            for ((c, u), f) in fetches {
                if !f.is_empty() {
                    next.fetches.insert((host.clone(), c, u), f);
                }
            }
        }
        next
    }

    /// The hosts it holds.
    pub fn hosts(&self) -> Vec<String> {
        let mut hosts: Vec<String> = self
            .last
            .keys()
            .map(|(h, _)| h.clone())
            .chain(self.fetches.keys().map(|(h, _, _)| h.clone()))
            .collect();
        hosts.sort();
        hosts.dedup();
        hosts
    }
}

/// Keeps the fetches a referral at or after `now` may still rest on: a
/// referral uses the latest fetch at or before its time minus the index
/// grace, so of the fetches at or before `now - grace` only the latest can
/// matter, and every later one can.
pub(crate) fn prune(fetches: &mut Vec<Fetch>, now: i64, grace: i64) {
    fetches.sort_by_key(|f| f.time);
    let cutoff = now.saturating_sub(grace);
    let old = fetches.partition_point(|f| f.time <= cutoff);
    if old > 1 {
        fetches.drain(..old - 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fetch(time: i64) -> Fetch {
        Fetch {
            time,
            verified: Some(true),
            client: "66.249.66.1".into(),
            method: "GET".into(),
            status: 200,
        }
    }

    #[test]
    fn pruning_keeps_what_a_later_referral_can_use() {
        let mut f: Vec<Fetch> = [5, 1, 30, 2, 25].map(fetch).to_vec();
        // now 40, grace 20: cutoff 20; 1, 2, 5 are old, 5 the latest of them.
        prune(&mut f, 40, 20);
        assert_eq!(f.iter().map(|f| f.time).collect::<Vec<_>>(), [5, 25, 30]);
        let mut g = vec![fetch(50)];
        prune(&mut g, 40, 20);
        assert_eq!(g.len(), 1);
    }

    /// Issue 14: a night of many hosts with `--state` replaced each host's
    /// entries with a pass over every host's (100,000 hosts: 38.7 s against
    /// 0.56 s without `--state`), then copied the whole previous state
    /// before replacing most of it.
    #[test]
    fn replacing_hosts_costs_their_own_entries_not_every_hosts() {
        let l = LastRequest {
            time: 1,
            resolution: 1,
            robots_fetch: None,
        };
        let n = 30_000;
        let night = |i: usize| -> JudgedHost {
            let last = BTreeMap::from([("AhrefsBot".to_string(), l)]);
            let fetches =
                BTreeMap::from([(("Googlebot".to_string(), "/".to_string()), vec![fetch(5)])]);
            (format!("h{i:05}.example"), (last, fetches))
        };
        let start = std::time::Instant::now();
        let first = State::next(&State::default(), (0..n).map(night).collect());
        // Again, each host replaced: the entries stay one per host.
        let again: Vec<JudgedHost> = (0..n)
            .map(|i| {
                let host = format!("h{i:05}.example");
                let entries = first.host(&host);
                (host, entries)
            })
            .collect();
        let second = State::next(&first, again);
        let elapsed = start.elapsed();
        assert_eq!((second.last.len(), second.fetches.len()), (n, n));
        assert_eq!(second, first);
        assert!(
            elapsed < std::time::Duration::from_secs(5),
            "{n} hosts replaced twice took {elapsed:?}"
        );
    }

    #[test]
    fn hosts_are_read_and_replaced_alone() {
        let mut s = State::default();
        let l = LastRequest {
            time: 1,
            resolution: 1,
            robots_fetch: None,
        };
        s.last.insert(("a.example".into(), "X".into()), l);
        s.last.insert(("b.example".into(), "X".into()), l);
        s.fetches.insert(
            ("b.example".into(), "Googlebot".into(), "/".into()),
            vec![fetch(1)],
        );
        let (last, fetches) = s.host("b.example");
        assert_eq!((last.len(), fetches.len()), (1, 1));
        // b.example judged again with nothing to carry: only a.example is
        // left; a fetch list that ends empty is not kept.
        let next = State::next(
            &s,
            vec![(
                "b.example".into(),
                (
                    BTreeMap::new(),
                    BTreeMap::from([(("Googlebot".to_string(), "/".to_string()), vec![])]),
                ),
            )],
        );
        assert_eq!(next.hosts(), ["a.example"]);
        assert_eq!(next.last.len(), 1);
    }
}
