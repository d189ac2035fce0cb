//! A chunk's cache of User-Agents: what each names, looked up for every
//! line.
//!
//! A log repeats a few hundred User-Agents of about a hundred bytes each.
//! A map hashes the whole value for every line; the cache first looks in a
//! small direct-mapped table whose slot a cheap fold of the value's words
//! picks, and confirms the value there by comparing it. A value the front
//! does not hold (another in its slot, or crafted to share a slot) is
//! looked up in the map, as before, and takes the slot: a collision costs
//! the fold and one comparison, never a wrong answer.

use foldhash::{HashMap, HashMapExt};

/// Slots of the front table (a power of two): a few KiB, kept in the
/// nearest cache.
const FRONT_SLOTS: usize = 1 << 10;

/// A slot that holds no entry.
const EMPTY: u32 = u32::MAX;

/// User-Agents (as logged) to a value, with a direct-mapped front.
#[derive(Debug)]
pub(super) struct AgentCache<V> {
    /// Per slot, the entry it holds ([`EMPTY`]: none).
    front: Vec<u32>,
    /// The values, in the order they were inserted.
    entries: Vec<(Box<[u8]>, V)>,
    /// Every value's entry.
    map: HashMap<Box<[u8]>, u32>,
}

impl<V: Copy> AgentCache<V> {
    /// An empty cache (its front is allocated at the first insert).
    pub(super) fn new() -> Self {
        AgentCache {
            front: Vec::new(),
            entries: Vec::new(),
            map: HashMap::new(),
        }
    }

    /// What `ua` was inserted with, if it was.
    #[inline]
    pub(super) fn get(&mut self, ua: &[u8]) -> Option<V> {
        let slot = slot_of(ua);
        if let Some(&i) = self.front.get(slot) {
            if let Some((key, value)) = self.entries.get(i as usize) {
                if **key == *ua {
                    return Some(*value);
                }
            }
        }
        let &i = self.map.get(ua)?;
        self.front[slot] = i;
        Some(self.entries[i as usize].1)
    }

    /// Caches `value` for `ua` (not cached yet).
    pub(super) fn insert(&mut self, ua: &[u8], value: V) {
        if self.front.is_empty() {
            self.front = vec![EMPTY; FRONT_SLOTS];
        }
        let i = u32::try_from(self.entries.len()).expect("a chunk's cache holds few entries");
        self.entries.push((ua.into(), value));
        self.map.insert(ua.into(), i);
        self.front[slot_of(ua)] = i;
    }

    /// How many User-Agents are cached.
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no User-Agent is cached.
    #[cfg(test)]
    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forgets every User-Agent (memory kept for the next ones).
    pub(super) fn clear(&mut self) {
        self.entries.clear();
        self.map.clear();
        self.front.fill(EMPTY);
    }
}

/// The front slot of `ua`: its 8-byte words (the last one overlapping the
/// one before) folded by rotation and exclusive or, then mixed by one
/// multiplication. Linear, so values can be made to share a slot; they then
/// take turns in it, each found in the map when the other holds it.
#[inline]
fn slot_of(ua: &[u8]) -> usize {
    let n = ua.len();
    let word = |at: usize| u64::from_le_bytes(ua[at..at + 8].try_into().expect("8 bytes"));
    let mut fold = n as u64;
    if n < 8 {
        let mut short = [0u8; 8];
        short[..n].copy_from_slice(ua);
        fold ^= u64::from_le_bytes(short);
    } else {
        let mut at = 0;
        let mut turn = 0;
        while at + 8 <= n {
            fold ^= word(at).rotate_left(turn);
            turn = (turn + 19) & 63;
            at += 8;
        }
        if at < n {
            fold ^= word(n - 8).rotate_left(turn);
        }
    }
    (fold.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - FRONT_SLOTS.trailing_zeros())) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value inserted is found with its own value, whatever shares
    /// its slot, and nothing else is found.
    #[test]
    fn values_are_found_whatever_shares_their_slot() {
        let mut cache = AgentCache::new();
        let agents: Vec<Vec<u8>> = (0..3000)
            .map(|i| format!("Mozilla/5.0 (compatible; Bot{i}/1.0)").into_bytes())
            .chain((0..8).map(|n| vec![b'a'; n]))
            .collect();
        for (i, ua) in agents.iter().enumerate() {
            assert_eq!(cache.get(ua), None);
            cache.insert(ua, i);
        }
        // 3,008 values in 1,024 slots: most slots are shared.
        for _ in 0..2 {
            for (i, ua) in agents.iter().enumerate().rev() {
                assert_eq!(cache.get(ua), Some(i), "{}", String::from_utf8_lossy(ua));
            }
        }
        assert_eq!(cache.get(b"Mozilla/5.0 (compatible; Bot3000/1.0)"), None);
        assert_eq!(cache.len(), agents.len());
        cache.clear();
        assert_eq!(cache.len(), 0);
        assert_eq!(cache.get(&agents[0]), None);
    }

    /// Two values of one slot, asked in turn, are each found with its own
    /// value (the slot changes hands).
    #[test]
    fn values_of_one_slot_take_turns() {
        let first = b"Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36".to_vec();
        let slot = slot_of(&first);
        let second = (0u32..)
            .map(|i| format!("agent {i}").into_bytes())
            .find(|ua| slot_of(ua) == slot)
            .expect("some value shares the slot");
        let mut cache = AgentCache::new();
        cache.insert(&first, 1);
        cache.insert(&second, 2);
        for _ in 0..3 {
            assert_eq!(cache.get(&first), Some(1));
            assert_eq!(cache.get(&second), Some(2));
        }
    }

    /// Values that differ in any one byte, or only in length, fall in
    /// different slots far more often than not: the fold reads every byte.
    #[test]
    fn every_byte_counts_in_the_slot() {
        let base = b"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36".to_vec();
        let mut same = 0;
        for at in 0..base.len() {
            let mut other = base.clone();
            other[at] ^= 1;
            same += usize::from(slot_of(&other) == slot_of(&base));
        }
        assert!(
            same <= 2,
            "{same} of {} one-byte changes kept the slot",
            base.len()
        );
        assert_ne!(slot_of(&base), slot_of(&base[..base.len() - 1]));
    }
}
