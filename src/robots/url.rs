//! The part of a URL that robots.txt rules are matched against.

use std::borrow::Cow;

/// Returns the path, params and query of `url`, the way Google's reference
/// matcher extracts them (`GetPathParamsQuery` in google/robotstxt): the
/// scheme, authority and fragment are removed, and the result always starts
/// with `/`. A URL with no path (or one that is not a URL at all) gives `/`.
///
/// Nothing is decoded or normalised: robots.txt matching compares the URL as
/// it was requested (RFC 9309 section 2.2.2 leaves encoding to the caller).
///
/// ```
/// use crawlaudit::robots::path_params_query;
/// assert_eq!(&*path_params_query(b"http://example.com/a/b?q=1#frag"), b"/a/b?q=1");
/// assert_eq!(&*path_params_query(b"http://example.com"), b"/");
/// assert_eq!(&*path_params_query(b"/already/a/path"), b"/already/a/path");
/// assert_eq!(&*path_params_query(b"http://example.com?x"), b"/?x");
/// ```
pub fn path_params_query(url: &[u8]) -> Cow<'_, [u8]> {
    // A leading "//" (a scheme-relative URL) is skipped before the search.
    let search_start = if url.starts_with(b"//") { 2 } else { 0 };
    let find_path_char = |from: usize| {
        url.get(from..)
            .and_then(|rest| rest.iter().position(|&b| matches!(b, b'/' | b'?' | b';')))
            .map(|i| i + from)
    };
    let early_path = find_path_char(search_start);
    let mut protocol_end =
        memchr::memmem::find(&url[search_start..], b"://").map(|i| i + search_start);
    // A path, param or query that starts before "://" means "://" is not a scheme separator.
    if let (Some(early), Some(proto)) = (early_path, protocol_end) {
        if early < proto {
            protocol_end = None;
        }
    }
    let authority_start = protocol_end.map_or(search_start, |p| p + 3);
    let Some(path_start) = find_path_char(authority_start) else {
        return Cow::Borrowed(b"/");
    };
    let hash = memchr::memchr(b'#', &url[search_start..]).map(|i| i + search_start);
    if let Some(h) = hash {
        if h < path_start {
            return Cow::Borrowed(b"/");
        }
    }
    let path_end = hash.unwrap_or(url.len());
    let path = &url[path_start..path_end];
    if path.first() == Some(&b'/') {
        Cow::Borrowed(path)
    } else {
        // The result would start with '?' or ';': prepend the slash.
        let mut owned = Vec::with_capacity(path.len() + 1);
        owned.push(b'/');
        owned.extend_from_slice(path);
        Cow::Owned(owned)
    }
}

/// Returns the path and query of a request target as logged, ready for
/// matching: an origin-form target (`/path?q`) is kept as it is up to any
/// fragment, anything else (absolute form, `*`, garbage) goes through
/// [`path_params_query`].
pub fn target_path(target: &[u8]) -> Cow<'_, [u8]> {
    // An origin-form target is a path even when it begins with "//": a
    // request for "//a/b" asks the host for the path "//a/b".
    if target.first() == Some(&b'/') {
        let end = memchr::memchr(b'#', target).unwrap_or(target.len());
        Cow::Borrowed(&target[..end])
    } else {
        path_params_query(target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(url: &str) -> String {
        String::from_utf8(path_params_query(url.as_bytes()).into_owned()).unwrap()
    }

    #[test]
    fn google_get_path_params_query() {
        assert_eq!(p(""), "/");
        assert_eq!(p("http://www.example.com"), "/");
        assert_eq!(p("http://www.example.com/"), "/");
        assert_eq!(p("http://www.example.com/a"), "/a");
        assert_eq!(p("http://www.example.com/a/"), "/a/");
        assert_eq!(
            p("http://www.example.com/a/b?c=http://d.e/"),
            "/a/b?c=http://d.e/"
        );
        assert_eq!(
            p("http://www.example.com/a/b?c=d&e=f#fragment"),
            "/a/b?c=d&e=f"
        );
        assert_eq!(p("example.com"), "/");
        assert_eq!(p("example.com/"), "/");
        assert_eq!(p("example.com/a"), "/a");
        assert_eq!(p("example.com/a/"), "/a/");
        assert_eq!(p("example.com/a/b?c=d&e=f#fragment"), "/a/b?c=d&e=f");
        assert_eq!(p("a"), "/");
        assert_eq!(p("a/"), "/");
        assert_eq!(p("/a"), "/a");
        assert_eq!(p("a/b"), "/b");
        assert_eq!(p("example.com?a"), "/?a");
        assert_eq!(p("example.com/a;b#c"), "/a;b");
        assert_eq!(p("//a/b/c"), "/b/c");
    }

    #[test]
    fn target_path_keeps_origin_form() {
        assert_eq!(&*target_path(b"/a?b#c"), b"/a?b");
        assert_eq!(&*target_path(b"//double/slash"), b"//double/slash");
        assert_eq!(&*target_path(b"http://h.example/x?y"), b"/x?y");
        assert_eq!(&*target_path(b"*"), b"/");
    }
}
