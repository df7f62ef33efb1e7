//! The default cleaner's per-page path: parse, read the visible tree, show script-gated
//! content, walk the blocks, and (with a model) score and render them.

use foldhash::HashMap;

use crate::crawl::site::{block_keys, page_digest, Evidence};
use crate::model::forest::Forest;
use crate::model::novelty::{descriptor, Reference};
use crate::output::render::{render, OutBlock, Verdict};
use crate::output::structure::{Format, Options};
use crate::page::blocks::{tag_bits, walk, ElemId, PageBlocks};
use crate::page::context::context_features;
use crate::page::features::{ancestors, block_features, N_FEATURES};
use crate::read::dom::{base_href, build_view, title, View};
use crate::read::parse::{parse, Arena};
use crate::read::reveal::reveal;
use crate::rules::{self, Setting, Settings, COMMENTS, UNSEEN};

/// A page as the cleaner reads it: its visible tree (revealed where `reveal` applies), its
/// blocks, and the digest of the HTML it was served with (the site evidence's name for it).
pub(crate) struct Prepared {
    pub(crate) view: View,
    pub(crate) pb: PageBlocks,
    pub(crate) title: Option<String>,
    pub(crate) revealed: bool,
    pub(crate) digest: String,
    /// the page's URL and its `<base href>`: where its links resolve (`Prepared::base`)
    pub(crate) url: Option<String>,
    pub(crate) base_href: Option<String>,
    /// the evidence for the page's type (`page_type::features`, in `page_type::names`' order)
    pub(crate) page_features: Vec<f64>,
    /// what the last cleaning knew of its own extraction (`confidence::features`; empty
    /// before the page is cleaned)
    pub(crate) confidence: Vec<f64>,
    keys: Option<[Vec<u64>; 3]>,
}

impl Prepared {
    pub(crate) fn keys(&mut self) -> &[Vec<u64>; 3] {
        if self.keys.is_none() {
            self.keys = Some(block_keys(&self.pb, &self.view));
        }
        self.keys.as_ref().unwrap()
    }

    /// Where its links resolve: its URL and its `<base href>` (`structure`'s `base`).
    pub(crate) fn base(&self) -> (Option<&str>, Option<&str>) {
        (self.url.as_deref(), self.base_href.as_deref())
    }
}

/// A visible tree's content under `kept` in `format`, links and images resolved against
/// `base` (the page's URL and its `<base href>`; `structure::render`): a cleaned
/// page's (`render_page`), and another method's verdicts' (`render_html`).
pub(crate) fn structure(
    view: &View,
    base: (Option<&str>, Option<&str>),
    kept: &[Option<bool>],
    format: Format,
    links: bool,
    images: bool,
) -> String {
    let opts = Options::for_page(format, links, images, base.0, base.1);
    crate::output::structure::render(view, kept, &opts)
}

/// The first steps of every reading of a page: parse it and build its visible tree below
/// `<body>` (`prepare`, and `render_html`'s reading for another method's verdicts), calling
/// `mark` after each (parse, tree).
pub(crate) fn read_tree(
    html: &str,
    mark: &mut dyn FnMut(&'static str),
) -> Result<(Arena, View), String> {
    let arena = parse(html);
    mark("parse");
    let Some(body) = arena.html_child("body") else {
        return Err("no document body after parsing".to_string());
    };
    let view = build_view(&arena, body);
    mark("tree");
    Ok((arena, view))
}

/// Parse and read a page. `cut_title`: the HTML had an unclosed `<title>` that the caller
/// closed, so the title proper is its first line.
/// `show_hidden` false reads the page as served, without `reveal`.
pub(crate) fn prepare(
    html: &str,
    url: Option<&str>,
    cut_title: bool,
    show_hidden: bool,
) -> Result<Prepared, String> {
    prepare_marked(html, url, cut_title, show_hidden, &mut |_| {})
}

/// `prepare`, calling `mark` at the end of each stage (parse, tree, blocks, reveal,
/// page_type: the evidence for the page's type) for `stage_times`.
fn prepare_marked(
    html: &str,
    url: Option<&str>,
    cut_title: bool,
    show_hidden: bool,
    mark: &mut dyn FnMut(&'static str),
) -> Result<Prepared, String> {
    let (mut arena, mut view) = read_tree(html, mark)?;
    let mut t = title(&arena);
    if cut_title {
        t = t.map(|x| crate::text::strip(x.split('\n').next().unwrap_or("")).to_string());
        if t.as_deref() == Some("") {
            t = None;
        }
    }
    let mut pb = walk(&view, t.as_deref(), url);
    mark("blocks");
    let declared = crate::page::declared::Declared::read(&arena);
    let kind = crate::page::kind::PageKind::of(&declared, url);
    let mut revealed = false;
    if show_hidden && reveal(&mut arena, html, pb.tokens.iter().sum()) > 0 {
        if let Some(body) = arena.html_child("body") {
            view = build_view(&arena, body);
            pb = walk(&view, t.as_deref(), url);
            revealed = true;
        }
    }
    pb.kind = kind;
    mark("reveal");
    let page_features =
        crate::model::page_type::features(&arena, &declared, &pb, t.as_deref(), url);
    mark("page_type");
    let prepared = Prepared {
        view,
        pb,
        title: t,
        revealed,
        digest: page_digest(html),
        url: url.map(str::to_string),
        base_href: base_href(&arena),
        page_features,
        confidence: Vec::new(),
        keys: None,
    };
    Ok(prepared)
}

/// One two-stage pipeline of the model, with its per-fold forests in a held-out bundle.
pub(crate) struct Member {
    pub(crate) stage1: Forest,
    pub(crate) stage2: Forest,
    pub(crate) folds: Vec<(Forest, Forest)>,
    pub(crate) fold_of: HashMap<String, usize>,
}

impl Member {
    fn forests(&self, cv: Option<&str>) -> (&Forest, &Forest) {
        if let Some(f) = cv.and_then(|c| self.fold_of.get(c)) {
            if let Some((a, b)) = self.folds.get(*f) {
                return (a, b);
            }
        }
        (&self.stage1, &self.stage2)
    }
}

/// A model: its members and, where its file has one, the reference of its training pages
/// (`novelty`), which tells a page unlike all of them.
pub(crate) struct Model {
    pub(crate) members: Vec<Member>,
    pub(crate) novelty: Option<Reference>,
}

impl Model {
    /// Is the page of these features unlike every page the model trained on? For a page of
    /// a site a held-out bundle knows (`cv`), the training pages are those its members
    /// learnt that site's page from: the points of sites in the site's fold are left out.
    /// A model without a reference finds no page unlike its own.
    pub(crate) fn novel(&self, cv: Option<&str>, x: &[f64], ntok: &[f64]) -> bool {
        let Some(r) = &self.novelty else {
            return false;
        };
        // per member: the fold of the page's site, if the member knows the site
        let folds: Vec<(&HashMap<String, usize>, usize)> = self
            .members
            .iter()
            .filter_map(|m| Some((&m.fold_of, *cv.and_then(|c| m.fold_of.get(c))?)))
            .collect();
        // per site of the reference (not per point): is it in the page's fold of a member?
        let left_out: Vec<bool> = if folds.is_empty() {
            Vec::new()
        } else {
            r.sites()
                .iter()
                .map(|s| folds.iter().any(|(of, f)| of.get(s.as_str()) == Some(f)))
                .collect()
        };
        r.novel(&descriptor(x, ntok), &|s| left_out.get(s) == Some(&true))
    }
}

pub(crate) fn features(
    p: &mut Prepared,
    evidence: Option<&Evidence>,
) -> (Vec<f64>, Vec<f64>, Vec<[Option<ElemId>; 6]>) {
    features_marked(p, evidence, &mut |_| {})
}

/// `features`, calling `mark` after the site's shares (site) and the features (features).
fn features_marked(
    p: &mut Prepared,
    evidence: Option<&Evidence>,
    mark: &mut dyn FnMut(&'static str),
) -> (Vec<f64>, Vec<f64>, Vec<[Option<ElemId>; 6]>) {
    let site = match evidence {
        Some(ev) => {
            let digest = p.digest.clone();
            let keys = p.keys();
            Some(ev.shares(&digest, keys))
        }
        None => None,
    };
    mark("site");
    let x = block_features(&p.pb, site.as_ref());
    let n = p.pb.text.len();
    let ntok: Vec<f64> = (0..n).map(|i| x[i * N_FEATURES].exp_m1().round()).collect();
    let anc = ancestors(&p.pb);
    mark("features");
    (x, ntok, anc)
}

/// Each block's content probability: the mean over members of their stage-2 output.
pub(crate) fn probabilities(
    members: &[Member],
    cv: Option<&str>,
    x: &[f64],
    ntok: &[f64],
    anc: &[[Option<ElemId>; 6]],
) -> Vec<f64> {
    let n = ntok.len();
    let mut p = vec![0.0; n];
    if n == 0 {
        return p;
    }
    for m in members {
        let (s1, s2) = m.forests(cv);
        let p1 = s1.proba(x, n);
        let ctx = context_features(&p1, ntok, anc, x);
        let width = N_FEATURES + ctx.len() / n;
        let mut both = Vec::with_capacity(n * width);
        for i in 0..n {
            both.extend_from_slice(&x[i * N_FEATURES..(i + 1) * N_FEATURES]);
            both.extend_from_slice(&ctx[i * (width - N_FEATURES)..(i + 1) * (width - N_FEATURES)]);
        }
        for (acc, v) in p.iter_mut().zip(s2.proba(&both, n)) {
            *acc += v;
        }
    }
    let k = members.len().max(1) as f64;
    p.iter_mut().for_each(|v| *v /= k);
    p
}

/// Each block's content probability, with the site's evidence where given, and whether the
/// page is unlike every page the model trained on (`Model::novel`), where `cut`'s
/// settings read it (`unseen=keep`; otherwise false, and no page pays for the search).
pub(crate) fn score(
    p: &mut Prepared,
    model: &Model,
    cv: Option<&str>,
    evidence: Option<&Evidence>,
    cut: &Cut,
) -> (Vec<f64>, bool) {
    let (x, ntok, anc) = features(p, evidence);
    let novel = cut.settings.is_on(UNSEEN) && model.novel(cv, &x, &ntok);
    (probabilities(&model.members, cv, &x, &ntok, &anc), novel)
}

/// A page whose surest block is below this keeps nothing (`extractor.model.MIN_PAGE_MAX`,
/// where the figures behind it are; the two are held equal by a test).
pub(crate) const MIN_PAGE_MAX: f64 = 0.05;

/// On a page of at most this many blocks the unsure page's factor is squared
/// (`extractor.model.SMALL_PAGE_BLOCKS`, where the figures are; held equal by a test).
pub(crate) const SMALL_PAGE_BLOCKS: usize = 40;

/// The settings of one cleaning: the probability cut and how it adapts to the page.
#[derive(Clone, Copy)]
pub(crate) struct Cut {
    pub(crate) threshold: f64,
    pub(crate) balanced: f64,
    pub(crate) relative: f64,
    /// each rule set against the model (`comments=drop`, `records=keep`, ...; `rules::RULES`)
    pub(crate) settings: Settings,
}

/// Verdicts per view element from the blocks' probabilities, on a page unlike (`novel`) or
/// like the model's training pages: the page's cut, then the rules (`rules::decide`).
pub(crate) fn verdicts(p: &Prepared, prob: &[f64], novel: bool, cut: Cut) -> Vec<Option<Verdict>> {
    let rulings = rules::decide(
        &p.pb,
        &p.view,
        prob,
        page_cuts(prob, &cut),
        novel,
        &cut.settings,
    );
    let mut out = vec![None; p.view.elems.len()];
    for ((&e, ruling), &score) in p.pb.elem.iter().zip(rulings).zip(prob) {
        out[p.view.preorder[e]] = Some(Verdict {
            content: ruling.content,
            score,
            section: ruling.by,
        });
    }
    out
}

/// The page's cut, and its cut at the balanced preset: each preset's threshold times the
/// page's one factor (infinite both on a page sure to have no main content).
fn page_cuts(prob: &[f64], cut: &Cut) -> (f64, f64) {
    let adapts = !prob.is_empty() && cut.relative > 0.0;
    if !adapts {
        return (cut.threshold, cut.balanced);
    }
    let max = prob.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if max < MIN_PAGE_MAX {
        // sure there is no main content: keep nothing, not the navigation
        return (f64::INFINITY, f64::INFINITY);
    }
    // a page of a few blocks has no template around its text for a lower cut to let in:
    // its relatively likely blocks are its text (docs/lab/loco.md)
    let f = f64::min(1.0, cut.relative * max / cut.balanced);
    let factor = if prob.len() <= SMALL_PAGE_BLOCKS {
        f * f
    } else {
        f
    };
    (cut.threshold * factor, cut.balanced * factor)
}

/// What `clean` makes of a page.
pub(crate) struct Cleaned {
    /// its blocks (the noise too where asked)
    pub(crate) blocks: Vec<OutBlock>,
    /// how many blocks it holds with the noise
    pub(crate) found: usize,
    /// each block's probability
    pub(crate) prob: Vec<f64>,
    /// the verdicts as the structure renderer reads them (`structure`; what a
    /// rule decides, there too)
    pub(crate) kept: Vec<Option<bool>>,
    /// per view element, what it is to the page's comments kept apart
    /// (`comment_elements`; empty unless `comments=separate`)
    pub(crate) comments: Vec<Apart>,
}

/// The page cleaned (`Cleaned`): its blocks (the noise too where `noise`), their
/// probabilities and the verdicts the renderer reads.
#[allow(clippy::too_many_arguments)]
pub(crate) fn clean(
    p: &mut Prepared,
    model: &Model,
    cv: Option<&str>,
    evidence: Option<&Evidence>,
    cut: Cut,
    noise: bool,
    with_paths: bool,
) -> Cleaned {
    let (prob, novel) = score(p, model, cv, evidence, &cut);
    let v = verdicts(p, &prob, novel, cut);
    p.confidence = confidence_features(p, &prob, &v, novel, &cut);
    let kept = v.iter().map(|x| x.map(|x| x.content)).collect();
    let comments = comment_elements(p, &v, &cut.settings);
    let (blocks, found) = render(&p.view, &v, noise, with_paths);
    Cleaned {
        blocks,
        found,
        prob,
        kept,
        comments,
    }
}

/// An element named for a reply form (`respond`, WordPress's; `comment-form`,
/// `reply-form`), lowercased class and id.
fn reply_form_name() -> &'static regex::Regex {
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    R.get_or_init(|| regex::Regex::new(r"respond|(comment|reply)-?form").unwrap())
}

/// What an element is to the comments kept apart (`comment_elements`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Apart {
    /// nothing of its own: its parent's
    Inherit,
    /// a block of a comment: written
    Comment,
    /// a reply form, or a reply link or button inside a comment: left out
    Control,
}

/// Per view element, what it is to the page's comments kept apart (`comments=separate`):
/// the blocks the comments rule took out of the main text (`rules/editorial.rs`: a section
/// named for comments by class, id, role or itemprop, which holds neither the start of the
/// main text nor its surest block) are the comments, whatever the model made of them (it
/// learnt from gold texts that mostly drop comments), but a reply form (a `<form>` and its
/// fields, labels and buttons, or an element named for one: `respond`, `comment-form`) and
/// a comment's reply link or button (an `a` or `button` named for a reply) are left out:
/// no one's comment. Empty unless `comments=separate`.
pub(crate) fn comment_elements(
    p: &Prepared,
    v: &[Option<Verdict>],
    settings: &Settings,
) -> Vec<Apart> {
    if settings.get(COMMENTS) != Setting::Separate {
        return Vec::new();
    }
    let (pb, view) = (&p.pb, &p.view);
    let names = |e: ElemId| {
        let el = &view[view.preorder[e]];
        let mut names = String::new();
        if el.has_attrs {
            for a in ["class", "id"] {
                names.push_str(el.get(a).unwrap_or(""));
                names.push(' ');
            }
        }
        names.to_ascii_lowercase()
    };
    let form = tag_bits("form");
    let control = |e: ElemId| {
        pb.tag_flags[e] & form != 0
            || reply_form_name().is_match(&names(e))
            || (matches!(pb.tags[e].as_str(), "a" | "button") && names(e).contains("reply"))
    };
    let in_control = pb.under(control);
    let is_comment = |e: ElemId| v[view.preorder[e]].is_some_and(|x| x.section == Some(COMMENTS));
    let in_comment = pb.under(is_comment);
    let mut out = vec![Apart::Inherit; view.elems.len()];
    for e in pb.elems() {
        let ve = view.preorder[e].index();
        if in_comment[e] && in_control[e] {
            out[ve] = Apart::Control;
        } else if is_comment(e) {
            out[ve] = Apart::Comment;
        }
    }
    out
}

/// The page's figures for the confidence (`confidence::features`) from its blocks'
/// probabilities and the verdicts `verdicts` gave them.
pub(crate) fn confidence_features(
    p: &Prepared,
    prob: &[f64],
    v: &[Option<Verdict>],
    novel: bool,
    cut: &Cut,
) -> Vec<f64> {
    let per_block: Vec<Option<Verdict>> =
        p.pb.elem.iter().map(|&e| v[p.view.preorder[e]]).collect();
    crate::clean::confidence::features(&p.pb, prob, &per_block, page_cuts(prob, cut).0, novel)
}

/// Nanoseconds spent in each stage of one page's cleaning, for `benchmarks/native_stages.py`:
/// parse, tree (the visible tree), blocks (the walk), reveal (looking for script-gated
/// content, and reading the page again where some is shown), page_type (the evidence for
/// the page's type, `page_type::features`), site (evidence keys and
/// shares), features, novelty (whether the page is unlike the training pages, asked only
/// where `unseen=keep`), forests (both stages of every member and the context between
/// them), render (the verdicts with the rules after the model, and the rendered blocks).
pub(crate) fn stage_times(
    html: &str,
    url: Option<&str>,
    model: &Model,
    evidence: Option<&Evidence>,
    cut: Cut,
) -> Result<Vec<(&'static str, u64)>, String> {
    use std::time::Instant;
    let mut out = Vec::new();
    let mut t = Instant::now();
    let mut mark = |name: &'static str| {
        out.push((name, t.elapsed().as_nanos() as u64));
        t = Instant::now();
    };
    let mut p = prepare_marked(html, url, false, true, &mut mark)?;
    let (x, ntok, anc) = features_marked(&mut p, evidence, &mut mark);
    let novel = cut.settings.is_on(UNSEEN) && model.novel(None, &x, &ntok);
    mark("novelty");
    let prob = probabilities(&model.members, None, &x, &ntok, &anc);
    mark("forests");
    let v = verdicts(&p, &prob, novel, cut);
    std::hint::black_box(render(&p.view, &v, true, true));
    mark("render");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts of the blocks of each kind of `comment_elements` on `html`, every block
    /// scored `prob`, with `comments=separate`.
    fn apart(html: &str) -> (Vec<String>, Vec<String>, Vec<String>) {
        let p = prepare(html, None, false, false).unwrap();
        let prob = vec![0.9; p.pb.text.len()];
        let cut = Cut {
            threshold: 0.5,
            balanced: 0.5,
            relative: 0.0,
            settings: Settings::parse([("comments", "separate")]).unwrap(),
        };
        let v = verdicts(&p, &prob, false, cut);
        let marks = comment_elements(&p, &v, &cut.settings);
        let (mut comments, mut text) = (Vec::new(), Vec::new());
        let controls = p
            .view
            .preorder
            .iter()
            .filter(|&&ve| marks[ve] == Apart::Control)
            .map(|&ve| p.view[ve].tag.clone())
            .collect();
        for (b, e) in p.pb.block_elems() {
            let ve = p.view.preorder[e].index();
            if marks[ve] == Apart::Comment {
                comments.push(p.pb.text[b].clone());
            }
            if v[ve].is_some_and(|x| x.content) {
                text.push(p.pb.text[b].clone());
            }
        }
        (comments, text, controls)
    }

    #[test]
    fn comments_apart_are_the_comment_section_less_its_reply_form() {
        let html = "<body><article><h1>A story of words enough to start</h1>\
                    <p>The story itself runs on for more than ten words of main text.</p>\
                    </article><div id='comments'><h3>2 Comments</h3>\
                    <div class='comment'><p>Ann: a comment of the reader.</p>\
                    <a class='comment-reply-link' href='#'>Reply</a></div>\
                    <div id='respond'><h3>Leave a Reply</h3><form><label>Name</label>\
                    <textarea></textarea></form></div></div></body>";
        let (comments, text, controls) = apart(html);
        // the reply link's text is its comment's block's, but the link is left out
        assert_eq!(
            comments,
            ["2 Comments", "Ann: a comment of the reader.", "Reply"]
        );
        // (the blocks of the reply form, and the link: what has text of its own)
        assert_eq!(controls, ["a", "h3", "label"]);
        assert_eq!(
            text,
            [
                "A story of words enough to start",
                "The story itself runs on for more than ten words of main text."
            ]
        );
        // without the switch there is nothing apart
        let p = prepare(html, None, false, false).unwrap();
        let v = verdicts(&p, &vec![0.9; p.pb.text.len()], false, {
            Cut {
                threshold: 0.5,
                balanced: 0.5,
                relative: 0.0,
                settings: Settings::default(),
            }
        });
        assert!(comment_elements(&p, &v, &Settings::default()).is_empty());
    }
}
