//! `comments`, `captions`, `bylines`, `dates` (editorial, `auto` by default): a page's
//! comment section, photo captions, bylines and dates, dropped (or captions, bylines and
//! dates kept) whatever the model says.
//!
//! **What.** A section of a kind is an element named for it that holds neither the start of
//! the main text (the first likely block of `MAIN_START_TOKENS`) nor its surest block of
//! that length; a block is in the section when its element or an ancestor is. Comments are
//! named by class, id, role or itemprop (the keyword groups' comment group); captions by
//! `<figcaption>` or a class, id, itemprop or rel naming a caption or credit; bylines by one
//! naming a byline or an author; dates by one naming a date, dateline, timestamp or the
//! published or updated time. `drop` drops every block of the kind's sections; `keep` keeps
//! those that lie in the main text's container (the lowest element holding every likely
//! block of main-text length). A block in sections of two kinds is the first kind's, in the
//! table's order.
//!
//! `comments=stories`, the default, drops the comment section of a page that declares a
//! story (`og:type` `article`, a JSON-LD `Article`) and is no discussion (a forum thread, a
//! question and its answers: `PageKind::forum`); elsewhere the model decides.
//!
//! **Why.** The gold corpora disagree on these (docs/conventions.md), so the model follows
//! some corpora on each and a user picks the other side here. On comments seven of the
//! eight leave a story's reader comments out, and a page declaring a story says what its
//! main content is: schema.org gives an `Article` its `comment`s apart from its body. A
//! model that never saw dragnet's pages keeps them, having learnt from cleaneval's
//! undeclared blog pages, whose gold keeps all running text (docs/lab/loco.md, "Reader
//! comments on a page declaring a story"). A section never holds where
//! the main text starts: a wrapper named for comments around the story, or around its body
//! below the headline, as an opinion section's "tone-comment" is, is no comment section.
//!
//! **Example.** `captions=keep` keeps the captions of the story's photos, not those of a
//! gallery in the sidebar; `comments=drop` removes a story's reader comments (and a forum's
//! posts in containers so named: that is what the option asks for).
//!
//! **Switch.** `comments=stories` is the default, the other kinds `auto` (the model
//! decides); `comments=auto|drop|separate`, `captions=drop|keep`, `bylines=drop|keep`,
//! `dates=drop|keep` set them against the model.

use std::sync::OnceLock;

use regex::Regex;

use super::{Context, Setting};
use crate::page::blocks::{attr_flag, BlockId, ElemId, PageBlocks};
use crate::read::dom::View;

/// A likely block of at least this many tokens is main text (where it starts, and what
/// the main container holds).
pub(super) const MAIN_START_TOKENS: usize = 10;

/// `comments`: a comment section, named so by class, id, role or itemprop; with `stories`
/// only on a page that declares a story and is no discussion (`PageKind`).
pub(super) fn comments(cx: &Context, setting: Setting) -> Option<Vec<bool>> {
    let kind = &cx.pb.kind;
    if setting == Setting::Stories && (!kind.story || kind.forum) {
        return None;
    }
    let comment = attr_flag("comment");
    sections(cx, setting, |e| cx.pb.flags[e] & comment != 0)
}

/// `captions`: a `<figcaption>`, or an element named for a caption or a credit.
pub(super) fn captions(cx: &Context, setting: Setting) -> Option<Vec<bool>> {
    sections(cx, setting, |e| {
        cx.view[cx.view.preorder[e]].tag == "figcaption"
            || caption_name().is_match(&names(cx.view, e))
    })
}

/// `bylines`: an element named for a byline or an author.
pub(super) fn bylines(cx: &Context, setting: Setting) -> Option<Vec<bool>> {
    sections(cx, setting, |e| byline_name().is_match(&names(cx.view, e)))
}

/// `dates`: an element named for a date, a dateline, a timestamp, the published or updated
/// time.
pub(super) fn dates(cx: &Context, setting: Setting) -> Option<Vec<bool>> {
    sections(cx, setting, |e| date_name().is_match(&names(cx.view, e)))
}

fn caption_name() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"caption|credit").unwrap())
}

fn byline_name() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"byline|author").unwrap())
}

fn date_name() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(^|[^a-z])(date|dateline|datetime|timestamp|pubdate|published|updated)")
            .unwrap()
    })
}

/// An element's names as the kinds read them: class, id, itemprop and rel, lowercased.
fn names(view: &View, e: ElemId) -> String {
    let el = &view[view.preorder[e]];
    ["class", "id", "itemprop", "rel"]
        .iter()
        .filter_map(|a| el.get(a))
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The blocks `setting` decides in the sections of one kind (`section`: is element `e`
/// named for it?) on the kept text `cx.kept`: with `drop` every block of a section, with
/// `keep` those in the main text's container. (`cx.prob` picks the surest block.)
fn sections(cx: &Context, setting: Setting, section: impl Fn(ElemId) -> bool) -> Option<Vec<bool>> {
    let (pb, likely, prob) = (cx.pb, cx.kept, cx.prob);
    let n_el = pb.parent.len();
    let main: Vec<BlockId> = BlockId::all(likely.len())
        .filter(|&b| likely[b] && pb.tokens[b] >= MAIN_START_TOKENS)
        .collect();
    let first_likely = BlockId::all(likely.len()).find(|&b| likely[b]);
    let start = main.first().copied().or(first_likely);
    // no section holds where the main text starts, nor its surest block of main-text
    // length (the first on a tie): a story's body in a wrapper named "tone-comment" holds
    // it, where a long comment the model half believes does not
    let surest = main
        .iter()
        .copied()
        .max_by(|&a, &b| prob[a].total_cmp(&prob[b]).then(b.cmp(&a)));
    let mut holds = vec![false; n_el];
    for b in start.into_iter().chain(surest) {
        for e in pb.self_and_ancestors(pb.elem[b]) {
            holds[e] = true;
        }
    }
    let inside = pb.under(|e| !holds[e] && section(e));
    let in_main = match setting {
        Setting::Keep => {
            main_container(pb, &main).map_or_else(|| vec![false; n_el], |c| pb.subtree(c))
        }
        _ => vec![true; n_el],
    };
    Some(pb.elem.iter().map(|&e| inside[e] && in_main[e]).collect())
}

/// The lowest element that holds every main-text block and is not one of them (None
/// without one).
fn main_container(pb: &PageBlocks, main: &[BlockId]) -> Option<ElemId> {
    let lowest = pb.lowest_common(main.iter().map(|&b| pb.elem[b]))?;
    // one main block: its own element holds nothing beside it, so its parent contains
    if main.iter().any(|&b| pb.elem[b] == lowest) {
        if let Some(up) = pb.parent[lowest] {
            return Some(up);
        }
    }
    Some(lowest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::read;

    /// The blocks each `(kind, setting)` decides of the page, on the kept text `likely`.
    fn decided<'a>(
        page: (&'a PageBlocks, &'a View),
        likely: &'a [bool],
        prob: &'a [f64],
        run: fn(&Context, Setting) -> Option<Vec<bool>>,
        setting: Setting,
    ) -> Vec<&'a str> {
        marked(page, likely, prob, run, setting).expect("the rule runs on the page")
    }

    /// As `decided`, None where the rule marks nothing on the page (off there).
    fn marked<'a>(
        (pb, view): (&'a PageBlocks, &'a View),
        likely: &'a [bool],
        prob: &'a [f64],
        run: fn(&Context, Setting) -> Option<Vec<bool>>,
        setting: Setting,
    ) -> Option<Vec<&'a str>> {
        let cx = Context {
            pb,
            view,
            prob,
            cut: 0.5,
            balanced: 0.5,
            novel: false,
            barred: &[],
            sure: &[],
            kept: likely,
        };
        run(&cx, setting).map(|v| crate::testing::kept(pb, &v))
    }

    #[test]
    fn drop_and_keep_decide_sections_outside_the_main_start() {
        let html = "<div class='story'><p class='byline'>By A. Writer</p>\
                    <p>The story starts here with words enough to be main text.</p>\
                    <figure><figcaption>A photo of the quay</figcaption></figure></div>\
                    <aside><p class='photo-credit'>Gallery credit line</p></aside>";
        let (pb, view) = read(html);
        let likely: Vec<bool> = pb.text.iter().map(|t| t.starts_with("The story")).collect();
        let prob = vec![0.9; likely.len()];
        let page = (&pb, &view);
        assert_eq!(
            decided(page, &likely, &prob, bylines, Setting::Drop),
            ["By A. Writer"]
        );
        // the caption in the story's container; one outside it is the model's call
        assert_eq!(
            decided(page, &likely, &prob, captions, Setting::Keep),
            ["A photo of the quay"]
        );
        assert_eq!(
            decided(page, &likely, &prob, captions, Setting::Drop),
            ["A photo of the quay", "Gallery credit line"]
        );
    }

    #[test]
    fn stories_drops_the_comments_of_a_page_declaring_a_story_and_no_discussion() {
        let body = "<body><article><h1>A post about the harbour, long enough to start</h1>\
                    <p>The post runs on about the quay and the boats that come in at dawn.</p>\
                    </article><ol class='comment-list'><li class='comment'>\
                    <p>A reader thanks the writer for the post and asks about the boats.</p>\
                    </li></ol></body>";
        let og = "<meta property='og:type' content='article'>";
        let run = |head: &str, forum: bool| {
            let (mut pb, view) = read(&format!("<html><head>{head}</head>{body}</html>"));
            pb.kind.forum = forum;
            let likely = vec![true; pb.text.len()];
            let prob = vec![0.9; likely.len()];
            marked((&pb, &view), &likely, &prob, comments, Setting::Stories)
                .map(|got| got.iter().map(|t| t.to_string()).collect::<Vec<_>>())
        };
        let got = run(og, false).expect("a declared story's comments");
        assert_eq!(got.len(), 1);
        assert!(got[0].starts_with("A reader thanks"));
        // a page declaring nothing, or a discussion (a thread's posts are its text): the
        // model's call
        assert_eq!(run("", false), None);
        assert_eq!(run(og, true), None);
    }

    #[test]
    fn a_wrapper_named_for_comments_around_the_body_is_no_comment_section() {
        // an opinion piece: the headline above, the body in a "tone-comment" wrapper
        let html = "<header><h1>The headline of an opinion piece, long enough to start</h1>\
                    </header><div class='tonal__main--tone-comment'>\
                    <p>The body of the piece runs on and on, with many more words than the \
                    headline has, and more words still, so that it is the main block.</p>\
                    <p>A second paragraph of the body.</p></div>\
                    <div class='comments'><p>A reader says the piece is wrong, at length: \
                    more words than any paragraph of the body, which the model half \
                    believes, and which makes it the block of most tokens on the page by \
                    far, as long comments under a short post are.</p></div>";
        let (pb, view) = read(html);
        let likely = vec![true; pb.text.len()];
        // the model believes the body most, and the long comment a little
        let prob: Vec<f64> = pb
            .text
            .iter()
            .map(|t| if t.starts_with("The body") { 0.95 } else { 0.6 })
            .collect();
        let got = decided((&pb, &view), &likely, &prob, comments, Setting::Drop);
        assert_eq!(got.len(), 1);
        assert!(got[0].starts_with("A reader says"));
    }
}
