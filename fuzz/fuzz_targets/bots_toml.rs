//! Fuzz `--bots` catalogue files: any bytes as TOML.
#![no_main]

use crawlaudit::bots::Catalogue;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(catalogue) = Catalogue::from_toml(text, "bots.toml") {
        // Every crawler can be found by its name, and identifying a user
        // agent made of its first token finds a crawler.
        for crawler in catalogue.crawlers() {
            assert!(catalogue.by_name(crawler.name()).is_some());
            if let Some(token) = crawler.tokens().first() {
                let _ = catalogue.identify(format!("Mozilla/5.0 (compatible; {token}/1.0)").as_bytes());
            }
        }
    }
});
