//! Hosts as the audit names them: the one normalization that snapshots,
//! log lines, `--site`, shards and reports share, and the check of a host
//! that a user or a folder names.

/// A host as snapshots and reports name it: lower case, without a trailing
/// dot, and without the default ports 80 and 443.
pub fn normalize_host(host: &str) -> String {
    let mut h = host.trim().trim_end_matches('.').to_ascii_lowercase();
    for port in [":80", ":443"] {
        if let Some(stripped) = h.strip_suffix(port) {
            h = stripped.to_string();
        }
    }
    h
}

/// `host:80` and `host:443` are `host`; other ports stay. The byte form
/// for the Host fields of log lines, which [`normalize_host`] finishes.
pub(crate) fn strip_default_port(host: &[u8]) -> &[u8] {
    for port in [&b":80"[..], b":443"] {
        if let Some(h) = host.strip_suffix(port) {
            return h;
        }
    }
    host
}

/// Checks a host as `--site` or a host folder names it (after
/// [`normalize_host`]): a host name or IP address, with `:port` only for
/// ports other than 80 and 443. The error says what is wrong.
///
/// # Errors
/// A message for people when `host` is not such a host.
pub fn check_host(host: &str) -> Result<(), String> {
    check_host_name(&normalize_host(host))
}

/// Checks a host folder's name: a lower-case host name or IP address,
/// with `:port` only for ports other than 80 and 443.
pub(crate) fn check_host_name(name: &str) -> Result<(), String> {
    let (host, port) = if let Some(rest) = name.strip_prefix('[') {
        // [IPv6]:port
        let close = rest
            .find(']')
            .ok_or("an IPv6 address needs its closing ]")?;
        let addr = &rest[..close];
        addr.parse::<std::net::Ipv6Addr>()
            .map_err(|_| format!("{addr:?} is not an IPv6 address"))?;
        (&name[..close + 2], rest[close + 1..].strip_prefix(':'))
    } else {
        match name.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (name, None),
        }
    };
    if let Some(port) = port {
        let n: u16 = port
            .parse()
            .map_err(|_| format!("port {port:?} is not a number"))?;
        if n == 80 || n == 443 {
            return Err(format!(
                "port {n} is a default port: name the folder {host:?}"
            ));
        }
    }
    if host.starts_with('[') {
        return Ok(());
    }
    if host.is_empty() || host.len() > 253 {
        return Err("not a host name".into());
    }
    if host.bytes().any(|b| b.is_ascii_uppercase()) {
        return Err(format!(
            "host folders are lower case: name it {:?}",
            name.to_ascii_lowercase()
        ));
    }
    let ok = host.split('.').all(|label| {
        !label.is_empty()
            && label.len() <= 63
            && label
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    });
    if !ok {
        return Err(
            "not a host name (letters, digits, '-' and '.', e.g. example.com or shop.example:8080)"
                .into(),
        );
    }
    Ok(())
}

/// Splits what follows `scheme://` in a URL into its authority (the host,
/// as written) and the rest (from the first `/`, `?` or `#`, or empty).
pub fn split_authority(after_scheme: &str) -> (&str, &str) {
    let end = after_scheme
        .find(['/', '?', '#'])
        .unwrap_or(after_scheme.len());
    after_scheme.split_at(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_as_reports_name_them() {
        assert_eq!(normalize_host(" Shop.Example. "), "shop.example");
        assert_eq!(normalize_host("Shop.Example:443"), "shop.example");
        assert_eq!(normalize_host("shop.example:80"), "shop.example");
        assert_eq!(normalize_host("shop.example:8080"), "shop.example:8080");
        assert_eq!(strip_default_port(b"a.example:443"), b"a.example");
        assert_eq!(strip_default_port(b"a.example:8443"), b"a.example:8443");
        assert_eq!(split_authority("a.example/x?y"), ("a.example", "/x?y"));
        assert_eq!(split_authority("a.example#f"), ("a.example", "#f"));
        assert_eq!(split_authority("a.example"), ("a.example", ""));
        assert!(check_host("Shop.Example:443").is_ok());
        assert!(check_host("shop example").is_err());
    }

    #[test]
    fn host_folder_names() {
        for ok in [
            "example.com",
            "shop.example:8080",
            "127.0.0.1",
            "[::1]:8443",
            "xn--bcher-kva.example",
            "localhost",
        ] {
            assert!(check_host_name(ok).is_ok(), "{ok}");
        }
        assert!(
            check_host_name("Example.com")
                .unwrap_err()
                .contains("lower case")
        );
        assert!(
            check_host_name("example.com:443")
                .unwrap_err()
                .contains("default port")
        );
        assert!(
            check_host_name("example.com:http")
                .unwrap_err()
                .contains("not a number")
        );
        assert!(
            check_host_name("exa mple.com")
                .unwrap_err()
                .contains("not a host name")
        );
        assert!(check_host_name("-bad-.com").is_err());
        assert!(check_host_name("[::1").is_err());
    }
}
