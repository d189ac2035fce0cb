//! Log timestamps to UTC nanoseconds, without allocation: the common log
//! format's `[10/Oct/2000:13:55:36 -0700]`, ISO 8601 / RFC 3339, epoch
//! seconds with a fraction (`$msec`), and W3C `date time` pairs.

use crate::time::{ALWAYS, SECOND};

/// The earliest time a log line can hold: `i64::MIN` nanoseconds is the
/// "always" marker ([`ALWAYS`]), so it is no log time.
pub const EARLIEST: i64 = ALWAYS + 1;

/// A time that fits: the nanoseconds, unless they are `i64::MIN`
/// (a line's time is never "always").
fn held(nanos: i64) -> Option<i64> {
    (nanos >= EARLIEST).then_some(nanos)
}

/// Days from 1970-01-01 to the given civil date (proleptic Gregorian),
/// after Howard Hinnant's `days_from_civil`.
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

/// Reads exactly `N` ASCII digits.
fn digits<const N: usize>(s: &[u8]) -> Option<u32> {
    let s = s.get(..N)?;
    let mut v = 0u32;
    for &b in s {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + u32::from(d);
    }
    Some(v)
}

/// A fraction of a second (`.123`, `,5`): its nanoseconds, its resolution
/// in nanoseconds, and how many bytes it took (0 if absent).
fn fraction(s: &[u8]) -> (i64, i64, usize) {
    if !matches!(s.first(), Some(b'.' | b',')) {
        return (0, SECOND, 0);
    }
    let n = s[1..].iter().take_while(|b| b.is_ascii_digit()).count();
    if n == 0 {
        return (0, SECOND, 0);
    }
    let mut nanos = 0i64;
    let mut scale = SECOND;
    for &b in &s[1..1 + n.min(9)] {
        scale /= 10;
        nanos += i64::from(b - b'0') * scale;
    }
    (nanos, scale.max(1), 1 + n)
}

fn civil_to_nanos(year: i64, month: u32, day: u32, h: u32, m: u32, s: u32) -> Option<i64> {
    if !(1..=12).contains(&month)
        || day == 0
        || day > days_in_month(year, month)
        || h > 23
        || m > 59
        || s > 60
    {
        return None;
    }
    let secs =
        days_from_civil(year, month, day) * 86_400 + i64::from(h * 3600 + m * 60 + s.min(59));
    secs.checked_mul(SECOND)
}

fn month_abbrev(s: &[u8]) -> Option<u32> {
    let m = match s.get(..3)? {
        [a, b, c] => [
            a.to_ascii_lowercase(),
            b.to_ascii_lowercase(),
            c.to_ascii_lowercase(),
        ],
        _ => return None,
    };
    Some(match &m {
        b"jan" => 1,
        b"feb" => 2,
        b"mar" => 3,
        b"apr" => 4,
        b"may" => 5,
        b"jun" => 6,
        b"jul" => 7,
        b"aug" => 8,
        b"sep" => 9,
        b"oct" => 10,
        b"nov" => 11,
        b"dec" => 12,
        _ => return None,
    })
}

/// The instant of a civil date and time, plus the fraction `frac` (ns),
/// written at offset `off` (seconds east of UTC), with its `resolution`;
/// `None` when out of range.
fn local_time(
    (year, month, day): (i64, u32, u32),
    (h, m, sec): (u32, u32, u32),
    frac: i64,
    off: i64,
    resolution: i64,
) -> Option<LogTime> {
    let nanos = civil_to_nanos(year, month, day, h, m, sec)?
        .checked_add(frac)?
        .checked_sub(off.checked_mul(SECOND)?)?;
    Some(LogTime {
        nanos: held(nanos)?,
        resolution,
    })
}

/// An offset that is all of `s` (`+hhmm`, `-hh:mm`, `Z`), in seconds.
fn whole_offset(s: &[u8]) -> Option<i64> {
    let (off, used) = offset(s)?;
    (used == s.len()).then_some(off)
}

/// `+hhmm`, `-hh:mm`, `Z`: the offset in seconds and the bytes taken.
fn offset(s: &[u8]) -> Option<(i64, usize)> {
    match s.first()? {
        b'Z' | b'z' => Some((0, 1)),
        &sign @ (b'+' | b'-') => {
            let h = digits::<2>(&s[1..])?;
            let (m, used) = if s.get(3) == Some(&b':') {
                (digits::<2>(&s[4..])?, 6)
            } else {
                (digits::<2>(&s[3..])?, 5)
            };
            if h > 23 || m > 59 {
                return None;
            }
            let secs = i64::from(h * 3600 + m * 60);
            Some((if sign == b'-' { -secs } else { secs }, used))
        }
        _ => None,
    }
}

/// A parsed time: UTC nanoseconds since the epoch and the resolution of
/// the written form in nanoseconds (1 s for whole seconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogTime {
    /// Nanoseconds since 1970-01-01T00:00:00Z.
    pub nanos: i64,
    /// The resolution of the written time, in nanoseconds.
    pub resolution: i64,
}

/// The common log format time, without brackets: `10/Oct/2000:13:55:36 -0700`
/// (a fraction after the seconds is accepted; the offset may be absent,
/// meaning UTC).
pub fn parse_clf(s: &[u8]) -> Option<LogTime> {
    if s.len() < 20
        || s[2] != b'/'
        || s[6] != b'/'
        || s[11] != b':'
        || s[14] != b':'
        || s[17] != b':'
    {
        return None;
    }
    let day = digits::<2>(s)?;
    let month = month_abbrev(&s[3..6])?;
    let year = i64::from(digits::<4>(&s[7..])?);
    let (h, m, sec) = (
        digits::<2>(&s[12..])?,
        digits::<2>(&s[15..])?,
        digits::<2>(&s[18..])?,
    );
    let (frac, resolution, used) = fraction(&s[20..]);
    let rest = &s[20 + used..];
    let off = match rest {
        [] => 0,
        [b' ', tail @ ..] => whole_offset(tail)?,
        _ => return None,
    };
    local_time((year, month, day), (h, m, sec), frac, off, resolution)
}

/// ISO 8601 / RFC 3339: `2000-10-10T13:55:36-07:00`, `2000-10-10 13:55:36.25Z`,
/// `2000-10-10T13:55:36` (UTC when no zone is written).
pub fn parse_iso(s: &[u8]) -> Option<LogTime> {
    if s.len() < 19
        || s[4] != b'-'
        || s[7] != b'-'
        || !matches!(s[10], b'T' | b't' | b' ')
        || s[13] != b':'
        || s[16] != b':'
    {
        return None;
    }
    let year = i64::from(digits::<4>(s)?);
    let (month, day) = (digits::<2>(&s[5..])?, digits::<2>(&s[8..])?);
    let (h, m, sec) = (
        digits::<2>(&s[11..])?,
        digits::<2>(&s[14..])?,
        digits::<2>(&s[17..])?,
    );
    let (frac, resolution, used) = fraction(&s[19..]);
    let rest = &s[19 + used..];
    let off = if rest.is_empty() {
        0
    } else {
        whole_offset(rest)?
    };
    local_time((year, month, day), (h, m, sec), frac, off, resolution)
}

/// Epoch seconds with an optional fraction: `1700000000.123` (nginx `$msec`).
pub fn parse_epoch(s: &[u8]) -> Option<LogTime> {
    let int_len = s.iter().take_while(|b| b.is_ascii_digit()).count();
    if int_len == 0 || int_len > 12 {
        return None;
    }
    let mut secs = 0i64;
    for &b in &s[..int_len] {
        secs = secs * 10 + i64::from(b - b'0');
    }
    let (frac, resolution, used) = fraction(&s[int_len..]);
    if int_len + used != s.len() {
        return None;
    }
    // Past 2262 the nanoseconds do not fit: not a time this tool can hold.
    Some(LogTime {
        nanos: secs.checked_mul(SECOND)?.checked_add(frac)?,
        resolution,
    })
}

/// W3C extended log `date` and `time` fields (`2024-05-01`, `13:55:36` or
/// `13:55:36.123`), which are UTC.
pub fn parse_w3c(date: &[u8], time: &[u8]) -> Option<LogTime> {
    if date.len() != 10
        || date[4] != b'-'
        || date[7] != b'-'
        || time.len() < 8
        || time[2] != b':'
        || time[5] != b':'
    {
        return None;
    }
    let year = i64::from(digits::<4>(date)?);
    let (month, day) = (digits::<2>(&date[5..])?, digits::<2>(&date[8..])?);
    let (h, m, sec) = (
        digits::<2>(time)?,
        digits::<2>(&time[3..])?,
        digits::<2>(&time[6..])?,
    );
    let (frac, resolution, used) = fraction(&time[8..]);
    if 8 + used != time.len() {
        return None;
    }
    // Past 2262 the nanoseconds do not fit: a bad time, not a wrap to
    // 1677. W3C times are UTC.
    local_time((year, month, day), (h, m, sec), frac, 0, resolution)
}

/// A month by number (`2`, `02`), English name (`February`) or its
/// three-letter abbreviation (`Feb`), in any case.
fn month_of(s: &[u8]) -> Option<u32> {
    if !s.is_empty() && s.len() <= 2 && s.iter().all(u8::is_ascii_digit) {
        let m = s.iter().fold(0u32, |a, b| a * 10 + u32::from(b - b'0'));
        return (1..=12).contains(&m).then_some(m);
    }
    let m = month_abbrev(s)?;
    let full = crate::time::MONTH_NAMES[m as usize - 1].as_bytes();
    (s.len() == 3 || s.eq_ignore_ascii_case(full)).then_some(m)
}

/// One to `max_len` ASCII digits.
fn number(s: &[u8], max_len: usize) -> Option<u32> {
    if s.is_empty() || s.len() > max_len || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0u32, |a, b| a * 10 + u32::from(b - b'0')))
}

/// The parts of a date written in a layout of its own (`--format regex:`
/// groups): a four-digit year, a month (number, English name or
/// abbreviation), a day, an hour (0-23) and a minute (one or two digits
/// each), seconds (two digits, perhaps with a fraction: `07.250`; none is
/// 0) and a UTC offset (`Z`, `+0100`, `-05:00`; none is UTC).
pub struct DateParts<'a> {
    /// `2024`.
    pub year: &'a [u8],
    /// `2`, `02`, `Feb` or `February`.
    pub month: &'a [u8],
    /// `1` to `31`.
    pub day: &'a [u8],
    /// `0` to `23`.
    pub hour: &'a [u8],
    /// `0` to `59`.
    pub minute: &'a [u8],
    /// `07`, `07.250`, or none.
    pub second: Option<&'a [u8]>,
    /// `Z`, `+0100`, `-05:00`, or none.
    pub zone: Option<&'a [u8]>,
}

/// A time from its parts ([`DateParts`]).
pub fn parse_parts(parts: &DateParts<'_>) -> Option<LogTime> {
    if parts.year.len() != 4 {
        return None;
    }
    let year = i64::from(number(parts.year, 4)?);
    let month = month_of(parts.month.trim_ascii())?;
    let day = number(parts.day, 2)?;
    let (h, m) = (number(parts.hour, 2)?, number(parts.minute, 2)?);
    let (sec, frac, resolution) = match parts.second {
        None => (0, 0, SECOND),
        Some(s) => {
            let sec = digits::<2>(s)?;
            let (frac, resolution, used) = fraction(&s[2..]);
            if 2 + used != s.len() {
                return None;
            }
            (sec, frac, resolution)
        }
    };
    let off = match parts.zone.map(<[u8]>::trim_ascii) {
        None | Some(b"") => 0,
        Some(z) => whole_offset(z)?,
    };
    local_time((year, month, day), (h, m, sec), frac, off, resolution)
}

/// Any of the forms above, tried in turn (for JSON logs, whose time field
/// may be any of them); a bare number is epoch seconds, or milliseconds,
/// microseconds or nanoseconds when it is too large to be seconds. An ISO
/// time may end with `UTC` or `GMT` instead of `Z` (strftime's `%Z`, as
/// Fastly's `%{...%Z}t` writes it).
pub fn parse_any(s: &[u8]) -> Option<LogTime> {
    let s = s.trim_ascii();
    let s = s
        .strip_prefix(b"[")
        .and_then(|x| x.strip_suffix(b"]"))
        .unwrap_or(s);
    if s.iter().all(u8::is_ascii_digit) && s.len() > 12 {
        // Integer epoch in ms (13 digits), µs (16) or ns (19).
        let v: i64 = std::str::from_utf8(s).ok()?.parse().ok()?;
        let (mult, resolution) = match s.len() {
            13 => (1_000_000, 1_000_000),
            16 => (1_000, 1_000),
            19 => (1, 1),
            _ => return None,
        };
        return Some(LogTime {
            nanos: held(v.checked_mul(mult)?)?,
            resolution,
        });
    }
    parse_iso(s)
        .or_else(|| parse_clf(s))
        .or_else(|| parse_epoch(s))
        .or_else(|| {
            let zoneless = s
                .strip_suffix(b"UTC")
                .or_else(|| s.strip_suffix(b"GMT"))?
                .trim_ascii_end();
            // Only a time without a zone of its own: `...:36+02:00 UTC` is no time.
            parse_iso(zoneless).filter(|_| {
                zoneless.len() >= 19
                    && !zoneless[19..]
                        .iter()
                        .any(|b| matches!(b, b'Z' | b'z' | b'+' | b'-'))
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(t: Option<LogTime>) -> Option<(String, i64)> {
        t.map(|t| {
            (
                jiff::Timestamp::from_nanosecond(i128::from(t.nanos))
                    .unwrap()
                    .to_string(),
                t.resolution,
            )
        })
    }

    fn s(text: &str, res: i64) -> Option<(String, i64)> {
        Some((text.to_string(), res))
    }

    #[test]
    fn clf() {
        assert_eq!(
            show(parse_clf(b"10/Oct/2000:13:55:36 -0700")),
            s("2000-10-10T20:55:36Z", SECOND)
        );
        assert_eq!(
            show(parse_clf(b"17/Apr/2025:05:10:56 +0100")),
            s("2025-04-17T04:10:56Z", SECOND)
        );
        assert_eq!(
            show(parse_clf(b"29/Feb/2024:00:00:00 +0000")),
            s("2024-02-29T00:00:00Z", SECOND)
        );
        assert_eq!(
            show(parse_clf(b"01/jan/2024:00:00:00.250 +0000")),
            s("2024-01-01T00:00:00.25Z", 1_000_000)
        );
        assert_eq!(
            show(parse_clf(b"01/Jan/2024:00:00:00")),
            s("2024-01-01T00:00:00Z", SECOND)
        );
        for bad in [
            &b"29/Feb/2023:00:00:00 +0000"[..],
            b"10/Foo/2000:13:55:36 -0700",
            b"10/Oct/2000:24:00:00 +0000",
            b"10/Oct/2000:13:55:36 +07",
            b"10/Oct/2000 13:55:36",
            b"",
        ] {
            assert_eq!(parse_clf(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn iso_epoch_w3c_any() {
        assert_eq!(
            show(parse_iso(b"2000-10-10T13:55:36-07:00")),
            s("2000-10-10T20:55:36Z", SECOND)
        );
        assert_eq!(
            show(parse_iso(b"2000-10-10 13:55:36.123456Z")),
            s("2000-10-10T13:55:36.123456Z", 1_000)
        );
        assert_eq!(
            show(parse_iso(b"2000-10-10T13:55:36")),
            s("2000-10-10T13:55:36Z", SECOND)
        );
        assert_eq!(
            show(parse_epoch(b"1700000000.123")),
            s("2023-11-14T22:13:20.123Z", 1_000_000)
        );
        assert_eq!(
            show(parse_epoch(b"1700000000")),
            s("2023-11-14T22:13:20Z", SECOND)
        );
        assert_eq!(parse_epoch(b"1700000000.12x"), None);
        assert_eq!(
            show(parse_w3c(b"2024-05-01", b"13:55:36")),
            s("2024-05-01T13:55:36Z", SECOND)
        );
        assert_eq!(
            show(parse_any(b"1700000000123")),
            s("2023-11-14T22:13:20.123Z", 1_000_000)
        );
        assert_eq!(
            show(parse_any(b"1700000000123456789")),
            s("2023-11-14T22:13:20.123456789Z", 1)
        );
        assert_eq!(
            show(parse_any(b"[10/Oct/2000:13:55:36 -0700]")),
            s("2000-10-10T20:55:36Z", SECOND)
        );
        assert_eq!(parse_any(b"yesterday"), None);
        // strftime's %Z (Fastly), BigQuery's ` UTC`.
        assert_eq!(
            show(parse_any(b"2024-05-01T13:55:36UTC")),
            s("2024-05-01T13:55:36Z", SECOND)
        );
        assert_eq!(
            show(parse_any(b"2024-05-01 13:55:36.25 GMT")),
            s("2024-05-01T13:55:36.25Z", 10_000_000)
        );
        assert_eq!(parse_any(b"2024-05-01T13:55:36+02:00 UTC"), None);
        assert_eq!(parse_any(b"UTC"), None);
    }

    #[test]
    fn date_parts() {
        let parts =
            |month: &'static str, second: Option<&'static str>, zone: Option<&'static str>| {
                parse_parts(&DateParts {
                    year: b"2012",
                    month: month.as_bytes(),
                    day: b"10",
                    hour: b"16",
                    minute: b"42",
                    second: second.map(str::as_bytes),
                    zone: zone.map(str::as_bytes),
                })
            };
        for month in ["February", "february", "FEB", "Feb", "2", "02"] {
            assert_eq!(
                show(parts(month, Some("07"), None)),
                s("2012-02-10T16:42:07Z", SECOND),
                "{month}"
            );
        }
        assert_eq!(
            show(parts("Feb", Some("07.25"), Some("-05:00"))),
            s("2012-02-10T21:42:07.25Z", 10_000_000)
        );
        assert_eq!(
            show(parts("Feb", None, Some("+0100"))),
            s("2012-02-10T15:42:00Z", SECOND)
        );
        for month in ["Febr", "13", "0", "Fevrier", ""] {
            assert_eq!(parts(month, None, None), None, "{month}");
        }
        assert_eq!(parts("Feb", Some("7"), None), None);
        assert_eq!(parts("Feb", Some("07x"), None), None);
        assert_eq!(parts("Feb", None, Some("+01")), None);
        assert_eq!(
            parse_parts(&DateParts {
                year: b"2023",
                month: b"2",
                day: b"29",
                hour: b"0",
                minute: b"0",
                second: None,
                zone: None,
            }),
            None
        );
    }

    /// Found by the `log_template` and `log_json` fuzz targets: `$msec`
    /// (and JSON `ts`) of 11 or 12 digits overflowed the nanoseconds.
    #[test]
    fn epoch_seconds_past_2262_are_not_times_found_by_fuzzing() {
        let last = parse_epoch(b"9223372036").unwrap();
        assert_eq!(last.nanos, 9_223_372_036_000_000_000);
        assert_eq!(
            parse_epoch(b"9223372036.854775807").unwrap().nanos,
            i64::MAX
        );
        assert_eq!(parse_epoch(b"9223372036.854775808"), None);
        assert_eq!(parse_epoch(b"9223372037"), None);
        assert_eq!(parse_epoch(b"999999999999.5"), None);
        assert_eq!(parse_any(b"999999999999"), None);
        // A CLF or ISO time at the very end of the range, pushed past it by
        // its offset.
        assert!(parse_clf(b"11/Apr/2262:23:47:16 +0000").is_some());
        assert_eq!(parse_clf(b"11/Apr/2262:23:47:16 -1400"), None);
        assert_eq!(parse_iso(b"2262-04-11T23:47:16.9-14:00"), None);
    }

    /// Issue 13: a W3C time past 2262 wrapped around to 1677, and a time
    /// of exactly `i64::MIN` nanoseconds meant the snapshot's "always".
    #[test]
    fn times_past_the_range_or_at_always_are_bad_times() {
        assert!(parse_w3c(b"2262-04-11", b"23:47:16").is_some());
        assert_eq!(parse_w3c(b"2262-04-11", b"23:47:16.9"), None);
        assert_eq!(parse_w3c(b"2262-04-12", b"00:00:00"), None);
        assert_eq!(parse_w3c(b"9999-12-31", b"23:59:59.999"), None);
        // 1677-09-21T00:12:43.145224192Z is i64::MIN nanoseconds, reached
        // through an offset; one nanosecond later is the earliest time.
        assert_eq!(parse_iso(b"1677-09-21T00:13:43.145224192+00:01"), None);
        assert_eq!(
            parse_iso(b"1677-09-21T00:13:43.145224193+00:01")
                .unwrap()
                .nanos,
            EARLIEST
        );
        assert_eq!(parse_clf(b"21/Sep/1677:00:13:43.145224192 +0001"), None);
        assert_eq!(parse_any(b"1677-09-21T00:13:43.145224192+00:01"), None);
        assert!(parse_iso(b"1700-01-01T00:00:00Z").is_some());
    }

    #[test]
    fn days_agree_with_jiff() {
        for (y, m, d) in [
            (1970, 1, 1),
            (2000, 2, 29),
            (1969, 12, 31),
            (2100, 3, 1),
            (1600, 1, 1),
            (2262, 4, 11),
        ] {
            let ours = days_from_civil(y, m, d);
            let date = jiff::civil::date(y as i16, m as i8, d as i8);
            let theirs = date
                .since(jiff::civil::date(1970, 1, 1))
                .unwrap()
                .get_days();
            assert_eq!(ours, i64::from(theirs), "{y}-{m}-{d}");
        }
    }
}
