//! Splitting an audit by host (SPEC section 11). Every rule is per host, so
//! shards that each audit a disjoint set of hosts add up to one audit.
//!
//! A host belongs to shard `fnv1a64(host) mod N`, where `host` is the
//! normalized host as reports name it (lower case, no trailing dot, no
//! `:80`/`:443`; see [`normalize_host`]) and fnv1a64 is the 64-bit FNV-1a
//! hash of its UTF-8 bytes (offset basis `0xcbf29ce484222325`, prime
//! `0x100000001b3`). This is fixed: the same on every machine and in every
//! version, so shards written by different runs can be merged. Lines with no
//! host (no host in the format, no `--site`, several snapshot hosts) belong
//! to shard 0. Shards count from 0, as a Kubernetes Indexed Job's
//! `JOB_COMPLETION_INDEX` does.

use std::fmt;
use std::str::FromStr;

use crate::host::normalize_host;

/// One shard of N: `--shard K/N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: u32,
    /// How many shards there are.
    pub count: u32,
}

/// The 64-bit FNV-1a hash.
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The shard, of `count`, that `host` belongs to.
///
/// # Panics
/// When `count` is 0.
pub fn shard_of(host: &str, count: u32) -> u32 {
    assert!(count > 0, "a shard count is at least 1");
    (fnv1a64(normalize_host(host).as_bytes()) % u64::from(count)) as u32
}

impl Shard {
    /// Whether this shard audits lines of `host` (`None`: lines without a
    /// host, which shard 0 takes).
    pub fn owns(&self, host: Option<&str>) -> bool {
        match host {
            Some(h) => shard_of(h, self.count) == self.index,
            None => self.index == 0,
        }
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let usage = || {
            format!(
                "{s:?} is not K/N: write e.g. 0/4 (shards count from 0, as JOB_COMPLETION_INDEX does)"
            )
        };
        let (k, n) = s.split_once('/').ok_or_else(usage)?;
        let index: u32 = k.trim().parse().map_err(|_| usage())?;
        let count: u32 = n.trim().parse().map_err(|_| usage())?;
        if count == 0 || index >= count {
            return Err(format!(
                "shard {index} of {count} does not exist: K runs from 0 to N-1"
            ));
        }
        Ok(Shard { index, count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_fixed() {
        // FNV-1a 64 test vectors, and hosts pinned so that a change of
        // hash (which would break merging shards of different versions)
        // fails here.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(shard_of("shop.example", 7), shard_of("SHOP.example:443", 7));
        // Computed independently (Python) from the definition above.
        let pinned: Vec<u32> = ["shop.example", "blog.example", "example.com", "a.b:8080"]
            .iter()
            .map(|h| shard_of(h, 16))
            .collect();
        let expected = [1, 9, 6, 2];
        assert_eq!(pinned, expected);
    }

    #[test]
    fn every_host_has_exactly_one_shard() {
        for n in 1..6 {
            for host in ["shop.example", "blog.example", "x.y", "[::1]:8080"] {
                let owners = (0..n)
                    .filter(|&k| Shard { index: k, count: n }.owns(Some(host)))
                    .count();
                assert_eq!(owners, 1);
            }
            let hostless = (0..n)
                .filter(|&k| Shard { index: k, count: n }.owns(None))
                .count();
            assert_eq!(hostless, 1);
        }
    }

    #[test]
    fn parsing() {
        assert_eq!("2/5".parse(), Ok(Shard { index: 2, count: 5 }));
        assert_eq!("0/1".parse::<Shard>().unwrap().to_string(), "0/1");
        assert!(
            "5/5"
                .parse::<Shard>()
                .unwrap_err()
                .contains("K runs from 0 to N-1")
        );
        assert!("1".parse::<Shard>().unwrap_err().contains("is not K/N"));
        assert!("0/0".parse::<Shard>().is_err());
    }
}
