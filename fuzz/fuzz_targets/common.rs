//! What the line-parser targets share (included with `#[path]`: each
//! target is a binary of its own).

/// Asserts that a non-empty `field` is a slice of `line` (a parser
/// borrows its fields from the line it reads).
pub fn within(line: &[u8], field: &[u8]) {
    if field.is_empty() {
        return;
    }
    let (start, end) = (line.as_ptr() as usize, line.as_ptr() as usize + line.len());
    let at = field.as_ptr() as usize;
    assert!(
        at >= start && at + field.len() <= end,
        "a field outside the line"
    );
}

/// Asserts that the fields a parser takes from the line (client, method,
/// target, protocol, referer, User-Agent) lie within it; the host is the
/// caller's to check (some formats build it).
pub fn fields_within(line: &[u8], r: &crawlaudit::logs::Request<'_>) {
    for field in [
        r.client(),
        r.method(),
        r.target(),
        r.protocol(),
        r.referer(),
        r.user_agent(),
    ] {
        within(line, field);
    }
}
