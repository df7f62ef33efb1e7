//! Editorial conventions a user sets against the model's: a page's comment section,
//! photo captions, bylines and dates, dropped (or captions, bylines and dates kept) whatever
//! the model says. The gold corpora disagree on these (docs/conventions.md), so the model
//! follows some corpora on each and a user picks the other side here.
//!
//! A section is an element of its kind that holds neither the start of the main text nor
//! its surest block (a wrapper named for comments around the story, or around its body
//! below the headline, as an opinion section's "tone-comment" is, is no comment section);
//! a block is in the section when its element or an ancestor is. `keep` keeps the
//! section's blocks that lie in the main text's container (the lowest element holding
//! every likely block of main-text length): the captions of the story's photos, not those
//! of a gallery in the sidebar.

use std::sync::OnceLock;

use regex::Regex;

use crate::blocks::{attr_flag, PageBlocks};
use crate::dom::View;

/// A likely block of at least this many tokens is main text (where it starts, and what
/// the main container holds).
pub const MAIN_START_TOKENS: usize = 10;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rule {
    /// the model decides
    #[default]
    Auto,
    Drop,
    Keep,
}

/// The kinds of section, in the order of `Conventions::rules`.
pub const KINDS: [&str; 4] = ["comments", "captions", "bylines", "dates"];
/// The section index of a block that `records=keep` brought in (after `KINDS`'s).
pub const RECORDS: usize = KINDS.len();
/// The section index of a block that `listings=keep` brought in.
pub const LISTINGS: usize = KINDS.len() + 1;
/// The section index of a block that `slideshows=drop` took out.
pub const SLIDESHOWS: usize = KINDS.len() + 2;
/// The section index of a block that `consent=drop` took out.
pub const CONSENT: usize = KINDS.len() + 3;
/// The section index of a block that `articles=keep` brought in.
pub const ARTICLES: usize = KINDS.len() + 4;
/// The section index of a block that `teasers=drop` took out.
pub const TEASERS: usize = KINDS.len() + 5;
/// The section index of a block that `unseen=keep` brought in.
pub const UNSEEN: usize = KINDS.len() + 6;
/// The section index of a block that `notices=drop` took out.
pub const NOTICES: usize = KINDS.len() + 7;
/// The section index of a block that `choices=drop` took out.
pub const CHOICES: usize = KINDS.len() + 8;
/// The section index of a block that `reviews=drop` took out.
pub const REVIEWS: usize = KINDS.len() + 9;
/// The section index of a block that `dialogs=drop` took out.
pub const DIALOGS: usize = KINDS.len() + 10;
/// The section index of a block that `hidden=drop` took out.
pub const HIDDEN: usize = KINDS.len() + 11;

/// The name of what decided a block against the model: a `KINDS` entry, `records`,
/// `listings`, `slideshows`, `consent`, `articles`, `teasers`, `unseen`, `notices`,
/// `choices`, `reviews`, `dialogs` or `hidden`.
pub fn decided_by(k: usize) -> &'static str {
    match k {
        RECORDS => "records",
        LISTINGS => "listings",
        SLIDESHOWS => "slideshows",
        CONSENT => "consent",
        ARTICLES => "articles",
        TEASERS => "teasers",
        UNSEEN => "unseen",
        NOTICES => "notices",
        CHOICES => "choices",
        REVIEWS => "reviews",
        DIALOGS => "dialogs",
        HIDDEN => "hidden",
        _ => KINDS[k],
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Conventions {
    /// one rule per `KINDS` entry
    pub rules: [Rule; 4],
    /// `records=keep`: records alike to the main text's are kept as it is
    /// (`records::propagate`); `auto` leaves them to the model
    pub records: bool,
    /// `listings=keep`: a page whose kept text holds no prose keeps its listing's records
    /// (`records::listing`); `auto` leaves them to the model
    pub listings: bool,
    /// `slideshows=drop`: a numbered slideshow beside the main text is dropped
    /// (`slideshow::beside_main`); `auto` leaves it to the model
    pub slideshows: bool,
    /// `consent=drop`: a cookie-consent dialog's text is dropped
    /// (`PageBlocks::in_consent_dialog`); `auto` leaves it to the model
    pub consent: bool,
    /// `articles=keep`: where the kept text holds no prose, the prose of the `<article>`
    /// holding the main block is kept (`article::prose`); `auto` leaves it to the model
    pub articles: bool,
    /// `teasers=drop`: a stream of headline + teaser records beside a declared story is
    /// dropped (`teasers::beside_story`); `auto` leaves it to the model
    pub teasers: bool,
    /// `unseen=keep`: on a page unlike every page the model trained on, where the model is
    /// unsure of what it keeps, the blocks between kept ones that it half-believes are
    /// kept (`unseen::fill`); `auto` leaves them to the model
    pub unseen: bool,
    /// `notices=drop`: a block whose whole text is an advertising label ("Advertisement",
    /// "Sponsored", "Anzeige"), or a copyright notice in the page's footer, is dropped
    /// (`PageBlocks::notices`); `auto` leaves it to the model
    pub notices: bool,
    /// `choices=drop`: the options of a drop-down list (`<select>`) are dropped
    /// (`PageBlocks::in_choice_list`); `auto` leaves them to the model
    pub choices: bool,
    /// `reviews=drop`: a product's customer reviews are dropped
    /// (`sections::product_reviews`); `auto` leaves them to the model
    pub reviews: bool,
    /// `dialogs=drop`: a modal dialog's text is dropped (`sections::modal_dialogs`); `auto`
    /// leaves it to the model
    pub dialogs: bool,
    /// `hidden=drop`: text a hiding utility class hides (`hide`, `d-none`) is dropped
    /// (`sections::hidden_by_class`); `auto` leaves it to the model
    pub hidden: bool,
}

impl Conventions {
    /// From `(kind, rule)` pairs: kinds of `KINDS`, rules `auto`, `drop` or `keep`
    /// (comments: `auto` or `drop`), `records`, `listings`, `articles` and `unseen`: `keep`
    /// or `auto`, and `slideshows`, `consent`, `teasers`, `notices`, `choices`, `reviews`,
    /// `dialogs` and `hidden`: `drop` or `auto`.
    pub fn parse<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self, String> {
        let mut c = Conventions::default();
        for (kind, rule) in pairs {
            // the on/off switches: the rule that turns each on, or `auto`
            let switch = match kind {
                "records" => Some((&mut c.records, "keep")),
                "listings" => Some((&mut c.listings, "keep")),
                "slideshows" => Some((&mut c.slideshows, "drop")),
                "consent" => Some((&mut c.consent, "drop")),
                "articles" => Some((&mut c.articles, "keep")),
                "teasers" => Some((&mut c.teasers, "drop")),
                "unseen" => Some((&mut c.unseen, "keep")),
                "notices" => Some((&mut c.notices, "drop")),
                "choices" => Some((&mut c.choices, "drop")),
                "reviews" => Some((&mut c.reviews, "drop")),
                "dialogs" => Some((&mut c.dialogs, "drop")),
                "hidden" => Some((&mut c.hidden, "drop")),
                _ => None,
            };
            if let Some((on, word)) = switch {
                *on = match rule {
                    "auto" => false,
                    r if r == word => true,
                    _ => return Err(format!("{kind}={rule}: use {word} or auto")),
                };
                continue;
            }
            let Some(k) = KINDS.iter().position(|&x| x == kind) else {
                return Err(format!(
                    "unknown convention {kind:?}: use one of {}, records, listings, slideshows, consent, articles, teasers, unseen, notices, choices, reviews, dialogs, hidden",
                    KINDS.join(", ")
                ));
            };
            c.rules[k] = match (rule, k) {
                ("auto", _) => Rule::Auto,
                ("drop", _) => Rule::Drop,
                ("keep", 1..) => Rule::Keep,
                _ => {
                    let allowed = if k == 0 {
                        "auto or drop"
                    } else {
                        "auto, drop or keep"
                    };
                    return Err(format!("{kind}={rule}: use {allowed}"));
                }
            };
        }
        Ok(c)
    }

    /// Does any section rule speak against the model (`records`, `listings`,
    /// `slideshows`, `consent`, `articles`, `teasers`, `unseen`, `notices`, `choices`,
    /// `reviews`, `dialogs` and `hidden` aside)?
    pub fn any(&self) -> bool {
        self.rules.iter().any(|&r| r != Rule::Auto)
    }
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

/// The kinds (bits of `KINDS` indices) among `wanted` that view element `v` is a section
/// of, by its tag and names (class, id, itemprop, rel; lowercased, read once).
fn kinds_of(view: &View, v: usize, wanted: &[usize], comment_flag: bool) -> u8 {
    let el = &view.elems[v];
    let names = ["class", "id", "itemprop", "rel"]
        .iter()
        .filter_map(|a| el.get(a))
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join(" ");
    let mut bits = 0u8;
    for &k in wanted {
        let hit = match k {
            0 => comment_flag,
            1 => el.tag == "figcaption" || caption_name().is_match(&names),
            2 => byline_name().is_match(&names),
            _ => date_name().is_match(&names),
        };
        if hit {
            bits |= 1 << k;
        }
    }
    bits
}

/// Per block: the convention that decides it, if any (an index of `KINDS`), and then
/// whether it is content. Blocks no convention speaks for are `None`. (`prob`: each
/// block's probability, which picks the surest block.)
pub fn apply(
    pb: &PageBlocks,
    view: &View,
    likely: &[bool],
    prob: &[f64],
    conventions: Conventions,
) -> Vec<Option<(usize, bool)>> {
    let n_el = pb.parent.len();
    let mut out = vec![None; likely.len()];
    if !conventions.any() {
        return out;
    }
    let main: Vec<usize> = (0..likely.len())
        .filter(|&b| likely[b] && pb.tokens[b] >= MAIN_START_TOKENS)
        .collect();
    let first_likely = (0..likely.len()).find(|&b| likely[b]);
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
        let mut e = pb.elem[b] as i64;
        while e >= 0 {
            holds[e as usize] = true;
            e = pb.parent[e as usize];
        }
    }
    let container = main_container(pb, &main);
    let comment = attr_flag("comment");
    let wanted: Vec<usize> = (0..KINDS.len())
        .filter(|&k| conventions.rules[k] != Rule::Auto)
        .collect();
    let in_main = container.map_or_else(|| vec![false; n_el], |c| pb.subtree(c));
    // inside[e]: the kinds e or an ancestor is a section of (elements come in preorder,
    // parents first)
    let mut inside = vec![0u8; n_el];
    for e in 0..n_el {
        let up = pb.parent[e];
        let own = if holds[e] {
            0
        } else {
            kinds_of(
                view,
                view.preorder[e] as usize,
                &wanted,
                pb.flags[e] & comment != 0,
            )
        };
        inside[e] = own | if up >= 0 { inside[up as usize] } else { 0 };
    }
    for (b, &e) in pb.elem.iter().enumerate() {
        // the first kind, in KINDS order, whose rule decides the block
        out[b] = wanted.iter().find_map(|&k| match conventions.rules[k] {
            _ if inside[e] & (1 << k) == 0 => None,
            Rule::Drop => Some((k, false)),
            Rule::Keep if in_main[e] => Some((k, true)),
            _ => None,
        });
    }
    out
}

/// The lowest element that holds every main-text block and is not one of them (None
/// without one).
fn main_container(pb: &PageBlocks, main: &[usize]) -> Option<usize> {
    let lowest = pb.lowest_common(main.iter().map(|&b| pb.elem[b]))?;
    // one main block: its own element holds nothing beside it, so its parent contains
    if main.iter().any(|&b| pb.elem[b] == lowest) && pb.parent[lowest] >= 0 {
        Some(pb.parent[lowest] as usize)
    } else {
        Some(lowest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::walk;
    use crate::dom::build_view;
    use crate::parse::parse;

    #[test]
    fn rules_parse_and_bad_ones_are_refused() {
        let c = Conventions::parse([("captions", "keep"), ("comments", "drop")]).unwrap();
        assert_eq!(c.rules, [Rule::Drop, Rule::Keep, Rule::Auto, Rule::Auto]);
        assert!(!Conventions::default().any() && c.any());
        assert!(Conventions::parse([("comments", "keep")]).is_err());
        assert!(Conventions::parse([("tweets", "drop")]).is_err());
        assert!(Conventions::parse([("dates", "sometimes")]).is_err());
        let r = Conventions::parse([("records", "keep")]).unwrap();
        assert!(r.records && !r.any() && !Conventions::default().records);
        assert!(Conventions::parse([("records", "drop")]).is_err());
        let l = Conventions::parse([("listings", "keep")]).unwrap();
        assert!(l.listings && !l.records && !l.any() && !Conventions::default().listings);
        assert!(Conventions::parse([("listings", "drop")]).is_err());
        let s = Conventions::parse([("slideshows", "drop")]).unwrap();
        assert!(s.slideshows && !s.any() && !Conventions::default().slideshows);
        assert!(Conventions::parse([("slideshows", "keep")]).is_err());
        let k = Conventions::parse([("consent", "drop")]).unwrap();
        assert!(k.consent && !k.slideshows && !k.any() && !Conventions::default().consent);
        assert!(Conventions::parse([("consent", "keep")]).is_err());
        let a = Conventions::parse([("articles", "keep")]).unwrap();
        assert!(a.articles && !a.any() && !Conventions::default().articles);
        assert!(Conventions::parse([("articles", "drop")]).is_err());
        let t = Conventions::parse([("teasers", "drop")]).unwrap();
        assert!(t.teasers && !t.any() && !Conventions::default().teasers);
        assert!(Conventions::parse([("teasers", "keep")]).is_err());
        assert_eq!(decided_by(TEASERS), "teasers");
        let u = Conventions::parse([("unseen", "keep")]).unwrap();
        assert!(u.unseen && !u.any() && !Conventions::default().unseen);
        assert!(Conventions::parse([("unseen", "drop")]).is_err());
        assert_eq!(decided_by(UNSEEN), "unseen");
        let d = Conventions::parse([("notices", "drop")]).unwrap();
        assert!(d.notices && !d.any() && !Conventions::default().notices);
        assert!(Conventions::parse([("notices", "keep")]).is_err());
        assert_eq!(decided_by(NOTICES), "notices");
        let o = Conventions::parse([("choices", "drop")]).unwrap();
        assert!(o.choices && !o.any() && !Conventions::default().choices);
        assert!(Conventions::parse([("choices", "keep")]).is_err());
        assert_eq!(decided_by(CHOICES), "choices");
        for (kind, k) in [
            ("reviews", REVIEWS),
            ("dialogs", DIALOGS),
            ("hidden", HIDDEN),
        ] {
            let c = Conventions::parse([(kind, "drop")]).unwrap();
            assert!(!c.any() && c != Conventions::default());
            assert!(Conventions::parse([(kind, "keep")]).is_err());
            assert_eq!(decided_by(k), kind);
        }
        let all =
            Conventions::parse([("reviews", "drop"), ("dialogs", "drop"), ("hidden", "drop")])
                .unwrap();
        assert!(all.reviews && all.dialogs && all.hidden);
        assert_eq!(
            (
                decided_by(0),
                decided_by(RECORDS),
                decided_by(LISTINGS),
                decided_by(SLIDESHOWS),
                decided_by(CONSENT),
                decided_by(ARTICLES)
            ),
            (
                "comments",
                "records",
                "listings",
                "slideshows",
                "consent",
                "articles"
            )
        );
    }

    #[test]
    fn drop_and_keep_decide_sections_outside_the_main_start() {
        let html = "<div class='story'><p class='byline'>By A. Writer</p>\
                    <p>The story starts here with words enough to be main text.</p>\
                    <figure><figcaption>A photo of the quay</figcaption></figure></div>\
                    <aside><p class='photo-credit'>Gallery credit line</p></aside>";
        let a = parse(html);
        let view = build_view(&a, a.html_child("body").unwrap());
        let pb = walk(&view, None, None);
        let texts: Vec<&str> = pb.text.iter().map(String::as_str).collect();
        let at = |t: &str| texts.iter().position(|x| x.starts_with(t)).unwrap();
        let mut likely = vec![false; pb.text.len()];
        likely[at("The story")] = true;
        let c = Conventions::parse([("captions", "keep"), ("bylines", "drop")]).unwrap();
        let got = apply(&pb, &view, &likely, &vec![0.9; likely.len()], c);
        assert_eq!(got[at("By A.")], Some((2, false)));
        assert_eq!(got[at("A photo")], Some((1, true))); // in the story's container
        assert_eq!(got[at("Gallery")], None); // a caption outside it: the model's call
        assert_eq!(got[at("The story")], None);
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
        let a = parse(html);
        let view = build_view(&a, a.html_child("body").unwrap());
        let pb = walk(&view, None, None);
        let texts: Vec<&str> = pb.text.iter().map(String::as_str).collect();
        let at = |t: &str| texts.iter().position(|x| x.starts_with(t)).unwrap();
        let likely = vec![true; texts.len()];
        // the model believes the body most, and the long comment a little
        let prob: Vec<f64> = texts
            .iter()
            .map(|t| if t.starts_with("The body") { 0.95 } else { 0.6 })
            .collect();
        let c = Conventions::parse([("comments", "drop")]).unwrap();
        let got = apply(&pb, &view, &likely, &prob, c);
        assert_eq!(got[at("The body")], None);
        assert_eq!(got[at("A second")], None);
        assert_eq!(got[at("A reader")], Some((0, false)));
    }
}
