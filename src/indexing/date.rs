//! Dates of `unavailable_after`: RFC 822/1123, RFC 850, asctime and ISO 8601.

use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::Offset;

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const WEEKDAYS: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
const WEEKDAY_NAMES: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// Is `word` a weekday name, abbreviated (`Wed`) or full (`Wednesday`)?
/// RFC 1123 and RFC 850 dates put a comma after it, which the rule-list
/// parser must not take for a rule separator.
pub(crate) fn is_weekday(word: &str) -> bool {
    let w = word.trim().to_ascii_lowercase();
    WEEKDAYS.contains(&w.as_str()) || WEEKDAY_NAMES.contains(&w.as_str())
}

fn month(word: &str) -> Option<i8> {
    let w = word.to_ascii_lowercase();
    if w.len() < 3 {
        return None;
    }
    let i = MONTHS.iter().position(|m| w.starts_with(m))?;
    // "March" and "Mar" are fine; "Marble" is not.
    (w.len() == 3 || crate::time::MONTH_NAMES[i] == w || (i == 8 && w == "sept"))
        .then_some(i as i8 + 1)
}

/// The UTC offset of a zone name, in seconds: the zones of RFC 822 and the
/// common European and Asian abbreviations.
fn zone(word: &str) -> Option<i32> {
    let hours = match word.to_ascii_uppercase().as_str() {
        "Z" | "UT" | "UTC" | "GMT" | "WET" => 0,
        "BST" | "CET" | "WEST" | "MET" => 1,
        "CEST" | "EET" | "MEST" => 2,
        "EEST" | "MSK" => 3,
        "EST" | "CDT" => -5,
        "EDT" => -4,
        "CST" => -6,
        "MST" => -7,
        "MDT" => -6,
        "PST" => -8,
        "PDT" => -7,
        "AKST" => -9,
        "AKDT" => -8,
        "HST" => -10,
        "JST" | "KST" => 9,
        "AEST" => 10,
        "AEDT" => 11,
        _ => return None,
    };
    Some(hours * 3600)
}

/// A numeric offset: `+0100`, `-05:00`, `+01`.
fn numeric_offset(s: &str) -> Option<i32> {
    let (sign, rest) = match s.as_bytes().first()? {
        b'+' => (1, &s[1..]),
        b'-' => (-1, &s[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|&c| c != ':').collect();
    if !digits.bytes().all(|b| b.is_ascii_digit()) || rest.matches(':').count() > 1 {
        return None;
    }
    let (h, m) = match digits.len() {
        2 => (digits.parse::<i32>().ok()?, 0),
        4 => (
            digits[..2].parse::<i32>().ok()?,
            digits[2..].parse::<i32>().ok()?,
        ),
        _ => return None,
    };
    (h <= 23 && m <= 59).then_some(sign * (h * 3600 + m * 60))
}

/// `HH:MM[:SS[.fraction]]` → (hour, minute, second, nanoseconds).
fn clock(s: &str) -> Option<(i8, i8, i8, i32)> {
    let mut parts = s.split(':');
    let h = two_digits(parts.next()?)?;
    let m = two_digits(parts.next()?)?;
    let (sec, nanos) = match parts.next() {
        None => (0, 0),
        Some(sec) => {
            let (whole, frac) = sec.split_once(['.', ',']).unwrap_or((sec, ""));
            (two_digits(whole)?, fraction(frac)?)
        }
    };
    if parts.next().is_some() {
        return None;
    }
    Some((h, m, sec, nanos))
}

fn two_digits(s: &str) -> Option<i8> {
    (!s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())?
}

fn fraction(frac: &str) -> Option<i32> {
    if frac.is_empty() {
        return Some(0);
    }
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut digits: String = frac.chars().take(9).collect();
    while digits.len() < 9 {
        digits.push('0');
    }
    digits.parse().ok()
}

fn build(
    year: i32,
    month: i8,
    day: i8,
    (h, mi, s, ns): (i8, i8, i8, i32),
    offset: i32,
) -> Option<Timestamp> {
    // A leap second (23:59:60) is taken as the last second of the minute.
    let s = s.min(59);
    let dt = DateTime::new(i16::try_from(year).ok()?, month, day, h, mi, s, ns).ok()?;
    Offset::from_seconds(offset).ok()?.to_timestamp(dt).ok()
}

/// Parses an `unavailable_after` date. Accepted forms (a missing zone is UTC):
/// - RFC 1123 / RFC 822: `Wed, 03 Dec 2025 13:09:53 GMT`, `25 Jun 2010 15:00:00 PST`,
///   two-digit years, seconds optional, zone names or `+hhmm` offsets;
/// - RFC 850: `Wednesday, 03-Dec-25 13:09:53 GMT`;
/// - asctime: `Wed Dec  3 13:09:53 2025`;
/// - ISO 8601: `2025-12-03`, `2025-12-03T13:09:53Z`, `2025-12-03 13:09:53.5+01:00`,
///   `20251203T130953Z`.
///
/// Returns `None` for anything else, including impossible dates.
pub fn parse_date(text: &str) -> Option<Timestamp> {
    let text = text.trim();
    if text.as_bytes().first()?.is_ascii_digit() {
        if let Some(ts) = parse_iso(text) {
            return Some(ts);
        }
    }
    parse_textual(text)
}

fn parse_iso(text: &str) -> Option<Timestamp> {
    let (date, rest) = match text.find(['T', 't', ' ']) {
        Some(i) => (&text[..i], Some(text[i + 1..].trim())),
        None => (text, None),
    };
    let (year, month, day) = if date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()) {
        (
            date[..4].parse().ok()?,
            date[4..6].parse().ok()?,
            date[6..].parse().ok()?,
        )
    } else {
        let mut it = date.split('-');
        let (y, m, d) = (it.next()?, it.next()?, it.next()?);
        if it.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
            return None;
        }
        (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?)
    };
    let Some(rest) = rest.filter(|r| !r.is_empty()) else {
        return build(year, month, day, (0, 0, 0, 0), 0);
    };
    // Split the time from its zone: `Z`, `+hh:mm`, `-hhmm`, or a zone name after a space.
    let zone_start = rest
        .char_indices()
        .find(|&(i, c)| c == 'Z' || c == 'z' || c == '+' || (c == '-' && i > 0) || c == ' ')
        .map(|(i, _)| i);
    let (time, offset) = match zone_start {
        None => (rest, 0),
        Some(i) => {
            let z = rest[i..].trim();
            let offset = if z.eq_ignore_ascii_case("z") {
                0
            } else {
                numeric_offset(z).or_else(|| zone(z))?
            };
            (&rest[..i], offset)
        }
    };
    let time = if time.len() >= 4
        && !time.contains(':')
        && time.bytes().all(|b| b.is_ascii_digit() || b == b'.')
    {
        // Basic format: hhmm[ss[.fff]].
        let (hm, secs) = time.split_at(4);
        format!(
            "{}:{}{}{}",
            &hm[..2],
            &hm[2..],
            if secs.is_empty() { "" } else { ":" },
            secs
        )
    } else {
        time.to_string()
    };
    build(year, month, day, clock(&time)?, offset)
}

fn parse_textual(text: &str) -> Option<Timestamp> {
    let mut words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    if words.first().is_some_and(|w| is_weekday(w)) {
        words.remove(0);
    }
    // RFC 850 writes the date as one word: 03-Dec-25.
    let mut expanded = Vec::new();
    for w in words {
        if w.matches('-').count() == 2 && !w.starts_with('-') {
            expanded.extend(w.split('-'));
        } else {
            expanded.push(w);
        }
    }
    let (mut month_no, mut time, mut offset) = (None, None, None);
    let mut numbers: Vec<&str> = Vec::new();
    for w in expanded {
        if let Some(m) = month(w) {
            if month_no.replace(m).is_some() {
                return None;
            }
        } else if w.contains(':') && w.as_bytes()[0].is_ascii_digit() {
            if time.replace(clock(w)?).is_some() {
                return None;
            }
        } else if w.bytes().all(|b| b.is_ascii_digit()) {
            numbers.push(w);
        } else if let Some(o) = numeric_offset(w).or_else(|| zone(w)) {
            if offset.replace(o).is_some() {
                return None;
            }
        } else {
            return None;
        }
    }
    let [a, b] = numbers.as_slice() else {
        return None;
    };
    // One of the two numbers is the day; the year is the four-digit one, or
    // the second (RFC 822/850 put the day first; asctime's year has four digits).
    let (day, year) = if a.len() == 4 { (b, a) } else { (a, b) };
    if day.len() > 2 {
        return None;
    }
    let year: i32 = match year.len() {
        4 => year.parse().ok()?,
        2 => {
            let y: i32 = year.parse().ok()?;
            if y < 70 { 2000 + y } else { 1900 + y }
        }
        _ => return None,
    };
    build(
        year,
        month_no?,
        day.parse().ok()?,
        time.unwrap_or((0, 0, 0, 0)),
        offset.unwrap_or(0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Option<String> {
        parse_date(s).map(|t| t.to_string())
    }

    #[test]
    fn rfc1123_and_rfc822() {
        assert_eq!(
            p("Wed, 03 Dec 2025 13:09:53 GMT").as_deref(),
            Some("2025-12-03T13:09:53Z")
        );
        assert_eq!(
            p("25 Jun 2010 15:00:00 PST").as_deref(),
            Some("2010-06-25T23:00:00Z")
        );
        assert_eq!(
            p("Fri, 25 Jun 10 15:00 +0200").as_deref(),
            Some("2010-06-25T13:00:00Z")
        );
        assert_eq!(
            p("3 Dec 2025 13:09:53 EST").as_deref(),
            Some("2025-12-03T18:09:53Z")
        );
        assert_eq!(
            p("Wed, 03 Dec 2025 13:09:53").as_deref(),
            Some("2025-12-03T13:09:53Z")
        );
        assert_eq!(
            p("03 December 2025").as_deref(),
            Some("2025-12-03T00:00:00Z")
        );
    }

    #[test]
    fn rfc850_and_asctime() {
        assert_eq!(
            p("Wednesday, 03-Dec-25 13:09:53 GMT").as_deref(),
            Some("2025-12-03T13:09:53Z")
        );
        assert_eq!(
            p("Sunday, 01-Sep-2019 12:00:00 PST").as_deref(),
            Some("2019-09-01T20:00:00Z")
        );
        assert_eq!(
            p("Wed Dec  3 13:09:53 2025").as_deref(),
            Some("2025-12-03T13:09:53Z")
        );
        assert_eq!(
            p("Sun Nov  6 08:49:37 1994").as_deref(),
            Some("1994-11-06T08:49:37Z")
        );
    }

    #[test]
    fn iso8601() {
        assert_eq!(p("2025-12-03").as_deref(), Some("2025-12-03T00:00:00Z"));
        assert_eq!(
            p("2025-12-03T13:09:53Z").as_deref(),
            Some("2025-12-03T13:09:53Z")
        );
        assert_eq!(
            p("2025-12-03T13:09:53+01:00").as_deref(),
            Some("2025-12-03T12:09:53Z")
        );
        assert_eq!(
            p("2025-12-03T13:09:53-0500").as_deref(),
            Some("2025-12-03T18:09:53Z")
        );
        assert_eq!(
            p("2025-12-03 13:09:53.25").as_deref(),
            Some("2025-12-03T13:09:53.25Z")
        );
        assert_eq!(
            p("2025-12-03T13:09").as_deref(),
            Some("2025-12-03T13:09:00Z")
        );
        assert_eq!(
            p("20251203T130953Z").as_deref(),
            Some("2025-12-03T13:09:53Z")
        );
        assert_eq!(
            p("2025-12-03T13:09:53 PST").as_deref(),
            Some("2025-12-03T21:09:53Z")
        );
    }

    #[test]
    fn invalid_dates() {
        for bad in [
            "",
            "tomorrow",
            "2025-02-30",
            "2025-13-01",
            "32 Dec 2025",
            "Wed, 03 Foo 2025 13:09:53 GMT",
            "03 Dec 2025 25:00:00 GMT",
            "03 Dec 2025 13:09:53 XYZ",
            "2025-12-03T13:09:53+25:00",
            "Dec 2025",
            "1 2 3 Dec",
            "03 Dec 2025 1:2:3:4",
            "2025/12/03",
        ] {
            assert_eq!(p(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn weekdays() {
        assert!(is_weekday("Wed"));
        assert!(is_weekday(" wednesday "));
        assert!(!is_weekday("noindex"));
    }
}
