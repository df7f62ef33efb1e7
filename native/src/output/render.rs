//! Blocks of the page in document order, each labelled by the nearest verdict above it
//! (`sitesift.verdicts.render_blocks`, for the verdicts the default cleaner gives: one per
//! block element, none final).

use crate::read::dom::{is_block_tag, Item, View, ViewId};
use crate::rules::RuleId;
use crate::text::{all_space, fold_ws, split_ws};

#[derive(Clone, Copy)]
pub(crate) struct Verdict {
    pub(crate) content: bool,
    pub(crate) score: f64,
    /// the rule that decided it (`rules::decided_by` names it: `comments=drop`,
    /// `records=keep`, ...), None where the model's cut did
    pub(crate) section: Option<RuleId>,
}

pub(crate) struct OutBlock {
    pub(crate) text: String,
    pub(crate) tag: String,
    pub(crate) verdict: Option<Verdict>, // None: no verdict above (kept)
    /// the element whose verdict decided it (none: the virtual root)
    pub(crate) elem: Option<ViewId>,
    pub(crate) path: String,
}

/// An element's label (`div#main`, `div.post.main`, `p`), put at the end of `s`.
fn push_label(s: &mut String, el: &crate::read::dom::Elem) {
    s.push_str(&el.tag);
    if let Some(id) = el.get("id").filter(|v| !v.is_empty()) {
        s.push('#');
        s.push_str(crate::text::strip(id));
    } else if let Some(cls) = el.get("class").filter(|v| !v.is_empty()) {
        // (a class of spaces only leaves the dot alone: `div.`)
        s.push('.');
        for (i, word) in split_ws(cls).enumerate() {
            if i > 0 {
                s.push('.');
            }
            s.push_str(word);
        }
    }
}

/// `body/div#main/p`: an element's readable address.
pub(crate) fn path(view: &View, v: Option<ViewId>, cache: &mut [Option<String>]) -> String {
    let Some(v) = v else {
        return String::new();
    };
    if let Some(p) = &cache[v] {
        return p.clone();
    }
    let mut chain = vec![v];
    let mut up = view[v].parent;
    while let Some(u) = up.filter(|u| cache[*u].is_none()) {
        chain.push(u);
        up = view[u].parent;
    }
    let mut prefix = match up {
        Some(u) => cache[u].clone().unwrap(),
        None => String::new(),
    };
    // (each address grown from its parent's in place, where a `format!` of the two made a
    // new string per element)
    for &e in chain.iter().rev() {
        if !prefix.is_empty() {
            prefix.push('/');
        }
        push_label(&mut prefix, &view[e]);
        cache[e] = Some(prefix.clone());
    }
    prefix
}

/// Render with `verdicts[view index]`; `noise` false leaves the noise blocks out,
/// `with_paths` false leaves the addresses empty. Also how many blocks the page holds,
/// noise included (a record counts them where it holds only the content).
pub(crate) fn render(
    view: &View,
    verdicts: &[Option<Verdict>],
    noise: bool,
    with_paths: bool,
) -> (Vec<OutBlock>, usize) {
    enum Work<'a> {
        Node(ViewId),
        Text(&'a str),
        Leave(Option<Verdict>, Option<ViewId>, &'a str),
    }
    let mut out = Vec::new();
    let mut count = 0usize;
    let mut cache: Vec<Option<String>> = vec![None; view.elems.len()];
    let mut parts = String::new();
    let mut verdict: Option<Verdict> = None;
    let mut decider: Option<ViewId> = None; // None: the virtual root
    let mut tag: &str = "body";
    let mut stack: Vec<Work> = vec![Work::Node(ViewId::BODY)];

    let flush = |parts: &mut String,
                 verdict: Option<Verdict>,
                 decider: Option<ViewId>,
                 tag: &str,
                 out: &mut Vec<OutBlock>,
                 count: &mut usize,
                 cache: &mut [Option<String>]| {
        let text = fold_ws(parts);
        parts.clear();
        let is_noise = verdict.is_some_and(|v| !v.content);
        *count += usize::from(!text.is_empty());
        if !text.is_empty() && (noise || !is_noise) {
            let p = if with_paths {
                path(view, decider, cache)
            } else {
                String::new()
            };
            out.push(OutBlock {
                text,
                tag: tag.to_string(),
                verdict,
                elem: decider,
                path: p,
            });
        }
    };

    while let Some(item) = stack.pop() {
        match item {
            Work::Text(t) => {
                if !parts.is_empty() || !all_space(t) {
                    parts.push_str(t);
                }
            }
            Work::Leave(v, d, t) => {
                if !parts.is_empty() {
                    flush(
                        &mut parts, verdict, decider, tag, &mut out, &mut count, &mut cache,
                    );
                }
                verdict = v;
                decider = d;
                tag = t;
            }
            Work::Node(e) => {
                let el = &view[e];
                let found = verdicts[e];
                let is_block = is_block_tag(&el.tag);
                if !parts.is_empty() && (found.is_some() || is_block) {
                    flush(
                        &mut parts, verdict, decider, tag, &mut out, &mut count, &mut cache,
                    );
                }
                if found.is_some() || is_block {
                    stack.push(Work::Leave(verdict, decider, tag));
                    if found.is_some() {
                        verdict = found;
                        decider = Some(e);
                    }
                    if is_block {
                        tag = el.tag.as_str();
                    }
                }
                for child in el.children.iter().rev() {
                    match child {
                        Item::Elem(k) => stack.push(Work::Node(*k)),
                        Item::Text(t) => stack.push(Work::Text(t)),
                    }
                }
            }
        }
    }
    if !parts.is_empty() {
        flush(
            &mut parts, verdict, decider, tag, &mut out, &mut count, &mut cache,
        );
    }
    (out, count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::blocks::walk;
    use crate::read::dom::build_view;
    use crate::read::parse::parse;

    #[test]
    fn blocks_take_the_verdict_of_their_element_and_paths_name_it() {
        let a = parse(
            "<body><div id=nav><a href=/>Home</a></div><div class='post main'>\
                       <p>Story <b>text</b></p></div></body>",
        );
        let v = build_view(&a, a.html_child("body").unwrap());
        let pb = walk(&v, None, None);
        assert_eq!(pb.text, ["Home", "Story text"]);
        let mut verdicts = vec![None; v.elems.len()];
        for (b, e) in pb.block_elems() {
            let content = b.index() == 1;
            verdicts[v.preorder[e]] = Some(Verdict {
                content,
                score: 0.5,
                section: None,
            });
        }
        let (out, found) = render(&v, &verdicts, true, true);
        assert_eq!(found, out.len());
        let got: Vec<(&str, bool, &str)> = out
            .iter()
            .map(|b| (b.text.as_str(), b.verdict.unwrap().content, b.path.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("Home", false, "body/div#nav"),
                ("Story text", true, "body/div.post.main/p")
            ]
        );
        // a class of spaces leaves its dot; words are joined by dots, an id wins
        let a = parse(
            "<body><div class=' '><p>One</p></div><div class=' a  b '><p>Two</p></div>\
                       <div id=' x ' class='c'><p>Three</p></div></body>",
        );
        let v2 = build_view(&a, a.html_child("body").unwrap());
        let mut cache = vec![None; v2.elems.len()];
        let paths: Vec<String> = (0..v2.elems.len())
            .map(ViewId::new)
            .filter(|&e| v2[e].tag == "p")
            .map(|e| path(&v2, Some(e), &mut cache))
            .collect();
        assert_eq!(paths, ["body/div./p", "body/div.a.b/p", "body/div#x/p"]);
        let (content_only, found) = render(&v, &verdicts, false, false);
        assert_eq!(found, out.len()); // every block counted, the noise too
        assert_eq!(content_only.len(), 1);
        assert_eq!(content_only[0].path, "");
    }
}
