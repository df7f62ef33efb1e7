//! What a page declares of itself: its Open Graph `og:type`, the `@type`s of its JSON-LD
//! and the software that made it (`<meta name="generator">`).
//!
//! These declarations mean the same on every site (schema.org's vocabulary, a product's
//! own name), so a rule after the model can lean on them where the model, trained on other
//! corpora, has not learnt a site's markup.
//!
//! Only the type names are read: a regular expression over each `application/ld+json`
//! script finds every `"@type"` value (a string or an array of strings), which costs one
//! linear scan of the script and no JSON tree. A truncated or malformed script declares
//! the names spelt out whole before the damage.

use std::sync::OnceLock;

use regex::Regex;

use crate::read::parse::{attr, Arena, Data, NodeId};

/// The page's declarations, as written (type names without a `schema.org/` prefix).
#[derive(Default, Debug, Clone, PartialEq, Eq)]
pub(crate) struct Declared {
    /// `<meta property="og:type" content=...>`, lowercased
    pub(crate) og_type: Option<String>,
    /// every JSON-LD `@type`, in order of first appearance
    pub(crate) ld_types: Vec<String>,
    /// the content of the first `<meta name="generator">`
    pub(crate) generator: Option<String>,
}

/// schema.org's kinds of article: a story, a post, a report.
pub(crate) const ARTICLE_TYPES: &[&str] = &[
    "Article",
    "NewsArticle",
    "BlogPosting",
    "LiveBlogPosting",
    "ReportageNewsArticle",
    "AnalysisNewsArticle",
    "OpinionNewsArticle",
    "BackgroundNewsArticle",
    "ReviewNewsArticle",
    "ScholarlyArticle",
    "Report",
];

fn type_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r#""@type"\s*:\s*(\[[^\]]*\]|"[^"]*")"#).unwrap())
}

fn name_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r#""([^"]*)""#).unwrap())
}

impl Declared {
    /// The declarations anywhere in the document (JSON-LD sits in the head or the body).
    pub(crate) fn read(a: &Arena) -> Declared {
        let mut out = Declared::default();
        for i in a.descendants(NodeId::DOCUMENT) {
            match a.tag(i) {
                Some("meta") => {
                    let attrs = a.attrs(i);
                    let og_type = attr(attrs, "property")
                        .or_else(|| attr(attrs, "name"))
                        .is_some_and(|p| p.trim().eq_ignore_ascii_case("og:type"));
                    if og_type && out.og_type.is_none() {
                        out.og_type = attr(attrs, "content").map(|c| c.trim().to_ascii_lowercase());
                    }
                    if out.generator.is_none()
                        && attr(attrs, "name")
                            .is_some_and(|n| n.trim().eq_ignore_ascii_case("generator"))
                    {
                        out.generator =
                            Some(attr(attrs, "content").unwrap_or("").trim().to_string());
                    }
                }
                Some("script")
                    if attr(a.attrs(i), "type")
                        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/ld+json")) =>
                {
                    out.read_ld(&script_text(a, i));
                }
                _ => {}
            }
        }
        out
    }

    /// Does the page declare itself a story or post: `og:type` `article` (or `blog`, which
    /// older blog platforms put on every post), or one of schema.org's kinds of `Article`?
    pub(crate) fn story(&self) -> bool {
        matches!(self.og_type.as_deref(), Some("article" | "blog"))
            || self
                .ld_types
                .iter()
                .any(|t| ARTICLE_TYPES.contains(&t.as_str()))
    }

    /// Does the page declare a product: `og:type` `product` (`og:product`,
    /// `product.item`), or a schema.org `Product` or `ProductGroup`?
    pub(crate) fn product(&self) -> bool {
        self.og_type
            .as_deref()
            .is_some_and(|t| t.contains("product"))
            || self
                .ld_types
                .iter()
                .any(|t| t == "Product" || t == "ProductGroup")
    }

    fn read_ld(&mut self, json: &str) {
        for m in type_re().captures_iter(json) {
            for n in name_re().captures_iter(&m[1]) {
                let name = n[1].trim().rsplit('/').next().unwrap_or("");
                if !name.is_empty() && !self.ld_types.iter().any(|t| t == name) {
                    self.ld_types.push(name.to_string());
                }
            }
        }
    }
}

/// A script element's text (its text children, as the parser left them).
fn script_text(a: &Arena, i: NodeId) -> String {
    let mut text = String::new();
    for c in a.children(i) {
        if let Data::Text(t) = &a[c].data {
            text.push_str(t);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::parse::parse;

    fn declared(head: &str, body: &str) -> Declared {
        Declared::read(&parse(&format!(
            "<html><head>{head}</head><body>{body}</body></html>"
        )))
    }

    #[test]
    fn json_ld_types_and_the_generator_are_read_wherever_they_are() {
        let d = declared(
            "<meta name='Generator' content=' XenForo 2.2 '>\
             <meta name='generator' content='second'>\
             <script type='application/ld+json'>{\"@context\": \"https://schema.org\", \
             \"@graph\": [{\"@type\": \"WebPage\"}, {\"@type\": [\"Organization\", \
             \"https://schema.org/LocalBusiness\"]}]}</script>",
            "<script type='application/ld+json'>{\"@type\":\"Service\",\"name\":\"@type\"}</script>",
        );
        assert_eq!(d.generator.as_deref(), Some("XenForo 2.2"));
        assert!(!d.story());
        assert_eq!(
            d.ld_types,
            ["WebPage", "Organization", "LocalBusiness", "Service"]
        );
    }

    #[test]
    fn other_scripts_and_a_truncated_one_declare_what_they_spell_out() {
        let d = declared(
            "<script type='text/javascript'>var x = {\"@type\": \"NewsArticle\"};</script>\
             <script type='application/ld+json'>{\"@type\": \"Product\", \"offers\": {\"@type\": [\"Off</script>",
            "",
        );
        assert_eq!(d.ld_types, ["Product"]);
        assert!(!d.story());
        assert_eq!(declared("", "<p>text</p>"), Declared::default());
    }

    #[test]
    fn a_story_is_declared_by_og_type_or_by_an_article_type() {
        let d = declared("<meta property='og:type' content=' Article '>", "");
        assert_eq!(d.og_type.as_deref(), Some("article"));
        assert!(d.story());
        assert!(declared(
            "",
            "<script type='application/ld+json'>[{\"@type\": \"NewsArticle\"}]</script>"
        )
        .story());
        assert!(!declared("<meta property='og:type' content='website'>", "").story());
    }
}
