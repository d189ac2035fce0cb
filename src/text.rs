//! Shared text: the report's repeated cells (hosts, crawler names, rules,
//! robots.txt versions, addresses) held once, as `Arc<str>`, however many
//! rows name them.

use foldhash::HashSet;
use std::sync::Arc;

/// Hands out one `Arc<str>` per distinct string it is given.
#[derive(Debug, Default)]
pub struct Interner(HashSet<Arc<str>>);

impl Interner {
    /// The shared copy of `text`, made on first use.
    pub fn get(&mut self, text: &str) -> Arc<str> {
        if let Some(shared) = self.0.get(text) {
            return shared.clone();
        }
        let shared: Arc<str> = Arc::from(text);
        self.0.insert(shared.clone());
        shared
    }

    /// How many distinct strings it holds.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The empty text, shared: rows whose cell is empty (a finding without
/// a crawler or a User-Agent) hold this one copy instead of one each.
pub fn empty() -> Arc<str> {
    static EMPTY: std::sync::LazyLock<Arc<str>> = std::sync::LazyLock::new(|| Arc::from(""));
    EMPTY.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_copy_per_distinct_string() {
        let mut texts = Interner::default();
        let a = texts.get("Googlebot");
        let b = texts.get(&String::from("Googlebot"));
        let c = texts.get("bingbot");
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!((&*a, &*c, texts.len()), ("Googlebot", "bingbot", 2));
    }
}
