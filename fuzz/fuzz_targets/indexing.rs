//! Fuzz X-Robots-Tag and HTML meta parsing: the input is used both as a
//! header value (lossy UTF-8) and as an HTML page.
#![no_main]

use crawlaudit::indexing::{PageRules, meta_tags};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut page = PageRules::default();
    page.add_header(&String::from_utf8_lossy(data));
    page.add_html(data);
    for names in [&["googlebot"][..], &["bingbot", "msnbot"], &[]] {
        let effective = page.effective(names);
        let _ = effective.to_json();
    }
    for tag in meta_tags(data) {
        assert_eq!(data[tag.offset], b'<');
    }
});
