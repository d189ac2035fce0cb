//! The kinds of violation and of finding (SPEC sections 8 and 9), typed:
//! each knows the name the report's files give it, and the lists of all
//! kinds are in the one order the report uses.

use std::fmt;

/// A kind of violation: what a row of `violations.csv` says the crawler
/// did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ViolationKind {
    /// Fetched a URL its cached robots.txt disallowed.
    Disallow,
    /// Came back sooner than its cached robots.txt's Crawl-delay.
    CrawlDelay,
    /// Its engine showed a page it fetched under `noindex`.
    Noindex,
    /// Its engine showed a page past the page's `unavailable_after`.
    UnavailableAfter,
}

impl ViolationKind {
    /// Every kind, in the report's order (summary, crawlers table, terminal).
    pub const ALL: [ViolationKind; 4] = [
        ViolationKind::Disallow,
        ViolationKind::CrawlDelay,
        ViolationKind::Noindex,
        ViolationKind::UnavailableAfter,
    ];

    /// The name the report's files give it (`crawl-delay`).
    pub const fn as_str(self) -> &'static str {
        match self {
            ViolationKind::Disallow => "disallow",
            ViolationKind::CrawlDelay => "crawl-delay",
            ViolationKind::Noindex => "noindex",
            ViolationKind::UnavailableAfter => "unavailable-after",
        }
    }

    /// The crawlers table's column counting it (`crawl_delay`).
    pub const fn column(self) -> &'static str {
        match self {
            ViolationKind::Disallow => "disallow",
            ViolationKind::CrawlDelay => "crawl_delay",
            ViolationKind::Noindex => "noindex",
            ViolationKind::UnavailableAfter => "unavailable_after",
        }
    }

    /// Its place in [`ViolationKind::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The kind a report names `name`, if any.
    pub fn from_name(name: &str) -> Option<ViolationKind> {
        ViolationKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl fmt::Display for ViolationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for ViolationKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// The kinds of violation's names, in the report's order.
pub const VIOLATION_KINDS: [&str; 4] = [
    ViolationKind::Disallow.as_str(),
    ViolationKind::CrawlDelay.as_str(),
    ViolationKind::Noindex.as_str(),
    ViolationKind::UnavailableAfter.as_str(),
];

/// A kind of finding: what a row of `findings.csv` reports (evidence, not
/// a violation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FindingKind {
    /// Requests claiming a crawler from outside its published ranges.
    SpoofedAgent,
    /// A crawler that never fetched /robots.txt in the window.
    NoRobotsFetch,
    /// A noindex page that no engine's crawler fetched.
    NoindexUnseen,
    /// A `Noindex:` line in robots.txt, which no major crawler obeys.
    RobotsNoindexLine,
    /// Requests for a host the snapshot does not describe.
    UnknownHost,
    /// Requests to disallowed paths by a fetcher whose operator documents
    /// that it acts for a person and does not follow robots.txt.
    UserTriggeredFetch,
}

impl FindingKind {
    /// Every kind.
    pub const ALL: [FindingKind; 6] = [
        FindingKind::SpoofedAgent,
        FindingKind::NoRobotsFetch,
        FindingKind::NoindexUnseen,
        FindingKind::RobotsNoindexLine,
        FindingKind::UnknownHost,
        FindingKind::UserTriggeredFetch,
    ];

    /// The name the report's files give it (`spoofed-agent`).
    pub const fn as_str(self) -> &'static str {
        match self {
            FindingKind::SpoofedAgent => "spoofed-agent",
            FindingKind::NoRobotsFetch => "no-robots-fetch",
            FindingKind::NoindexUnseen => "noindex-unseen",
            FindingKind::RobotsNoindexLine => "robots-noindex-line",
            FindingKind::UnknownHost => "unknown-host",
            FindingKind::UserTriggeredFetch => "user-triggered-fetch",
        }
    }

    /// The kind a report names `name`, if any.
    pub fn from_name(name: &str) -> Option<FindingKind> {
        FindingKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl fmt::Display for FindingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for FindingKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// The kinds of finding's names.
pub const FINDING_KINDS: [&str; 6] = [
    FindingKind::SpoofedAgent.as_str(),
    FindingKind::NoRobotsFetch.as_str(),
    FindingKind::NoindexUnseen.as_str(),
    FindingKind::RobotsNoindexLine.as_str(),
    FindingKind::UnknownHost.as_str(),
    FindingKind::UserTriggeredFetch.as_str(),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_order() {
        for (i, k) in ViolationKind::ALL.into_iter().enumerate() {
            assert_eq!(k.index(), i);
            assert_eq!(VIOLATION_KINDS[i], k.as_str());
            assert_eq!(ViolationKind::from_name(k.as_str()), Some(k));
            assert_eq!(k.column(), k.as_str().replace('-', "_"));
            assert_eq!(k.to_string(), k.as_str());
        }
        assert_eq!(ViolationKind::from_name("Disallow"), None);
        for (i, k) in FindingKind::ALL.into_iter().enumerate() {
            assert_eq!(FINDING_KINDS[i], k.as_str());
            assert_eq!(FindingKind::from_name(k.as_str()), Some(k));
        }
        assert_eq!(FindingKind::from_name("disallow"), None);
        assert_eq!(
            serde_json::to_string(&ViolationKind::CrawlDelay).unwrap(),
            "\"crawl-delay\""
        );
    }
}
