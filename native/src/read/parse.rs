//! HTML5 parsing into an index arena: html5ever's tree builder (the WHATWG algorithm, as
//! browsers run it) writes through our `TreeSink` into one `Vec` of nodes linked by index.
//! One allocation per node, no reference counting, and the tree can be edited afterwards
//! (`reveal` moves and unwraps parts) before it is read.

use std::borrow::Cow;
use std::cell::RefCell;

use html5ever::interface::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::interface::ElemName;
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::TreeBuilderOpts;
use html5ever::{parse_document, Attribute, LocalName, Namespace, ParseOpts, QualName};

pub(crate) const NONE: u32 = u32::MAX;

pub(crate) enum Data {
    Document,
    Text(StrTendril),
    /// comments, doctypes, processing instructions: never shown
    Other,
    Element {
        name: QualName,
        attrs: Vec<Attribute>,
        template: u32,
    },
}

pub(crate) struct Node {
    pub(crate) parent: u32,
    pub(crate) prev: u32,
    pub(crate) next: u32,
    pub(crate) first: u32,
    pub(crate) last: u32,
    pub(crate) data: Data,
}

#[derive(Default)]
pub(crate) struct Arena {
    pub(crate) nodes: Vec<Node>,
}

impl Arena {
    fn push(&mut self, data: Data) -> u32 {
        self.nodes.push(Node {
            parent: NONE,
            prev: NONE,
            next: NONE,
            first: NONE,
            last: NONE,
            data,
        });
        (self.nodes.len() - 1) as u32
    }

    pub(crate) fn detach(&mut self, i: u32) {
        let (parent, prev, next) = {
            let n = &self.nodes[i as usize];
            (n.parent, n.prev, n.next)
        };
        if next != NONE {
            self.nodes[next as usize].prev = prev;
        } else if parent != NONE {
            self.nodes[parent as usize].last = prev;
        }
        if prev != NONE {
            self.nodes[prev as usize].next = next;
        } else if parent != NONE {
            self.nodes[parent as usize].first = next;
        }
        let n = &mut self.nodes[i as usize];
        n.parent = NONE;
        n.prev = NONE;
        n.next = NONE;
    }

    pub(crate) fn append(&mut self, parent: u32, child: u32) {
        self.detach(child);
        let last = self.nodes[parent as usize].last;
        {
            let c = &mut self.nodes[child as usize];
            c.parent = parent;
            c.prev = last;
        }
        if last != NONE {
            self.nodes[last as usize].next = child;
        } else {
            self.nodes[parent as usize].first = child;
        }
        self.nodes[parent as usize].last = child;
    }

    pub(crate) fn insert_before(&mut self, sibling: u32, new: u32) {
        self.detach(new);
        let (parent, prev) = {
            let s = &self.nodes[sibling as usize];
            (s.parent, s.prev)
        };
        {
            let n = &mut self.nodes[new as usize];
            n.parent = parent;
            n.next = sibling;
            n.prev = prev;
        }
        if prev != NONE {
            self.nodes[prev as usize].next = new;
        } else if parent != NONE {
            self.nodes[parent as usize].first = new;
        }
        self.nodes[sibling as usize].prev = new;
    }

    /// Replace an element by its children (`<noscript>` unwrapped).
    pub(crate) fn unwrap(&mut self, i: u32) {
        let mut child = self.nodes[i as usize].first;
        while child != NONE {
            let next = self.nodes[child as usize].next;
            self.insert_before(i, child);
            child = next;
        }
        self.detach(i);
    }

    pub(crate) fn tag(&self, i: u32) -> Option<&str> {
        match &self.nodes[i as usize].data {
            Data::Element { name, .. } => Some(&name.local),
            _ => None,
        }
    }

    pub(crate) fn attrs(&self, i: u32) -> &[Attribute] {
        match &self.nodes[i as usize].data {
            Data::Element { attrs, .. } => attrs,
            _ => &[],
        }
    }

    pub(crate) fn attrs_mut(&mut self, i: u32) -> Option<&mut Vec<Attribute>> {
        match &mut self.nodes[i as usize].data {
            Data::Element { attrs, .. } => Some(attrs),
            _ => None,
        }
    }

    /// The first element child of the document's `<html>` named `name` (`body`).
    pub(crate) fn html_child(&self, name: &str) -> Option<u32> {
        let mut c = self.nodes[0].first;
        while c != NONE {
            if self.tag(c) == Some("html") {
                let mut k = self.nodes[c as usize].first;
                while k != NONE {
                    if self.tag(k) == Some(name) {
                        return Some(k);
                    }
                    k = self.nodes[k as usize].next;
                }
                return None;
            }
            c = self.nodes[c as usize].next;
        }
        None
    }

    /// Element nodes below `root` in document order (not `root` itself), without recursion.
    pub(crate) fn descendants(&self, root: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut stack = Vec::new();
        self.push_children(&mut stack, root);
        while let Some(i) = stack.pop() {
            if matches!(self.nodes[i as usize].data, Data::Element { .. }) {
                out.push(i);
                self.push_children(&mut stack, i);
            }
        }
        out
    }

    /// Push a node's children so that popping visits them in document order.
    pub(crate) fn push_children(&self, stack: &mut Vec<u32>, i: u32) {
        let mut c = self.nodes[i as usize].last;
        while c != NONE {
            stack.push(c);
            c = self.nodes[c as usize].prev;
        }
    }

    /// Every text below `root`, joined by `sep` (selectolax's `node.text(separator=...)`:
    /// script and style text included).
    pub(crate) fn text_of(&self, root: u32, sep: &str) -> String {
        let mut out = String::new();
        let mut first = true;
        let mut stack = Vec::new();
        self.push_children(&mut stack, root);
        while let Some(i) = stack.pop() {
            match &self.nodes[i as usize].data {
                Data::Text(t) => {
                    if !first {
                        out.push_str(sep);
                    }
                    first = false;
                    out.push_str(t);
                }
                Data::Element { .. } => self.push_children(&mut stack, i),
                _ => {}
            }
        }
        out
    }
}

pub(crate) fn attr<'a>(attrs: &'a [Attribute], name: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|a| &*a.name.local == name)
        .map(|a| &*a.value)
}

struct Sink {
    arena: RefCell<Arena>,
}

pub(crate) struct Name {
    ns: Namespace,
    local: LocalName,
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", &*self.local)
    }
}

impl ElemName for Name {
    fn ns(&self) -> &Namespace {
        &self.ns
    }
    fn local_name(&self) -> &LocalName {
        &self.local
    }
}

impl Sink {
    fn append_text_or_node(
        &self,
        child: NodeOrText<u32>,
        previous: u32,
        put: impl FnOnce(&mut Arena, u32),
    ) {
        let mut a = self.arena.borrow_mut();
        let node = match child {
            NodeOrText::AppendText(text) => {
                if previous != NONE {
                    if let Data::Text(t) = &mut a.nodes[previous as usize].data {
                        t.push_tendril(&text);
                        return;
                    }
                }
                a.push(Data::Text(text))
            }
            NodeOrText::AppendNode(n) => n,
        };
        put(&mut a, node);
    }
}

impl TreeSink for Sink {
    type Handle = u32;
    type Output = Arena;
    type ElemName<'a> = Name;

    fn finish(self) -> Arena {
        self.arena.into_inner()
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> u32 {
        0
    }

    fn elem_name<'a>(&'a self, target: &'a u32) -> Name {
        match &self.arena.borrow().nodes[*target as usize].data {
            Data::Element { name, .. } => Name {
                ns: name.ns.clone(),
                local: name.local.clone(),
            },
            _ => Name {
                ns: Namespace::from(""),
                local: LocalName::from(""),
            },
        }
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> u32 {
        let mut a = self.arena.borrow_mut();
        let template = if flags.template {
            a.push(Data::Document)
        } else {
            NONE
        };
        a.push(Data::Element {
            name,
            attrs,
            template,
        })
    }

    fn create_comment(&self, _text: StrTendril) -> u32 {
        self.arena.borrow_mut().push(Data::Other)
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> u32 {
        self.arena.borrow_mut().push(Data::Other)
    }

    fn append(&self, parent: &u32, child: NodeOrText<u32>) {
        let previous = self.arena.borrow().nodes[*parent as usize].last;
        let parent = *parent;
        self.append_text_or_node(child, previous, |a, n| a.append(parent, n));
    }

    fn append_based_on_parent_node(
        &self,
        element: &u32,
        prev_element: &u32,
        child: NodeOrText<u32>,
    ) {
        let has_parent = self.arena.borrow().nodes[*element as usize].parent != NONE;
        if has_parent {
            self.append_before_sibling(element, child)
        } else {
            self.append(prev_element, child)
        }
    }

    fn append_doctype_to_document(
        &self,
        _name: StrTendril,
        _public_id: StrTendril,
        _system_id: StrTendril,
    ) {
        let mut a = self.arena.borrow_mut();
        let n = a.push(Data::Other);
        a.append(0, n);
    }

    fn get_template_contents(&self, target: &u32) -> u32 {
        match &self.arena.borrow().nodes[*target as usize].data {
            Data::Element { template, .. } if *template != NONE => *template,
            _ => *target,
        }
    }

    fn same_node(&self, x: &u32, y: &u32) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &u32, child: NodeOrText<u32>) {
        let previous = self.arena.borrow().nodes[*sibling as usize].prev;
        let sibling = *sibling;
        self.append_text_or_node(child, previous, |a, n| a.insert_before(sibling, n));
    }

    fn add_attrs_if_missing(&self, target: &u32, attrs: Vec<Attribute>) {
        let mut a = self.arena.borrow_mut();
        if let Data::Element {
            attrs: existing, ..
        } = &mut a.nodes[*target as usize].data
        {
            for attr in attrs {
                if !existing.iter().any(|e| e.name == attr.name) {
                    existing.push(attr);
                }
            }
        }
    }

    fn remove_from_parent(&self, target: &u32) {
        self.arena.borrow_mut().detach(*target);
    }

    fn reparent_children(&self, node: &u32, new_parent: &u32) {
        let mut a = self.arena.borrow_mut();
        let mut child = a.nodes[*node as usize].first;
        while child != NONE {
            let next = a.nodes[child as usize].next;
            a.append(*new_parent, child);
            child = next;
        }
    }
}

/// Parse a whole document. Scripting is off, as in the Lexbor reading the rest of sitesift
/// uses: `<noscript>` content is markup (which `reveal` may show), not raw text.
pub(crate) fn parse(html: &str) -> Arena {
    let mut arena = Arena::default();
    arena.nodes.reserve(html.len() / 24);
    arena.push(Data::Document);
    let sink = Sink {
        arena: RefCell::new(arena),
    };
    let opts = ParseOpts {
        tree_builder: TreeBuilderOpts {
            scripting_enabled: false,
            ..Default::default()
        },
        ..Default::default()
    };
    parse_document(sink, opts).one(StrTendril::from_slice(html))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_document_with_body() {
        let a = parse("<title>T</title><p>one<p>two<noscript><b>x</b></noscript>");
        let body = a.html_child("body").unwrap();
        let kids: Vec<&str> = a
            .descendants(body)
            .iter()
            .filter_map(|&i| a.tag(i))
            .collect();
        assert_eq!(kids, ["p", "p", "noscript", "b"]);
        assert_eq!(a.text_of(body, "|"), "one|two|x");
    }

    #[test]
    fn adjacent_text_is_merged() {
        let a = parse("<body>a&amp;b<!-- c -->d</body>");
        let body = a.html_child("body").unwrap();
        assert_eq!(a.text_of(body, "|"), "a&b|d");
    }
}
