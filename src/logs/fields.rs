//! Named fields to a [`Request`]: the formats whose lines are split into
//! named fields by something else (CSV columns, a `regex:` pattern's
//! groups) share the names, their order and the reading of the values.

use std::borrow::Cow;

use super::BadReason;
use super::record::Request;
use super::template::{bytes as bytes_field, status as status_field};
use super::time::LogTime;
use crate::host::strip_default_port;

/// The fields, as `--json-fields` names them (JSON's `query` aside).
pub(crate) const NAMES: [&str; 11] = [
    "time",
    "ip",
    "method",
    "uri",
    "request",
    "protocol",
    "status",
    "bytes",
    "referer",
    "user_agent",
    "host",
];

pub(crate) const TIME: usize = 0;
pub(crate) const IP: usize = 1;
pub(crate) const METHOD: usize = 2;
pub(crate) const URI: usize = 3;
pub(crate) const REQUEST: usize = 4;
pub(crate) const PROTOCOL: usize = 5;
pub(crate) const STATUS: usize = 6;
pub(crate) const BYTES: usize = 7;
pub(crate) const REFERER: usize = 8;
pub(crate) const USER_AGENT: usize = 9;
pub(crate) const HOST: usize = 10;

/// The request of a line read at `time` whose field `i` of [`NAMES`] is
/// `get(i)` (`None`: absent). A `uri` is the target; else a `request`
/// line is split into method, target and protocol; a missing or `-`
/// target is not a request. A status or byte count that does not read is
/// a bad line.
pub(crate) fn request<'r>(
    time: LogTime,
    get: impl Fn(usize) -> Option<&'r [u8]>,
) -> Result<Request<'r>, BadReason> {
    let mut req = Request {
        time: time.nanos,
        resolution: time.resolution,
        valid_request: true,
        client: Cow::Borrowed(get(IP).unwrap_or_default()),
        method: Cow::Borrowed(get(METHOD).unwrap_or_default()),
        protocol: Cow::Borrowed(get(PROTOCOL).unwrap_or_default()),
        referer: Cow::Borrowed(get(REFERER).unwrap_or_default()),
        user_agent: Cow::Borrowed(get(USER_AGENT).unwrap_or_default()),
        host: get(HOST).map(|h| Cow::Borrowed(strip_default_port(h))),
        ..Request::default()
    };
    if let Some(uri) = get(URI) {
        req.target = Cow::Borrowed(uri);
    } else if let Some(request) = get(REQUEST) {
        req.set_request_line(request);
    }
    if req.target.is_empty() || *req.target == *b"-" {
        req.valid_request = false;
    }
    if let Some(status) = get(STATUS) {
        req.status = status_field(status)?;
    }
    if let Some(bytes) = get(BYTES) {
        req.bytes = bytes_field(bytes)?;
    }
    Ok(req)
}

/// Reads a `name=value,name=value` mapping flag (`--json-fields`,
/// `--csv-fields`) pair by pair, in order: `each` is given the field's
/// index in `names`, its value (trimmed) and the pair as written (trimmed),
/// and may refuse it. `flag` and `what` (`key`, `column`) name them in the
/// errors: a pair without `=`, or an unknown name, with the list of names.
pub(crate) fn mapping(
    flag: &str,
    what: &str,
    names: &[&str],
    spec: &str,
    mut each: impl FnMut(usize, &str, &str) -> Result<(), String>,
) -> Result<(), String> {
    for pair in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').ok_or_else(|| {
            format!(
                "{flag}: {pair:?} is not name={what} (names: {})",
                names.join(", ")
            )
        })?;
        let field = names
            .iter()
            .position(|n| *n == name.trim())
            .ok_or_else(|| {
                format!(
                    "{flag}: unknown field {:?} (names: {})",
                    name.trim(),
                    names.join(", ")
                )
            })?;
        each(field, value.trim(), pair)?;
    }
    Ok(())
}
