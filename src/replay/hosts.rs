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
use super::disallow::HostRules;
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
    short: HashMap<[u8; SHORT + 1], u32>,
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
            None => self.long.get(raw),
        };
        if let Some(&h) = found {
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
                self.slots.push(HostSlot {
                    name: name.clone(),
                    rules,
                    owned,
                    id,
                });
                self.ids.insert(name, h);
                h
            }
        };
        match key {
            Some(key) => self.short.insert(key, h),
            None => self.long.insert(raw.into(), h),
        };
        self.remember(raw, h);
        (h, emptied)
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

    /// No host met.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Frees the table.
    pub(crate) fn clear(&mut self) {
        self.short = HashMap::new();
        self.long = HashMap::new();
        self.last = None;
        self.empty = None;
        self.last_value = Vec::new();
        self.slots = Vec::new();
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
}
