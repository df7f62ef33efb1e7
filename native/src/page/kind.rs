//! What kind of page this is, from what means the same on every site: its URL's
//! conventions, its declarations (`og:type`, JSON-LD `@type`s) and the software that made
//! it (`<meta name="generator">`).
//!
//! The model learnt from corpora of stories, where posts in a comment container are noise.
//! On a forum thread they are the page: forum software names the container of a thread's
//! posts `replies`, `comments` or `js-replyNewMessageContainer`, as a blog names its
//! comments. Names cannot tell the two apart; the page's kind can.

use std::sync::OnceLock;

use regex::Regex;

use crate::page::declared::Declared;

/// The page's kind, as far as rules after the model need it.
#[derive(Default, Debug, Clone, PartialEq, Eq)]
pub(crate) struct PageKind {
    /// a discussion: a forum thread, a question and its answers
    pub(crate) forum: bool,
    /// a story: the page declares itself one (`og:type` `article`, a JSON-LD `Article`)
    pub(crate) story: bool,
    /// a product: the page declares one (`og:type` `product`, a JSON-LD `Product` or
    /// `ProductGroup`) and no story (an editorial review declares the product it reviews)
    pub(crate) product: bool,
}

/// Hosts that are forums by name (`forum.`, `forums.`, `community.`, `discuss.`, `bbs.`),
/// or whose name ends in one (`warriorforum.com`, `macrumorsforums.com`; not
/// `forumdaily.com`).
fn forum_host_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i)^(community|communities|discuss|discussions?|bbs|boards?)\.|(^|\.)[a-z0-9-]*forums?\.",
        )
        .unwrap()
    })
}

/// Path segments of forum software (XenForo `/threads/`, Discourse `/t/`, phpBB
/// `viewtopic.php`, vBulletin `showthread.php`, Invision `/topic/`, Q&A `/questions/`).
fn forum_path_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i)/(forums?|threads?|topics?|discussions?|t|questions|viewtopic\.php|showthread\.php|showtopic\.php)(/|$)",
        )
        .unwrap()
    })
}

/// Forum software as its generator meta names it.
fn forum_generator_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i)\b(xenforo|vbulletin|phpbb|discourse|invision|mybb|simple machines|smf|vanilla|flarum|nodebb|bbpress|punbb|fluxbb|yabb)\b",
        )
        .unwrap()
    })
}

/// schema.org's kinds of discussion page.
const FORUM_TYPES: &[&str] = &["DiscussionForumPosting", "QAPage"];

impl PageKind {
    /// The kind of the page parsed into `a`, served from `url`.
    #[cfg(test)]
    pub(crate) fn read(a: &crate::read::parse::Arena, url: Option<&str>) -> PageKind {
        PageKind::of(&Declared::read(a), url)
    }

    /// The kind of a page of these declarations, served from `url`.
    pub(crate) fn of(declared: &Declared, url: Option<&str>) -> PageKind {
        let by_url = url
            .and_then(crate::urls::url_parts)
            .is_some_and(|(netloc, path)| {
                let host = netloc.rsplit('@').next().unwrap_or("");
                forum_host_re().is_match(host) || forum_path_re().is_match(&path)
            });
        let by_type = declared
            .ld_types
            .iter()
            .any(|t| FORUM_TYPES.contains(&t.as_str()));
        let by_generator = declared
            .generator
            .as_deref()
            .is_some_and(|g| forum_generator_re().is_match(g));
        PageKind {
            forum: by_url || by_type || by_generator,
            story: declared.story(),
            product: declared.product() && !declared.story(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::parse::parse;

    fn kind(head: &str, url: Option<&str>) -> PageKind {
        PageKind::read(
            &parse(&format!(
                "<html><head>{head}</head><body><p>x</p></body></html>"
            )),
            url,
        )
    }

    #[test]
    fn a_forum_is_told_by_its_url_its_declared_type_or_its_software() {
        for url in [
            "https://forums.example.com/index.php?x=1",
            "https://www.example.com/threads/a-question.123/",
            "https://example.org/t/help-me/12345",
            "http://example.net/board/viewtopic.php?t=9",
            "https://community.example.com/travel/japan",
            "https://www.warriorforum.com/beginners-area/1488296-will-it-work.html",
        ] {
            assert!(kind("", Some(url)).forum, "{url}");
        }
        assert!(kind("<meta name='generator' content='XenForo 2.2'>", None).forum);
        assert!(
            kind(
                "<script type='application/ld+json'>{\"@type\": \"DiscussionForumPosting\"}</script>",
                None
            )
            .forum
        );
    }

    #[test]
    fn a_prepared_page_knows_its_kind() {
        let html = "<html><body><h1>Starter</h1><p>Feed it.</p></body></html>";
        let url = "https://forums.example.com/threads/starter.1/";
        let p = crate::clean::pipeline::prepare(html, Some(url), false, true).unwrap();
        assert!(p.pb.kind.forum);
        let p = crate::clean::pipeline::prepare(html, None, false, true).unwrap();
        assert!(!p.pb.kind.forum);
    }

    #[test]
    fn a_story_is_no_forum() {
        for url in [
            "https://www.example.com/2024/05/a-story.html",
            "https://news.example.com/topic-of-the-day/story",
            "https://example.com/tutorials/threads-in-rust",
            "https://www.forumdaily.com/en/a-story/",
            "https://example.forum/2024/a-story",
            "not a url",
        ] {
            assert!(!kind("", Some(url)).forum, "{url}");
        }
        assert!(!kind("<meta name='generator' content='WordPress 6.4'>", None).forum);
        assert!(!kind("", None).forum);
    }

    #[test]
    fn a_product_is_told_by_its_declarations_and_a_review_story_is_none() {
        let ld =
            |t: &str| format!("<script type='application/ld+json'>{{\"@type\": \"{t}\"}}</script>");
        assert!(kind(&ld("Product"), None).product);
        assert!(kind(&ld("ProductGroup"), None).product);
        assert!(kind("<meta property='og:type' content='product'>", None).product);
        assert!(!kind(&ld("Organization"), None).product);
        // an editorial review declares the product it reviews, and itself a story
        let review = format!("{}{}", ld("Product"), ld("NewsArticle"));
        let k = kind(&review, None);
        assert!(k.story && !k.product);
    }
}
