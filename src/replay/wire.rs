//! What a chunk kept ([`super::kept::Kept`]), as bytes that another process
//! reads back: the form in which `distributed::ingest` hands a log file's
//! chunks, split by shard, to the tasks that judge each shard.
//!
//! The encoding is private to one version of crawlaudit (the ingest and
//! judge tasks of one job run the same wheel): a magic and version byte,
//! then the parts in a fixed order. Integers are LEB128 varints (times and
//! delays fixed 8 bytes), text is a length and UTF-8 bytes, and each
//! distinct text is written once and then named by its number. A crawler
//! is written as a User-Agent it was identified from, and identified again
//! on reading (the catalogue's answer for a User-Agent is a function of its
//! bytes); a crawler identity is written by name. Reading checks every
//! length and number against what was read, so corrupt bytes are an error,
//! never a panic or a huge allocation.

use std::sync::Arc;

use foldhash::{HashMap, HashMapExt};

use super::Context;
use crate::bots::Crawler;

/// The first bytes of an encoded chunk.
const MAGIC: &[u8; 4] = b"CAk2";

/// Bytes that are not a chunk this version wrote.
#[derive(Debug, thiserror::Error)]
#[error("not a chunk of this crawlaudit's ingest: {0}")]
pub struct WireError(pub(crate) String);

/// Writes the parts of a chunk.
pub(crate) struct Writer<'a> {
    buf: Vec<u8>,
    texts: HashMap<Arc<str>, u32>,
    crawlers: HashMap<usize, u32>,
    /// A User-Agent each crawler met was identified from, by the address
    /// of its `Arc`.
    agents: &'a HashMap<usize, Box<[u8]>>,
}

impl<'a> Writer<'a> {
    /// A writer whose crawlers are written as the User-Agents of `agents`.
    pub(crate) fn new(agents: &'a HashMap<usize, Box<[u8]>>) -> Self {
        let mut buf = Vec::with_capacity(4096);
        buf.extend_from_slice(MAGIC);
        Writer {
            buf,
            texts: HashMap::new(),
            crawlers: HashMap::new(),
            agents,
        }
    }

    /// The bytes written.
    pub(crate) fn finish(self) -> Vec<u8> {
        self.buf
    }

    pub(crate) fn u64(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    pub(crate) fn usize(&mut self, v: usize) {
        self.u64(v as u64);
    }

    pub(crate) fn i64(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    pub(crate) fn f64(&mut self, v: f64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    pub(crate) fn opt_i64(&mut self, v: Option<i64>) {
        match v {
            Some(v) => {
                self.buf.push(1);
                self.i64(v);
            }
            None => self.buf.push(0),
        }
    }

    pub(crate) fn opt_u32(&mut self, v: Option<u32>) {
        match v {
            Some(v) => self.u64(u64::from(v) + 1),
            None => self.u64(0),
        }
    }

    pub(crate) fn opt_bool(&mut self, v: Option<bool>) {
        self.buf.push(match v {
            None => 0,
            Some(false) => 1,
            Some(true) => 2,
        });
    }

    pub(crate) fn bool(&mut self, v: bool) {
        self.buf.push(u8::from(v));
    }

    /// Bytes, once (a URL, a sample).
    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.joined(&[b]);
    }

    /// `parts` one after the other, written as [`Writer::bytes`] writes
    /// them joined (without joining them first).
    pub(crate) fn joined(&mut self, parts: &[&[u8]]) {
        self.usize(parts.iter().map(|p| p.len()).sum());
        for part in parts {
            self.buf.extend_from_slice(part);
        }
    }

    /// A text written once, then by number.
    pub(crate) fn text(&mut self, t: &str) {
        if let Some(&n) = self.texts.get(t) {
            self.u64(u64::from(n) + 1);
            return;
        }
        let n = u32::try_from(self.texts.len()).expect("fewer than 2^32 texts");
        self.texts.insert(t.into(), n);
        self.u64(0);
        self.bytes(t.as_bytes());
    }

    /// A text that may be missing: a flag, then the text.
    pub(crate) fn opt_text(&mut self, t: Option<&str>) {
        self.bool(t.is_some());
        if let Some(t) = t {
            self.text(t);
        }
    }

    /// A crawler, written once as a User-Agent it was identified from.
    pub(crate) fn crawler(&mut self, c: &Arc<Crawler>) {
        let address = Arc::as_ptr(c) as usize;
        if let Some(&n) = self.crawlers.get(&address) {
            self.u64(u64::from(n) + 1);
            return;
        }
        let n = u32::try_from(self.crawlers.len()).expect("fewer than 2^32 crawlers");
        self.crawlers.insert(address, n);
        self.u64(0);
        let agent = self
            .agents
            .get(&address)
            .expect("every crawler a chunk keeps was met by it");
        self.bytes(agent);
    }
}

/// Reads the parts of a chunk.
pub(crate) struct Reader<'b, 'c> {
    bytes: &'b [u8],
    at: usize,
    texts: Vec<Arc<str>>,
    crawlers: Vec<Arc<Crawler>>,
    ctx: &'c Context,
}

impl<'b, 'c> Reader<'b, 'c> {
    /// A reader of `bytes`, its crawlers identified by `ctx`.
    pub(crate) fn new(bytes: &'b [u8], ctx: &'c Context) -> Result<Self, WireError> {
        if bytes.get(..MAGIC.len()) != Some(&MAGIC[..]) {
            return Err(WireError(
                "it does not start with this version's magic".into(),
            ));
        }
        Ok(Reader {
            bytes,
            at: MAGIC.len(),
            texts: Vec::new(),
            crawlers: Vec::new(),
            ctx,
        })
    }

    /// The context the chunk is read into.
    pub(crate) fn ctx(&self) -> &'c Context {
        self.ctx
    }

    fn fail<T>(&self, what: &str) -> Result<T, WireError> {
        Err(WireError(format!("{what} at byte {}", self.at)))
    }

    /// Whether every byte was read.
    pub(crate) fn done(&self) -> Result<(), WireError> {
        if self.at == self.bytes.len() {
            Ok(())
        } else {
            self.fail("bytes after the end")
        }
    }

    fn take(&mut self, n: usize) -> Result<&'b [u8], WireError> {
        match self.bytes.get(self.at..self.at.saturating_add(n)) {
            Some(b) if self.at.checked_add(n).is_some() => {
                self.at += n;
                Ok(b)
            }
            _ => self.fail("truncated"),
        }
    }

    pub(crate) fn u64(&mut self) -> Result<u64, WireError> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = self.take(1)?[0];
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        self.fail("a number too long")
    }

    pub(crate) fn u16(&mut self) -> Result<u16, WireError> {
        let v = self.u64()?;
        u16::try_from(v).or_else(|_| self.fail("a number out of range"))
    }

    /// A count of items of at least `min_bytes` bytes each: never more
    /// than the bytes left could hold.
    pub(crate) fn count(&mut self, min_bytes: usize) -> Result<usize, WireError> {
        let n = self.u64()?;
        let left = (self.bytes.len() - self.at) as u64;
        if n.saturating_mul(min_bytes.max(1) as u64) > left {
            return self.fail("a count larger than the bytes left");
        }
        Ok(n as usize)
    }

    pub(crate) fn i64(&mut self) -> Result<i64, WireError> {
        let b = self.take(8)?;
        Ok(i64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    pub(crate) fn f64(&mut self) -> Result<f64, WireError> {
        let b = self.take(8)?;
        Ok(f64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    pub(crate) fn opt_i64(&mut self) -> Result<Option<i64>, WireError> {
        match self.take(1)?[0] {
            0 => Ok(None),
            1 => Ok(Some(self.i64()?)),
            _ => self.fail("a bad option"),
        }
    }

    pub(crate) fn opt_u32(&mut self) -> Result<Option<u32>, WireError> {
        match self.u64()? {
            0 => Ok(None),
            v => u32::try_from(v - 1)
                .map(Some)
                .or_else(|_| self.fail("a number out of range")),
        }
    }

    pub(crate) fn opt_bool(&mut self) -> Result<Option<bool>, WireError> {
        match self.take(1)?[0] {
            0 => Ok(None),
            1 => Ok(Some(false)),
            2 => Ok(Some(true)),
            _ => self.fail("a bad verification"),
        }
    }

    pub(crate) fn bool(&mut self) -> Result<bool, WireError> {
        match self.take(1)?[0] {
            0 => Ok(false),
            1 => Ok(true),
            _ => self.fail("a bad flag"),
        }
    }

    pub(crate) fn bytes(&mut self) -> Result<&'b [u8], WireError> {
        let n = self.count(1)?;
        self.take(n)
    }

    pub(crate) fn string(&mut self) -> Result<&'b str, WireError> {
        let b = self.bytes()?;
        std::str::from_utf8(b).or_else(|_| self.fail("text that is not UTF-8"))
    }

    /// A text, shared with every other mention of it.
    pub(crate) fn text(&mut self) -> Result<Arc<str>, WireError> {
        match self.u64()? {
            0 => {
                let t: Arc<str> = self.string()?.into();
                self.texts.push(t.clone());
                Ok(t)
            }
            n => match self.texts.get((n - 1) as usize) {
                Some(t) => Ok(t.clone()),
                None => self.fail("a text not yet read"),
            },
        }
    }

    /// A text that may be missing, as [`Writer::opt_text`] wrote it.
    pub(crate) fn opt_text(&mut self) -> Result<Option<Arc<str>>, WireError> {
        if self.bool()? {
            Ok(Some(self.text()?))
        } else {
            Ok(None)
        }
    }

    /// A crawler, identified again from its User-Agent.
    pub(crate) fn crawler(&mut self) -> Result<Arc<Crawler>, WireError> {
        match self.u64()? {
            0 => {
                let agent = self.bytes()?;
                let Some(c) = self.ctx.identify_shared(agent) else {
                    return self
                        .fail("a User-Agent that names no crawler here (another catalogue?)");
                };
                self.crawlers.push(c.clone());
                Ok(c)
            }
            n => match self.crawlers.get((n - 1) as usize) {
                Some(c) => Ok(c.clone()),
                None => self.fail("a crawler not yet read"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::{Catalogue, IpRanges};
    use crate::replay::Settings;
    use crate::snapshot::Snapshot;

    fn empty_context() -> Context {
        Context::new(
            Snapshot::load(&[]).unwrap(),
            Catalogue::builtin(),
            IpRanges::default(),
            Settings::default(),
        )
    }

    #[test]
    fn parts_are_written_as_their_joined_bytes() {
        let agents = HashMap::new();
        let (mut joined, mut whole) = (Writer::new(&agents), Writer::new(&agents));
        joined.joined(&[b"192.0.2.1", b"", b"Googlebot/2.1"]);
        whole.bytes(b"192.0.2.1Googlebot/2.1");
        assert_eq!(joined.finish(), whole.finish());
    }

    #[test]
    fn numbers_texts_and_options_read_back() {
        let agents = HashMap::new();
        let mut w = Writer::new(&agents);
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            w.u64(v);
        }
        w.i64(-5);
        w.f64(2.5);
        w.opt_i64(None);
        w.opt_i64(Some(i64::MIN));
        w.opt_u32(Some(0));
        w.opt_u32(None);
        w.opt_bool(Some(false));
        w.opt_text(None);
        w.opt_text(Some("robots.txt"));
        w.text("shop.example");
        w.text("é");
        w.text("shop.example");
        let bytes = w.finish();
        let ctx = empty_context();
        let mut r = Reader::new(&bytes, &ctx).unwrap();
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            assert_eq!(r.u64().unwrap(), v);
        }
        assert_eq!(r.i64().unwrap(), -5);
        assert_eq!(r.f64().unwrap(), 2.5);
        assert_eq!(r.opt_i64().unwrap(), None);
        assert_eq!(r.opt_i64().unwrap(), Some(i64::MIN));
        assert_eq!(r.opt_u32().unwrap(), Some(0));
        assert_eq!(r.opt_u32().unwrap(), None);
        assert_eq!(r.opt_bool().unwrap(), Some(false));
        assert_eq!(r.opt_text().unwrap(), None);
        assert_eq!(r.opt_text().unwrap().as_deref(), Some("robots.txt"));
        let a = r.text().unwrap();
        assert_eq!(&*r.text().unwrap(), "é");
        let b = r.text().unwrap();
        assert!(Arc::ptr_eq(&a, &b), "a repeated text is shared");
        r.done().unwrap();
        // Every cut of the bytes is an error, never a panic.
        for cut in 0..bytes.len() {
            let mut r = match Reader::new(&bytes[..cut], &ctx) {
                Ok(r) => r,
                Err(_) => continue,
            };
            let all = (|| -> Result<(), WireError> {
                for _ in 0..7 {
                    r.u64()?;
                }
                r.i64()?;
                r.f64()?;
                r.opt_i64()?;
                r.opt_i64()?;
                r.opt_u32()?;
                r.opt_u32()?;
                r.opt_bool()?;
                r.opt_text()?;
                r.opt_text()?;
                r.text()?;
                r.text()?;
                r.text()?;
                r.done()
            })();
            assert!(all.is_err(), "cut at {cut} read as whole");
        }
    }

    #[test]
    fn counts_larger_than_the_bytes_are_refused() {
        let agents = HashMap::new();
        let mut w = Writer::new(&agents);
        w.u64(u64::MAX / 2);
        let bytes = w.finish();
        let ctx = empty_context();
        let mut r = Reader::new(&bytes, &ctx).unwrap();
        assert!(r.count(1).is_err());
        assert!(Reader::new(b"CAk0", &ctx).is_err());
        // The version before fetches and referrals named their hosts by number.
        assert!(Reader::new(b"CAk1", &ctx).is_err());
    }
}
