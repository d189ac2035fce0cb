//! A crawler identity's requests on one host, added up as the chunks read
//! them: what the report and the next night need (counts, first and last
//! request, robots.txt fetches, verification, a sample address), and, only
//! where a Crawl-delay can apply to the identity on that host, the
//! sequence of its requests that the crawl-delay check walks in time order.
//! Memory is then one entry per (host, identity), plus one [`Step`] per
//! request of the identities a host asks to slow down.

use std::sync::Arc;

use foldhash::{HashMap, HashMapExt};

use super::any_verified;
use super::wire::{Reader, WireError, Writer};
use crate::bots::Crawler;

/// One request of an identity that a Crawl-delay may apply to (24 bytes).
#[derive(Clone, Debug)]
pub(crate) struct Step {
    time: i64,
    resolution: i64,
    /// When its cached robots.txt versions all ask for a delay: where the
    /// row a violation names is, as its chunk's number (high 32 bits) and
    /// its row in that chunk's [`DelayedRows`] (low 32 bits); else
    /// [`NOT_DELAYED`].
    delayed: u64,
}

/// [`Step::delayed`] of a request that need not keep a delay.
const NOT_DELAYED: u64 = u64::MAX;

impl Step {
    /// A request at `time` (timestamps of `resolution`), and the row of
    /// its chunk's [`DelayedRows`] when it must keep a delay.
    pub(crate) fn new(time: i64, resolution: i64, delayed: Option<u32>) -> Step {
        Step {
            time,
            resolution,
            delayed: delayed.map_or(NOT_DELAYED, u64::from),
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

    /// The delay it must keep and what a violation row names, read from
    /// the chunks' rows, when it must keep one.
    pub(crate) fn delayed<'r>(&self, chunks: &'r [DelayedRows]) -> Option<Delayed<'r>> {
        (self.delayed != NOT_DELAYED).then(|| {
            chunks[(self.delayed >> 32) as usize].get((self.delayed & u64::from(u32::MAX)) as usize)
        })
    }

    /// Tells the step which chunk read it (the collector does not know).
    fn in_chunk(&mut self, chunk: u32) {
        if self.delayed != NOT_DELAYED {
            self.delayed = (u64::from(chunk) << 32) | (self.delayed & u64::from(u32::MAX));
        }
    }
}

/// One delayed request's row, 40 bytes: the delay, and numbers of its
/// chunk's crawlers and texts.
#[derive(Clone, Copy, Debug)]
struct DelayedRow {
    seconds: f64,
    /// Where its URL ends in the arena (it starts where the previous
    /// row's ends).
    url_end: u32,
    crawler: u32,
    client: u32,
    method: u32,
    agent: u32,
    status: u16,
    verified: Option<bool>,
}

/// What crawl-delay violation rows name of one chunk's requests that must
/// keep a delay: per request 40 bytes and its URL in one arena, each
/// crawler, address, method and User-Agent once (found by the address of its shared
/// `Arc`).
#[derive(Debug, Default)]
pub(crate) struct DelayedRows {
    rows: Vec<DelayedRow>,
    urls: String,
    crawlers: Vec<Arc<Crawler>>,
    texts: Vec<Arc<str>>,
    /// An `Arc`'s address to its number in `crawlers` or `texts`.
    ids: HashMap<usize, u32>,
}

/// A delayed request's row, read from its chunk's [`DelayedRows`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Delayed<'r> {
    rows: &'r DelayedRows,
    row: usize,
}

impl DelayedRows {
    /// Adds a row; `None` when the chunk holds as many as its numbers can
    /// count (the request is then judged without a delay, which no real
    /// chunk reaches: a chunk is megabytes, the limit billions).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push(
        &mut self,
        seconds: f64,
        crawler: &Arc<Crawler>,
        verified: Option<bool>,
        client: &Arc<str>,
        method: &Arc<str>,
        agent: &Arc<str>,
        url: &str,
        status: u16,
    ) -> Option<u32> {
        let row = u32::try_from(self.rows.len()).ok()?;
        let url_end = u32::try_from(self.urls.len() + url.len()).ok()?;
        let DelayedRows {
            crawlers,
            texts,
            ids,
            ..
        } = self;
        let mut text = |t: &Arc<str>| {
            *ids.entry(Arc::as_ptr(t).cast::<u8>() as usize)
                .or_insert_with(|| {
                    texts.push(t.clone());
                    (texts.len() - 1) as u32
                })
        };
        let (client, method, agent) = (text(client), text(method), text(agent));
        let crawler = *ids.entry(Arc::as_ptr(crawler) as usize).or_insert_with(|| {
            crawlers.push(crawler.clone());
            (crawlers.len() - 1) as u32
        });
        self.urls.push_str(url);
        self.rows.push(DelayedRow {
            seconds,
            url_end,
            crawler,
            client,
            method,
            agent,
            status,
            verified,
        });
        Some(row)
    }

    /// How many rows it holds.
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    /// Its rows and their URLs' bytes: what the next chunk on the same
    /// worker reserves ([`DelayedRows::reserve`]).
    pub(crate) fn size(&self) -> (usize, usize) {
        (self.rows.len(), self.urls.len())
    }

    /// Room for `rows` rows whose URLs take `url_bytes` bytes, reserved at
    /// once rather than grown by doubling (each doubling copies the rows).
    pub(crate) fn reserve(&mut self, (rows, url_bytes): (usize, usize)) {
        self.rows.reserve(rows);
        self.urls.reserve(url_bytes);
    }

    /// The chunk is read: the address map goes, the vectors are trimmed.
    pub(crate) fn seal(&mut self) {
        self.ids = HashMap::new();
        self.rows.shrink_to_fit();
        self.urls.shrink_to_fit();
    }

    fn get(&self, row: usize) -> Delayed<'_> {
        Delayed { rows: self, row }
    }
}

impl<'r> Delayed<'r> {
    fn row(&self) -> &'r DelayedRow {
        &self.rows.rows[self.row]
    }

    /// The smallest Crawl-delay of the cached versions, seconds.
    pub(crate) fn seconds(&self) -> f64 {
        self.row().seconds
    }

    /// The crawler the request was identified as.
    pub(crate) fn crawler(&self) -> &'r Arc<Crawler> {
        &self.rows.crawlers[self.row().crawler as usize]
    }

    /// Its verification.
    pub(crate) fn verified(&self) -> Option<bool> {
        self.row().verified
    }

    /// The client address, shared with the chunk's other rows.
    pub(crate) fn client(&self) -> &'r Arc<str> {
        &self.rows.texts[self.row().client as usize]
    }

    /// The method, shared as the client is.
    pub(crate) fn method(&self) -> &'r Arc<str> {
        &self.rows.texts[self.row().method as usize]
    }

    /// The User-Agent, shared as the client is.
    pub(crate) fn user_agent(&self) -> &'r Arc<str> {
        &self.rows.texts[self.row().agent as usize]
    }

    /// The URL as logged.
    pub(crate) fn url(&self) -> &'r str {
        let start = match self.row {
            0 => 0,
            i => self.rows.rows[i - 1].url_end as usize,
        };
        &self.rows.urls[start..self.row().url_end as usize]
    }

    /// The response status.
    pub(crate) fn status(&self) -> u16 {
        self.row().status
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
    /// The User-Agent's text, shared (the sample holds a reference).
    pub(crate) agent: &'a Arc<str>,
}

/// The first request with a client address of an [`Activity`]: its
/// time, its address (held in place) and its User-Agent (a shared text).
/// A CDN log's chunks each start thousands of activities: a sample is
/// then no allocation, and merging chunks frees none.
#[derive(Clone, Debug)]
struct Sample {
    time: i64,
    client: Address,
    agent: Arc<str>,
}

/// A client address as logged: held in place up to [`Address::INLINE`]
/// bytes (any IPv4 or IPv6 address, an IPv4-mapped one included), on the
/// heap beyond (a host name a server logged instead).
#[derive(Clone, Debug)]
enum Address {
    Inline(u8, [u8; Address::INLINE]),
    Other(Box<str>),
}

impl Address {
    /// The longest address held in place.
    const INLINE: usize = 45;

    fn new(text: &str) -> Address {
        let mut bytes = [0; Address::INLINE];
        match bytes.get_mut(..text.len()) {
            Some(place) => {
                place.copy_from_slice(text.as_bytes());
                Address::Inline(text.len() as u8, bytes)
            }
            None => Address::Other(text.into()),
        }
    }

    fn as_str(&self) -> &str {
        match self {
            Address::Inline(n, bytes) => {
                std::str::from_utf8(&bytes[..usize::from(*n)]).expect("made from a text")
            }
            Address::Other(text) => text,
        }
    }
}

/// A crawler identity's requests on one host.
#[derive(Clone, Debug)]
pub(crate) struct Activity {
    /// The crawler of the first request (time, then file order).
    crawler: Arc<Crawler>,
    first: i64,
    /// The last request (time, then file order): time and resolution.
    last: (i64, i64),
    requests: u64,
    robots_fetches: u64,
    last_robots: Option<i64>,
    /// Any request verified ([`any_verified`]).
    verified: Option<bool>,
    /// The first request with a client address (time, then file order).
    sample: Option<Sample>,
    /// Requests on the day met first: (the day's number since 1970,
    /// requests); a chunk's requests are mostly of one day.
    day: (i32, u64),
    /// Requests on other days, in the order met (empty, so never
    /// allocated, for most activities).
    days: Vec<(i32, u64)>,
    /// Every request in file order, when a Crawl-delay may apply.
    steps: Option<Vec<Step>>,
}

impl Activity {
    /// The activity of one request; `steps`: keep the requests for the
    /// crawl-delay check.
    pub(crate) fn new(seen: &Seen<'_>, steps: bool) -> Activity {
        Activity {
            crawler: seen.crawler.clone(),
            first: seen.time,
            last: (seen.time, seen.resolution),
            requests: 0,
            robots_fetches: 0,
            last_robots: None,
            verified: seen.verified,
            sample: None,
            day: (day_of(seen.time), 0),
            days: Vec::new(),
            steps: steps.then(Vec::new),
        }
    }

    /// Counts a request that comes after the ones counted (file order),
    /// with its step when the requests are kept.
    pub(crate) fn add(&mut self, seen: &Seen<'_>, step: impl FnOnce() -> Step) {
        let t = seen.time;
        if t < self.first {
            self.first = t;
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
        if !seen.client.is_empty() && self.sample.as_ref().is_none_or(|s| t < s.time) {
            self.sample = Some(Sample {
                time: t,
                client: Address::new(seen.client),
                agent: seen.agent.clone(),
            });
        }
        self.add_day(day_of(t), 1);
        if let Some(steps) = &mut self.steps {
            steps.push(step());
        }
    }

    /// Adds the activity of requests that come after these in the files
    /// (a later chunk's).
    pub(crate) fn merge(&mut self, later: Activity) {
        if later.first < self.first {
            self.first = later.first;
            self.crawler = later.crawler;
        }
        if later.last.0 >= self.last.0 {
            self.last = later.last;
        }
        self.requests += later.requests;
        self.robots_fetches += later.robots_fetches;
        self.last_robots = self.last_robots.max(later.last_robots);
        self.verified = any_verified(self.verified, later.verified);
        if let Some(sample) = later.sample {
            if self.sample.as_ref().is_none_or(|s| sample.time < s.time) {
                self.sample = Some(sample);
            }
        }
        if later.day.1 > 0 {
            self.add_day(later.day.0, later.day.1);
        }
        for (day, n) in later.days {
            self.add_day(day, n);
        }
        match (&mut self.steps, later.steps) {
            (Some(mine), Some(theirs)) => mine.extend(theirs),
            (mine @ None, theirs) => *mine = theirs,
            (Some(_), None) => {}
        }
    }

    /// Tells its steps which chunk read them.
    pub(crate) fn in_chunk(&mut self, chunk: u32) {
        for step in self.steps.iter_mut().flatten() {
            step.in_chunk(chunk);
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
        self.sample.as_ref().map_or("", |s| s.client.as_str())
    }

    /// The User-Agent of the first request that has an address (empty
    /// when none has), shared: the copy the collector kept.
    pub(crate) fn shared_agent(&self) -> Arc<str> {
        self.sample
            .as_ref()
            .map_or_else(crate::text::empty, |s| s.agent.clone())
    }

    /// Adds `n` requests on `day`.
    fn add_day(&mut self, day: i32, n: u64) {
        if self.day.0 == day {
            self.day.1 += n;
        } else if let Some((_, m)) = self.days.iter_mut().find(|(d, _)| *d == day) {
            *m += n;
        } else {
            self.days.push((day, n));
        }
    }

    /// Requests per UTC day: (days since 1970-01-01, requests), by day.
    pub(crate) fn days(&self) -> Vec<(i64, u64)> {
        let mut days: Vec<(i64, u64)> = std::iter::once(self.day)
            .chain(self.days.iter().copied())
            .filter(|&(_, n)| n > 0)
            .map(|(d, n)| (i64::from(d), n))
            .collect();
        days.sort_unstable();
        days
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

/// The chunk's parts as bytes for another process (`super::wire`).
impl Step {
    fn write(&self, w: &mut Writer<'_>) {
        w.i64(self.time);
        w.i64(self.resolution);
        // Within its chunk: the row's number (the chunk is told again).
        w.opt_u32((self.delayed != NOT_DELAYED).then_some(self.delayed as u32));
    }

    fn read(r: &mut Reader<'_, '_>, rows: usize) -> Result<Step, WireError> {
        let (time, resolution) = (r.i64()?, r.i64()?);
        let delayed = r.opt_u32()?;
        if delayed.is_some_and(|row| row as usize >= rows) {
            return Err(WireError(
                "a step naming a delayed row that is not there".into(),
            ));
        }
        Ok(Step::new(time, resolution, delayed))
    }
}

impl DelayedRows {
    /// Writes the rows (a sealed chunk's).
    pub(crate) fn write(&self, w: &mut Writer<'_>) {
        w.usize(self.rows.len());
        for i in 0..self.rows.len() {
            let d = self.get(i);
            w.f64(d.seconds());
            w.crawler(d.crawler());
            w.opt_bool(d.verified());
            w.text(d.client());
            w.text(d.method());
            w.text(d.user_agent());
            w.bytes(d.url().as_bytes());
            w.u64(u64::from(d.status()));
        }
    }

    /// Reads what [`DelayedRows::write`] wrote, in the same row order.
    pub(crate) fn read(r: &mut Reader<'_, '_>) -> Result<DelayedRows, WireError> {
        let n = r.count(12)?;
        let mut rows = DelayedRows::default();
        for _ in 0..n {
            let seconds = r.f64()?;
            let crawler = r.crawler()?;
            let verified = r.opt_bool()?;
            let (client, method, agent) = (r.text()?, r.text()?, r.text()?);
            let url = r.string()?;
            let status = r.u16()?;
            rows.push(
                seconds, &crawler, verified, &client, &method, &agent, url, status,
            )
            .ok_or_else(|| WireError("more delayed rows than a chunk holds".into()))?;
        }
        rows.seal();
        Ok(rows)
    }
}

impl Activity {
    /// Writes the activity.
    pub(crate) fn write(&self, w: &mut Writer<'_>) {
        w.crawler(&self.crawler);
        w.i64(self.first);
        w.i64(self.last.0);
        w.i64(self.last.1);
        w.u64(self.requests);
        w.u64(self.robots_fetches);
        w.opt_i64(self.last_robots);
        w.opt_bool(self.verified);
        match &self.sample {
            // One text, the address then the User-Agent, and where the
            // address ends in it.
            Some(sample) => {
                w.bool(true);
                w.i64(sample.time);
                let client = sample.client.as_str();
                w.joined(&[client.as_bytes(), sample.agent.as_bytes()]);
                w.usize(client.len());
            }
            None => w.bool(false),
        }
        w.i64(i64::from(self.day.0));
        w.u64(self.day.1);
        w.usize(self.days.len());
        for (d, n) in &self.days {
            w.i64(i64::from(*d));
            w.u64(*n);
        }
        match &self.steps {
            Some(steps) => {
                w.bool(true);
                w.usize(steps.len());
                for s in steps {
                    s.write(w);
                }
            }
            None => w.bool(false),
        }
    }

    /// Reads what [`Activity::write`] wrote; its steps name rows of a
    /// chunk's `rows` delayed rows.
    pub(crate) fn read(r: &mut Reader<'_, '_>, rows: usize) -> Result<Activity, WireError> {
        let crawler = r.crawler()?;
        let first = r.i64()?;
        let last = (r.i64()?, r.i64()?);
        let requests = r.u64()?;
        let robots_fetches = r.u64()?;
        let last_robots = r.opt_i64()?;
        let verified = r.opt_bool()?;
        let sample = if r.bool()? {
            let t = r.i64()?;
            let text = r.string()?;
            let at = r.u64()? as usize;
            if !text.is_char_boundary(at) {
                return Err(WireError("a sample cut inside a character".into()));
            }
            Some(Sample {
                time: t,
                client: Address::new(&text[..at]),
                agent: text[at..].into(),
            })
        } else {
            None
        };
        let day_of = |d: i64| i32::try_from(d).map_err(|_| WireError("a day out of range".into()));
        let day = (day_of(r.i64()?)?, r.u64()?);
        let n = r.count(9)?;
        let mut days = Vec::with_capacity(n);
        for _ in 0..n {
            days.push((day_of(r.i64()?)?, r.u64()?));
        }
        let steps = if r.bool()? {
            let n = r.count(17)?;
            let mut steps = Vec::with_capacity(n);
            for _ in 0..n {
                steps.push(Step::read(r, rows)?);
            }
            Some(steps)
        } else {
            None
        };
        Ok(Activity {
            crawler,
            first,
            last,
            requests,
            robots_fetches,
            last_robots,
            verified,
            sample,
            day,
            days,
            steps,
        })
    }
}

/// The UTC day of a time, as days since 1970 (saturating: a time is
/// within ±292 years of 1970).
fn day_of(t: i64) -> i32 {
    i32::try_from(t.div_euclid(crate::time::DAY)).unwrap_or(i32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::Catalogue;

    fn seen<'a>(
        crawler: &'a Arc<Crawler>,
        agent: &'a Arc<str>,
        time: i64,
        client: &'a str,
        robots: bool,
    ) -> Seen<'a> {
        Seen {
            crawler,
            time,
            resolution: 1,
            verified: None,
            robots_txt: robots,
            client,
            agent,
        }
    }

    fn add(activity: &mut Activity, seen: &Seen<'_>) {
        activity.add(seen, || Step::new(seen.time, 1, None));
    }

    #[test]
    fn addresses_are_held_in_place_or_on_the_heap_as_they_were_logged() {
        let longest = "0000:0000:0000:0000:0000:ffff:255.255.255.255";
        let host = "crawl-66-249-66-1.googlebot.com.a-name-longer-than-any-address";
        for text in ["", "1.2.3.4", "2001:db8::1", longest, host] {
            let address = Address::new(text);
            assert_eq!(address.as_str(), text);
            let inline = matches!(address, Address::Inline(..));
            assert_eq!(inline, text != host, "{text}");
        }
        assert_eq!(longest.len(), Address::INLINE);
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
        let agent: Arc<str> = "agent".into();
        let seen = |t, c, r| seen(&g, &agent, t, c, r);
        // One pass.
        let mut one = Activity::new(&seen(5, "", false), true);
        for (t, c, r) in requests {
            add(&mut one, &seen(t, c, r));
        }
        // Two chunks: the first two requests, then the rest.
        let mut a = Activity::new(&seen(5, "", false), true);
        let mut b = Activity::new(&seen(3, "b", false), true);
        for (i, (t, c, r)) in requests.into_iter().enumerate() {
            let part = if i < 2 { &mut a } else { &mut b };
            add(part, &seen(t, c, r));
        }
        a.merge(b);
        for x in [&mut one, &mut a] {
            assert_eq!(x.requests(), 5);
            assert_eq!(x.robots_fetches(), 2);
            assert_eq!((x.first(), x.last()), (3, (9, 1)));
            assert_eq!(x.last_robots(), Some(9));
            assert_eq!(x.sample_ip(), "a", "the first of the earliest time");
            assert_eq!(&*x.shared_agent(), "agent");
            let times: Vec<i64> = x.take_steps().unwrap().iter().map(Step::time).collect();
            assert_eq!(times, [3, 3, 5, 9, 9]);
        }
    }
}
