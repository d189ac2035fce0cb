//! Time as the audit counts it: instants are `i64` UTC nanoseconds
//! ([`Nanos`]), durations are nanoseconds too. This module holds the units,
//! the "always" marker, and the one way times are printed (RFC 3339).
//!
//! Log timestamps are parsed in [`crate::logs::time`]; jiff is used only at
//! the edges (parsing RFC 3339, printing).
//!
//! ```
//! use crawlaudit::time::{HOUR, SECOND, format_time};
//!
//! assert_eq!(HOUR, 3_600 * SECOND);
//! assert_eq!(format_time(1_790_000_000 * SECOND), "2026-09-21T14:13:20Z");
//! ```

/// UTC nanoseconds since 1970-01-01 (an instant), or a number of
/// nanoseconds (a duration).
pub type Nanos = i64;

/// Nanoseconds in a second.
pub const NANOS_PER_SECOND: Nanos = 1_000_000_000;
/// A second, in nanoseconds.
pub const SECOND: Nanos = NANOS_PER_SECOND;
/// A minute, in nanoseconds.
pub const MINUTE: Nanos = 60 * SECOND;
/// An hour, in nanoseconds.
pub const HOUR: Nanos = 60 * MINUTE;
/// A day, in nanoseconds.
pub const DAY: Nanos = 24 * HOUR;

/// The start of time, for versions that hold for the whole audit window
/// (`i64::MIN`; printed `-`). No log line's time is "always".
pub const ALWAYS: Nanos = i64::MIN;

/// `seconds` in nanoseconds, when that fits.
pub fn from_seconds(seconds: i64) -> Option<Nanos> {
    seconds.checked_mul(NANOS_PER_SECOND)
}

/// Whole seconds of a duration (rounded toward zero).
pub fn whole_seconds(nanos: Nanos) -> i64 {
    nanos / NANOS_PER_SECOND
}

/// Fractional seconds in nanoseconds (a `Crawl-delay` of `0.5`).
pub fn seconds_to_nanos_f64(seconds: f64) -> f64 {
    seconds * NANOS_PER_SECOND as f64
}

/// Nanoseconds as seconds for people: `2s`, `0.5s` (to the millisecond).
pub fn format_seconds(nanos: f64) -> String {
    let s = nanos / NANOS_PER_SECOND as f64;
    if (s - s.round()).abs() < 1e-9 {
        format!("{}s", s.round())
    } else {
        format!("{}s", (s * 1000.0).round() / 1000.0)
    }
}

/// Formats UTC nanoseconds as RFC 3339 ([`ALWAYS`] as `-`).
pub fn format_time(t: Nanos) -> String {
    if t == ALWAYS {
        return "-".to_string();
    }
    jiff::Timestamp::from_nanosecond(i128::from(t))
        .map_or_else(|_| t.to_string(), |ts| ts.to_string())
}

/// An instant in UTC nanoseconds, when it fits an `i64` and is not
/// [`ALWAYS`] (which only a version without a time means).
pub(crate) fn instant(ts: jiff::Timestamp) -> Option<Nanos> {
    i64::try_from(ts.as_nanosecond())
        .ok()
        .filter(|&t| t != ALWAYS)
}

/// The English month names, lower case, January first (the month-name
/// parsers of log times and of `unavailable_after` dates).
pub(crate) const MONTH_NAMES: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(SECOND, 1_000_000_000);
        assert_eq!(HOUR, 3_600_000_000_000);
        assert_eq!(DAY, 86_400 * SECOND);
        assert_eq!(from_seconds(90), Some(90 * SECOND));
        assert_eq!(from_seconds(i64::MAX), None);
        assert_eq!(whole_seconds(24 * HOUR + 999_999_999), 86_400);
    }

    #[test]
    fn seconds_for_people() {
        assert_eq!(format_seconds(2e9), "2s");
        assert_eq!(format_seconds(0.5e9), "0.5s");
        assert_eq!(format_seconds(1.2345e9), "1.235s");
        assert_eq!(format_seconds(seconds_to_nanos_f64(1.5)), "1.5s");
    }

    #[test]
    fn times() {
        assert_eq!(format_time(ALWAYS), "-");
        assert_eq!(format_time(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_time(1_793_491_200 * SECOND), "2026-11-01T00:00:00Z");
        assert_eq!(instant(jiff::Timestamp::UNIX_EPOCH), Some(0));
    }
}
