//! A crawler identity's requests on one host, added up as the chunks read
//! them: what the report and the next night need (counts, first and last
//! request, robots.txt fetches, verification, a sample address), and, only
//! where a Crawl-delay can apply to the identity on that host, the
//! sequence of its requests that the crawl-delay check walks in time order.
//! Memory is then one entry per (host, identity), plus one [`Step`] per
//! request of the identities a host asks to slow down.

use std::sync::Arc;

use super::any_verified;
use crate::bots::Crawler;

/// One request of an identity that a Crawl-delay may apply to.
#[derive(Clone, Debug)]
pub(crate) struct Step {
    time: i64,
    resolution: i64,
    /// When its cached robots.txt versions all ask for a delay: the delay,
    /// and what a violation row names.
    delayed: Option<Box<Delayed>>,
}

/// What a crawl-delay violation row names of a request that must keep a
/// delay.
#[derive(Clone, Debug)]
pub(crate) struct Delayed {
    /// The smallest Crawl-delay of the cached versions, seconds.
    pub(crate) seconds: f64,
    pub(crate) crawler: Arc<Crawler>,
    pub(crate) verified: Option<bool>,
    /// Shared with the chunk's other rows ([`super::disallow::Rules::shared`]).
    pub(crate) client: Arc<str>,
    /// Shared as `client` is.
    pub(crate) method: Arc<str>,
    pub(crate) url: Box<str>,
    pub(crate) status: u16,
}

impl Step {
    /// A request at `time` (timestamps of `resolution`), and what it must
    /// keep to, if anything.
    pub(crate) fn new(time: i64, resolution: i64, delayed: Option<Box<Delayed>>) -> Step {
        Step {
            time,
            resolution,
            delayed,
        }
    }

    /// The request's time.
    pub(crate) fn time(&self) -> i64 {
        self.time
    }

    /// Its timestamps' resolution.
    pub(crate) fn resolution(&self) -> i64 {
        self.resolution
    }

    /// The delay it must keep, when it must keep one.
    pub(crate) fn delayed(&self) -> Option<&Delayed> {
        self.delayed.as_deref()
    }
}

/// One request as [`Activity::add`] counts it.
pub(crate) struct Seen<'a> {
    pub(crate) crawler: &'a Arc<Crawler>,
    pub(crate) time: i64,
    pub(crate) resolution: i64,
    pub(crate) verified: Option<bool>,
    pub(crate) robots_txt: bool,
    pub(crate) client: &'a str,
}

/// A crawler identity's requests on one host.
#[derive(Clone, Debug)]
pub(crate) struct Activity {
    /// The crawler of the first request (time, then file order).
    crawler: Arc<Crawler>,
    /// The first request's verification.
    first_verified: Option<bool>,
    first: i64,
    /// The last request (time, then file order): time and resolution.
    last: (i64, i64),
    requests: u64,
    robots_fetches: u64,
    last_robots: Option<i64>,
    /// Any request verified ([`any_verified`]).
    verified: Option<bool>,
    /// The first request with a client address: its time and address.
    sample: Option<(i64, Box<str>)>,
    /// Every request in file order, when a Crawl-delay may apply.
    steps: Option<Vec<Step>>,
}

impl Activity {
    /// The activity of one request; `steps`: keep the requests for the
    /// crawl-delay check.
    pub(crate) fn new(seen: &Seen<'_>, steps: bool) -> Activity {
        Activity {
            crawler: seen.crawler.clone(),
            first_verified: seen.verified,
            first: seen.time,
            last: (seen.time, seen.resolution),
            requests: 0,
            robots_fetches: 0,
            last_robots: None,
            verified: seen.verified,
            sample: None,
            steps: steps.then(Vec::new),
        }
    }

    /// Counts a request that comes after the ones counted (file order),
    /// with its step when the requests are kept.
    pub(crate) fn add(&mut self, seen: &Seen<'_>, step: impl FnOnce() -> Step) {
        let t = seen.time;
        if t < self.first {
            self.first = t;
            self.first_verified = seen.verified;
            if !Arc::ptr_eq(&self.crawler, seen.crawler) {
                self.crawler = seen.crawler.clone();
            }
        }
        if t >= self.last.0 {
            self.last = (t, seen.resolution);
        }
        self.requests += 1;
        if seen.robots_txt {
            self.robots_fetches += 1;
            self.last_robots = self.last_robots.max(Some(t));
        }
        self.verified = any_verified(self.verified, seen.verified);
        if !seen.client.is_empty() && self.sample.as_ref().is_none_or(|(s, _)| t < *s) {
            self.sample = Some((t, seen.client.into()));
        }
        if let Some(steps) = &mut self.steps {
            steps.push(step());
        }
    }

    /// Adds the activity of requests that come after these in the files
    /// (a later chunk's).
    pub(crate) fn merge(&mut self, later: Activity) {
        if later.first < self.first {
            self.first = later.first;
            self.first_verified = later.first_verified;
            self.crawler = later.crawler;
        }
        if later.last.0 >= self.last.0 {
            self.last = later.last;
        }
        self.requests += later.requests;
        self.robots_fetches += later.robots_fetches;
        self.last_robots = self.last_robots.max(later.last_robots);
        self.verified = any_verified(self.verified, later.verified);
        if let Some((t, client)) = later.sample {
            if self.sample.as_ref().is_none_or(|(s, _)| t < *s) {
                self.sample = Some((t, client));
            }
        }
        match (&mut self.steps, later.steps) {
            (Some(mine), Some(theirs)) => mine.extend(theirs),
            (mine @ None, theirs) => *mine = theirs,
            (Some(_), None) => {}
        }
    }

    /// Are the requests kept for the crawl-delay check?
    pub(crate) fn keeps_steps(&self) -> bool {
        self.steps.is_some()
    }

    /// The crawler of the first request.
    pub(crate) fn crawler(&self) -> &Arc<Crawler> {
        &self.crawler
    }

    /// The first request's verification.
    pub(crate) fn first_verified(&self) -> Option<bool> {
        self.first_verified
    }

    /// The first request's time.
    pub(crate) fn first(&self) -> i64 {
        self.first
    }

    /// The last request's time and resolution.
    pub(crate) fn last(&self) -> (i64, i64) {
        self.last
    }

    /// How many requests.
    pub(crate) fn requests(&self) -> u64 {
        self.requests
    }

    /// How many of them fetched `/robots.txt`.
    pub(crate) fn robots_fetches(&self) -> u64 {
        self.robots_fetches
    }

    /// The last `/robots.txt` fetch.
    pub(crate) fn last_robots(&self) -> Option<i64> {
        self.last_robots
    }

    /// Any request verified.
    pub(crate) fn verified(&self) -> Option<bool> {
        self.verified
    }

    /// The address of the first request that has one.
    pub(crate) fn sample_ip(&self) -> &str {
        self.sample.as_ref().map_or("", |(_, c)| c)
    }

    /// The requests in time order (a stable sort: file order among equal
    /// times), when they were kept for the crawl-delay check.
    pub(crate) fn take_steps(&mut self) -> Option<Vec<Step>> {
        let mut steps = self.steps.take()?;
        // Stable: requests of one time keep their file order.
        rayon::slice::ParallelSliceMut::par_sort_by_key(&mut steps[..], Step::time);
        Some(steps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::Catalogue;

    fn seen<'a>(crawler: &'a Arc<Crawler>, time: i64, client: &'a str, robots: bool) -> Seen<'a> {
        Seen {
            crawler,
            time,
            resolution: 1,
            verified: None,
            robots_txt: robots,
            client,
        }
    }

    #[test]
    fn chunks_add_up_as_one_pass_would() {
        let cat = Catalogue::builtin();
        let g = cat.by_name("Googlebot").unwrap().clone();
        let requests = [
            (5, "", false),
            (3, "a", true),
            (3, "b", false),
            (9, "c", true),
            (9, "d", false),
        ];
        // One pass.
        let mut one = Activity::new(&seen(&g, 5, "", false), true);
        for (t, c, r) in requests {
            one.add(&seen(&g, t, c, r), || Step::new(t, 1, None));
        }
        // Two chunks: the first two requests, then the rest.
        let mut a = Activity::new(&seen(&g, 5, "", false), true);
        let mut b = Activity::new(&seen(&g, 3, "b", false), true);
        for (i, (t, c, r)) in requests.into_iter().enumerate() {
            let part = if i < 2 { &mut a } else { &mut b };
            part.add(&seen(&g, t, c, r), || Step::new(t, 1, None));
        }
        a.merge(b);
        for x in [&mut one, &mut a] {
            assert_eq!(x.requests(), 5);
            assert_eq!(x.robots_fetches(), 2);
            assert_eq!((x.first(), x.last()), (3, (9, 1)));
            assert_eq!(x.last_robots(), Some(9));
            assert_eq!(x.sample_ip(), "a", "the first of the earliest time");
            let times: Vec<i64> = x.take_steps().unwrap().iter().map(Step::time).collect();
            assert_eq!(times, [3, 3, 5, 9, 9]);
        }
    }
}
