//! Hosts as the collectors meet them: a log line's Host value (or the
//! default host of lines without one) to the host it names, normalized,
//! with what the snapshot says of it and whether this shard owns it.
//!
//! The table is kept per worker from chunk to chunk (with the robots.txt
//! lookups, [`super::Lookups`]): a CDN log interleaves thousands of hosts
//! in every chunk, and a table per chunk normalized and looked up each of
//! them anew in every chunk.

use std::sync::Arc;

use foldhash::{HashMap, HashMapExt};

use super::Context;
use super::disallow::{HostRules, RulesHead};
use super::kept::ChargedHost;
use crate::host::normalize_host;

/// The fewest Host values a table holds before it is emptied; a snapshot
/// of more hosts raises the bound to four values per host (a host logged
/// with and without its port, in two cases).
const MIN_VALUES: usize = 1 << 16;

/// The longest Host value held in a table's own memory ([`short_key`]).
pub(super) const SHORT: usize = 31;

/// A Host (or Referer) value of up to [`SHORT`] bytes as a key of fixed size: its
/// bytes, zeros, and its length last (so that values ending in zeros stay
/// apart). `None` for a longer value.
pub(super) fn short_key(raw: &[u8]) -> Option<[u8; SHORT + 1]> {
    let mut key = [0; SHORT + 1];
    key.get_mut(..raw.len())?.copy_from_slice(raw);
    key[SHORT] = u8::try_from(raw.len())
        .ok()
        .filter(|&n| usize::from(n) <= SHORT)?;
    Some(key)
}

/// [`Hosts::flags`]: the snapshot describes the host.
const DESCRIBED: u8 = 1;
/// [`Hosts::flags`]: the snapshot has rules for some page of the host.
const HAS_PAGES: u8 = 2;

/// A table entry's number when the entry holds no value.
const VACANT: u32 = u32::MAX;

/// One entry of a [`ShortTable`]: a value's key and its host's number.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: [u8; SHORT + 1],
    h: u32,
}

/// Host values of up to [`SHORT`] bytes ([`short_key`]) to their host's
/// number: an open-addressing table (linear probing, at most half full)
/// whose entries lie in one array, so that the entry of a value can be
/// fetched into the cache ([`ShortTable::prefetch`]) while the line before
/// it is recorded. A CDN log's thousands of hosts make every probe of a
/// plain map a cache miss.
#[derive(Debug, Default)]
struct ShortTable {
    entries: Vec<Entry>,
    len: usize,
    /// Seeded per table, as the standard maps are: the values come from
    /// the log, so from anyone.
    seeds: Seeds,
}

/// The random seeds of a short key's hash ([`Seeds::hash`]), one per word
/// of the key.
#[derive(Clone, Copy, Debug)]
struct Seeds([u64; 4]);

impl Seeds {
    /// The hash of `key`: its four words, each with its seed, multiplied
    /// in pairs and folded, as `foldhash` hashes long values, without the
    /// general path's length prefix and loop.
    #[inline]
    fn hash(&self, key: &[u8; SHORT + 1]) -> u64 {
        let [a, b, c, d] = self.0;
        let word =
            |i: usize| u64::from_le_bytes(key[8 * i..8 * i + 8].try_into().expect("8 bytes"));
        folded_multiply(word(0) ^ a, word(1) ^ b) ^ folded_multiply(word(2) ^ c, word(3) ^ d)
    }
}

impl Default for Seeds {
    /// Drawn from a new `foldhash` state (random, as the standard
    /// maps' states are).
    fn default() -> Self {
        use std::hash::BuildHasher;
        let state = foldhash::fast::RandomState::default();
        Seeds(std::array::from_fn(|i| state.hash_one(i as u64)))
    }
}

/// The hasher of a map keyed by [`short_key`]s (a chunk's Referer values):
/// a key is hashed as [`Seeds::hash`] hashes it, with seeds drawn for each
/// map.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ShortKeys(Seeds);

impl std::hash::BuildHasher for ShortKeys {
    type Hasher = ShortKeyHasher;

    fn build_hasher(&self) -> ShortKeyHasher {
        ShortKeyHasher {
            seeds: self.0,
            hash: 0,
        }
    }
}

/// [`ShortKeys`]' hasher. A short key's hash writes its length (always
/// the same), then its bytes at once: those are hashed by [`Seeds::hash`];
/// anything else is folded in eight bytes at a time.
#[derive(Debug)]
pub(super) struct ShortKeyHasher {
    seeds: Seeds,
    hash: u64,
}

impl std::hash::Hasher for ShortKeyHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        match <&[u8; SHORT + 1]>::try_from(bytes) {
            Ok(key) => self.hash ^= self.seeds.hash(key),
            Err(_) => {
                for chunk in bytes.chunks(8) {
                    let mut word = [0; 8];
                    word[..chunk.len()].copy_from_slice(chunk);
                    self.write_u64(u64::from_le_bytes(word));
                }
            }
        }
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.hash = folded_multiply(self.hash ^ n, self.seeds.0[0] | 1);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

/// The 128-bit product of `a` and `b`, its halves folded by exclusive or
/// (the mixing step of `foldhash` itself).
#[inline]
fn folded_multiply(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

impl ShortTable {
    /// Where the probe for `key` starts ([`Seeds::hash`]: two hashes a
    /// line, the prefetch's and the lookup's).
    #[inline]
    fn home(&self, key: &[u8; SHORT + 1]) -> usize {
        // The mask keeps the low bits, which is all an index needs.
        self.seeds.hash(key) as usize & (self.entries.len() - 1)
    }

    /// The number of the host whose value is `key`.
    fn get(&self, key: &[u8; SHORT + 1]) -> Option<u32> {
        if self.entries.is_empty() {
            return None;
        }
        let mask = self.entries.len() - 1;
        let mut i = self.home(key);
        loop {
            let entry = &self.entries[i];
            if entry.h == VACANT {
                return None;
            }
            if entry.key == *key {
                return Some(entry.h);
            }
            i = (i + 1) & mask;
        }
    }

    /// Gives `key` (not in the table) the number `h`.
    fn insert(&mut self, key: [u8; SHORT + 1], h: u32) {
        if 2 * (self.len + 1) > self.entries.len() {
            let size = (2 * self.entries.len()).max(64);
            let old = std::mem::replace(
                &mut self.entries,
                vec![
                    Entry {
                        key: [0; SHORT + 1],
                        h: VACANT,
                    };
                    size
                ],
            );
            self.len = 0;
            for entry in old.into_iter().filter(|e| e.h != VACANT) {
                self.insert(entry.key, entry.h);
            }
        }
        let mask = self.entries.len() - 1;
        let mut i = self.home(&key);
        while self.entries[i].h != VACANT {
            i = (i + 1) & mask;
        }
        self.entries[i] = Entry { key, h };
        self.len += 1;
    }

    /// Asks the processor to fetch the entry where the probe for `key`
    /// starts (a hint: nothing is read, and nothing changes).
    fn prefetch(&self, key: &[u8; SHORT + 1]) {
        if self.entries.is_empty() {
            return;
        }
        let entry = &self.entries[self.home(key)];
        prefetch(std::ptr::from_ref(entry).cast());
        // An entry may straddle two cache lines.
        prefetch(std::ptr::from_ref(&entry.h).cast());
    }

    /// Values held.
    fn len(&self) -> usize {
        self.len
    }
}

/// Hints the processor to bring the cache line of `at` into its caches.
#[inline]
fn prefetch(at: *const i8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint that never faults nor reads into the
    // program, whatever the address (`at` is in a live table besides).
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// A host as the collectors met it.
#[derive(Debug)]
pub(crate) struct HostSlot<'c> {
    /// Normalized.
    pub(crate) name: Arc<str>,
    /// What the snapshot says of it (`None`: it does not describe it).
    pub(crate) rules: Option<&'c HostRules>,
    /// This shard owns it (always, without `--shard`).
    pub(crate) owned: bool,
    /// Its number in the snapshot, when it is named exactly as the
    /// snapshot names it.
    pub(crate) id: Option<u32>,
    /// What every request reads of `rules`, beside them (the default
    /// without them).
    pub(crate) head: RulesHead<'c>,
    /// Without `id`: its number among the run's other hosts, once a
    /// crawler's request is charged to it ([`Hosts::other_id`]).
    other: Option<u32>,
}

/// Values a chunk keeps by the worker's host numbers, with a label of
/// each host that has one (its name, or its number in the run): read per
/// request by number (no hashing of a name), handed on with its label
/// ([`ByHostNumber::drain`]) when the chunk is done or the host table is
/// emptied (its numbers are then void).
#[derive(Debug)]
pub(crate) struct ByHostNumber<T, L = Arc<str>> {
    values: Vec<T>,
    /// The hosts whose value is not the default, with their labels.
    met: Vec<(u32, L)>,
}

impl<T, L> Default for ByHostNumber<T, L> {
    fn default() -> Self {
        ByHostNumber {
            values: Vec::new(),
            met: Vec::new(),
        }
    }
}

impl<T: Default + PartialEq, L> ByHostNumber<T, L> {
    /// The value of the host numbered `h`, labelled `label` (asked only
    /// when the value is the default). The caller changes it from the
    /// default, so that the host is listed once.
    pub(crate) fn entry(&mut self, h: u32, label: impl FnOnce() -> L) -> &mut T {
        let i = h as usize;
        if i >= self.values.len() {
            self.values.resize_with(i + 1, T::default);
        }
        if self.values[i] == T::default() {
            self.met.push((h, label()));
        }
        &mut self.values[i]
    }

    /// The hosts' labels and values, each value reset to the default.
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = (L, T)> + '_ {
        let values = &mut self.values;
        self.met
            .drain(..)
            .map(|(h, label)| (label, std::mem::take(&mut values[h as usize])))
    }
}

/// Host values to hosts, numbered as met. Bounded: when it holds its
/// limit of values it is emptied, and the numbers it gave are void
/// ([`Hosts::get`] says so).
#[derive(Debug, Default)]
pub(crate) struct Hosts<'c> {
    /// Host values as logged of up to [`SHORT`] bytes (the empty value: a
    /// line without one) to their host's number, each held in the table
    /// itself ([`short_key`]): probing a table of thousands of hosts then
    /// follows no pointer.
    short: ShortTable,
    /// Longer Host values to their host's number.
    long: HashMap<Box<[u8]>, u32>,
    /// The last value looked up and its number (a one-host log, or a run
    /// of one host's lines, skips the map).
    last: Option<u32>,
    /// The number of the empty value (lines without a host).
    empty: Option<u32>,
    /// The last value (its buffer reused).
    last_value: Vec<u8>,
    slots: Vec<HostSlot<'c>>,
    /// Per host number: does the snapshot describe it (its slot's `rules`
    /// is `Some`: [`DESCRIBED`]), and has it rules for some page
    /// ([`HAS_PAGES`])? Read for every line, so kept apart from the slots:
    /// a byte per host stays in the cache where the slots of thousands of
    /// hosts do not.
    flags: Vec<u8>,
    /// Normalized names to their number (values that differ in case or
    /// port name one host).
    ids: HashMap<Arc<str>, u32>,
}

impl<'c> Hosts<'c> {
    /// The number of the host a line names: `raw`, its Host value, or
    /// `default`, the host of lines without one (`raw` is then empty).
    /// The second value is true when the table was emptied to make room:
    /// numbers given before are void.
    pub(crate) fn get(
        &mut self,
        ctx: &'c Context,
        raw: &[u8],
        default: Option<&str>,
    ) -> (u32, bool) {
        // Lines without a host (one site's log) skip every comparison:
        // besides, comparing an empty value costs more than a pointer
        // check, as glibc's `memcmp` reads the dangling address of an
        // empty slice under an empty mask (a fault suppressed by
        // microcode: hundreds of cycles).
        if raw.is_empty() {
            if let Some(h) = self.empty {
                return (h, false);
            }
        } else if let Some(h) = self.last {
            if self.last_value == raw {
                return (h, false);
            }
        }
        let key = short_key(raw);
        let found = match &key {
            Some(key) => self.short.get(key),
            None => self.long.get(raw).copied(),
        };
        if let Some(h) = found {
            self.remember(raw, h);
            return (h, false);
        }
        let limit = MIN_VALUES.max(4 * ctx.host_count());
        let emptied = self.short.len() + self.long.len() >= limit;
        if emptied {
            self.clear();
        }
        let name = match default {
            Some(d) => d.to_string(),
            None => normalize_host(&String::from_utf8_lossy(raw)),
        };
        let h = match self.ids.get(name.as_str()) {
            Some(&h) => h,
            None => {
                let h = u32::try_from(self.slots.len()).expect("the bound keeps numbers small");
                // Normalized once more, as the snapshot's own lookups do
                // (a `shop.example.:443` is `shop.example.` once,
                // `shop.example` twice).
                let rules = ctx.host_rules(&normalize_host(&name));
                let owned = ctx.settings().shard.is_none_or(|s| s.owns(Some(&name)));
                let id = rules
                    .filter(|r| **ctx.host_name(r.id()) == *name)
                    .map(HostRules::id);
                let name: Arc<str> = name.into();
                self.flags.push(match rules {
                    Some(r) if r.has_pages() => DESCRIBED | HAS_PAGES,
                    Some(_) => DESCRIBED,
                    None => 0,
                });
                self.slots.push(HostSlot {
                    name: name.clone(),
                    rules,
                    owned,
                    id,
                    head: rules.map(HostRules::head).unwrap_or_default(),
                    other: None,
                });
                self.ids.insert(name, h);
                h
            }
        };
        match key {
            Some(key) => self.short.insert(key, h),
            None => {
                self.long.insert(raw.into(), h);
            }
        }
        self.remember(raw, h);
        (h, emptied)
    }

    /// Asks the processor to fetch what looking up the Host value `raw`
    /// will read first: called a line ahead of [`Hosts::get`], it hides
    /// the cache miss of a log of many hosts. A hint: nothing changes.
    pub(crate) fn prefetch(&self, raw: &[u8]) {
        if raw.is_empty() || (self.last.is_some() && self.last_value == raw) {
            return;
        }
        if let Some(key) = short_key(raw) {
            self.short.prefetch(&key);
        }
    }

    /// Remembers the last value looked up.
    fn remember(&mut self, raw: &[u8], h: u32) {
        if raw.is_empty() {
            self.empty = Some(h);
            return;
        }
        self.last_value.clear();
        self.last_value.extend_from_slice(raw);
        self.last = Some(h);
    }

    /// The host numbered `h`.
    pub(crate) fn slot(&self, h: u32) -> &HostSlot<'c> {
        &self.slots[h as usize]
    }

    /// The run's number of the host numbered `h`, among the hosts not
    /// named as the snapshot names them ([`Context::other_host_id`]):
    /// asked of the run once per slot.
    pub(crate) fn other_id(&mut self, ctx: &Context, h: u32) -> u32 {
        let slot = &mut self.slots[h as usize];
        *slot
            .other
            .get_or_insert_with(|| ctx.other_host_id(&slot.name))
    }

    /// The host numbered `h` as the run numbers it: by its number in the
    /// snapshot, or among the run's other hosts ([`Hosts::other_id`]).
    pub(crate) fn charged(&mut self, ctx: &Context, h: u32) -> ChargedHost {
        match self.slots[h as usize].id {
            Some(number) => ChargedHost::Snapshot(number),
            None => ChargedHost::Other(self.other_id(ctx, h)),
        }
    }

    /// Does the snapshot describe the host numbered `h`
    /// ([`HostSlot::rules`] is `Some`)?
    pub(crate) fn described(&self, h: u32) -> bool {
        self.flags[h as usize] & DESCRIBED != 0
    }

    /// Has the snapshot rules for some page of the host numbered `h`
    /// ([`HostRules::has_pages`], read without the slot or the rules)?
    pub(crate) fn has_pages(&self, h: u32) -> bool {
        self.flags[h as usize] & HAS_PAGES != 0
    }

    /// No host met.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Hosts met.
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Frees the table.
    pub(crate) fn clear(&mut self) {
        self.short = ShortTable::default();
        self.long = HashMap::new();
        self.last = None;
        self.empty = None;
        self.last_value = Vec::new();
        self.slots = Vec::new();
        self.flags = Vec::new();
        self.ids = HashMap::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_keys_hold_values_up_to_their_size_and_keep_them_apart() {
        let at_most = [b'a'; SHORT];
        let key = short_key(&at_most).unwrap();
        assert_eq!(&key[..SHORT], &at_most[..]);
        assert_eq!(usize::from(key[SHORT]), SHORT);
        assert!(short_key(&[b'a'; SHORT + 1]).is_none());
        // A value and the same value with a zero byte more differ.
        assert_ne!(short_key(b"a"), short_key(b"a\0"));
        assert_ne!(short_key(b""), short_key(b"\0"));
        assert_eq!(short_key(b"shop.example"), short_key(b"shop.example"));
    }

    /// Values by host number list each host once, are handed on by name,
    /// and start again from the default once drained.
    #[test]
    fn values_by_host_number_list_each_host_once() {
        let mut counts = ByHostNumber::<u64>::default();
        let name = |s: &str| -> Arc<str> { s.into() };
        *counts.entry(3, || name("c.example")) += 1;
        *counts.entry(0, || name("a.example")) += 1;
        *counts.entry(3, || unreachable!("listed already")) += 1;
        let drained: Vec<(Arc<str>, u64)> = counts.drain().collect();
        assert_eq!(drained, [(name("c.example"), 2), (name("a.example"), 1)]);
        assert_eq!(counts.drain().count(), 0);
        // Number 3 names another host now (the table was emptied).
        *counts.entry(3, || name("d.example")) += 5;
        let drained: Vec<(Arc<str>, u64)> = counts.drain().collect();
        assert_eq!(drained, [(name("d.example"), 5)]);
    }

    /// The open-addressing table answers as a map does, through its
    /// growths and with values that share all but their last bytes; a
    /// prefetch changes nothing.
    #[test]
    fn short_table_answers_as_a_map() {
        let mut table = ShortTable::default();
        let mut map = std::collections::HashMap::new();
        let value = |i: u32| format!("host{i}.example:{}", i % 3);
        assert_eq!(table.get(&short_key(b"a").unwrap()), None);
        table.prefetch(&short_key(b"a").unwrap());
        for i in 0..5_000u32 {
            let key = short_key(value(i).as_bytes()).unwrap();
            table.prefetch(&key);
            assert_eq!(table.get(&key), None, "{i} before");
            table.insert(key, i * 7);
            map.insert(key, i * 7);
            assert_eq!(table.len(), map.len());
            assert!(2 * table.len() <= table.entries.len(), "at most half full");
        }
        for i in 0..6_000u32 {
            let key = short_key(value(i).as_bytes()).unwrap();
            table.prefetch(&key);
            assert_eq!(table.get(&key), map.get(&key).copied(), "{i}");
        }
        // The empty value, and one of the full length.
        for raw in [&b""[..], &[b'z'; SHORT][..]] {
            let key = short_key(raw).unwrap();
            assert_eq!(table.get(&key), None);
            table.insert(key, 1);
            assert_eq!(table.get(&key), Some(1));
        }
    }

    /// A map keyed by short keys hashes every byte of a key: a key and the
    /// same key with any one byte changed hash apart, and such keys are
    /// each found with their own value.
    #[test]
    fn short_keys_hash_every_byte() {
        use std::hash::BuildHasher;
        let state = ShortKeys::default();
        let base = short_key(b"https://www.google.com/").unwrap();
        let mut map: std::collections::HashMap<_, _, ShortKeys> = Default::default();
        map.insert(base, usize::MAX);
        for at in 0..=SHORT {
            let mut other = base;
            other[at] ^= 0x20;
            assert_ne!(state.hash_one(other), state.hash_one(base), "byte {at}");
            map.insert(other, at);
        }
        assert_eq!(map.len(), SHORT + 2);
        assert_eq!(map.get(&base), Some(&usize::MAX));
        for at in 0..=SHORT {
            let mut other = base;
            other[at] ^= 0x20;
            assert_eq!(map.get(&other), Some(&at));
        }
        // Two maps draw their own seeds.
        assert_ne!(ShortKeys::default().hash_one(base), state.hash_one(base));
    }

    /// Host values alike but for a byte or two (a CDN's `hostN.example`)
    /// spread over the table: a value is found a probe or two from where
    /// its probe starts, on average, as a table at most half full promises
    /// of a hash that mixes every byte.
    #[test]
    fn alike_values_spread_over_the_table() {
        let mut table = ShortTable::default();
        let keys: Vec<_> = (0..10_000u32)
            .map(|i| short_key(format!("host{i}.example").as_bytes()).unwrap())
            .chain((0..2_000u32).map(|i| {
                // Values that differ only in the word the length shares.
                let mut raw = [b'a'; SHORT];
                raw[SHORT - 4..].copy_from_slice(&i.to_le_bytes());
                short_key(&raw).unwrap()
            }))
            .collect();
        for (h, key) in keys.iter().enumerate() {
            table.insert(*key, h as u32);
        }
        let mask = table.entries.len() - 1;
        let mut probes = 0;
        for (h, key) in keys.iter().enumerate() {
            let mut i = table.home(key);
            probes += 1;
            while table.entries[i].h != h as u32 {
                i = (i + 1) & mask;
                probes += 1;
            }
        }
        let mean = f64::from(probes) / keys.len() as f64;
        assert!(mean < 2.0, "{mean} probes a value");
    }
}
