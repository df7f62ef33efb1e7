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

crate::ids::typed_id!(
    /// A node of the arena: its index in `Arena::nodes` (0 is the document).
    NodeId
);

impl NodeId {
    /// The document, the arena's first node.
    pub(crate) const DOCUMENT: NodeId = NodeId::FIRST;
}

pub(crate) enum Data {
    Document,
    Text(StrTendril),
    /// comments, doctypes, processing instructions: never shown
    Other,
    Element {
        name: QualName,
        attrs: Vec<Attribute>,
        /// a `<template>`'s contents (a document node of their own)
        template: Option<NodeId>,
    },
}

pub(crate) struct Node {
    parent: Option<NodeId>,
    prev: Option<NodeId>,
    next: Option<NodeId>,
    first: Option<NodeId>,
    last: Option<NodeId>,
    pub(crate) data: Data,
}

impl Node {
    pub(crate) fn parent(&self) -> Option<NodeId> {
        self.parent
    }
    pub(crate) fn prev(&self) -> Option<NodeId> {
        self.prev
    }
    pub(crate) fn next(&self) -> Option<NodeId> {
        self.next
    }
    pub(crate) fn first(&self) -> Option<NodeId> {
        self.first
    }
    pub(crate) fn last(&self) -> Option<NodeId> {
        self.last
    }
}

#[derive(Default)]
pub(crate) struct Arena {
    nodes: Vec<Node>,
}

crate::ids::index_by!(NodeId => Arena, nodes, Node);

impl Arena {
    fn push(&mut self, data: Data) -> NodeId {
        self.nodes.push(Node {
            parent: None,
            prev: None,
            next: None,
            first: None,
            last: None,
            data,
        });
        NodeId::new(self.nodes.len() - 1)
    }

    /// Every node, in the order they were made.
    pub(crate) fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    pub(crate) fn detach(&mut self, i: NodeId) {
        let (parent, prev, next) = {
            let n = &self[i];
            (n.parent(), n.prev(), n.next())
        };
        if let Some(next) = next {
            self[next].prev = prev;
        } else if let Some(parent) = parent {
            self[parent].last = prev;
        }
        if let Some(prev) = prev {
            self[prev].next = next;
        } else if let Some(parent) = parent {
            self[parent].first = next;
        }
        let n = &mut self[i];
        n.parent = None;
        n.prev = None;
        n.next = None;
    }

    pub(crate) fn append(&mut self, parent: NodeId, child: NodeId) {
        self.detach(child);
        let last = self[parent].last();
        {
            let c = &mut self[child];
            c.parent = Some(parent);
            c.prev = last;
        }
        if let Some(last) = last {
            self[last].next = Some(child);
        } else {
            self[parent].first = Some(child);
        }
        self[parent].last = Some(child);
    }

    pub(crate) fn insert_before(&mut self, sibling: NodeId, new: NodeId) {
        self.detach(new);
        let (parent, prev) = {
            let s = &self[sibling];
            (s.parent(), s.prev())
        };
        {
            let n = &mut self[new];
            n.parent = parent;
            n.next = Some(sibling);
            n.prev = prev;
        }
        if let Some(prev) = prev {
            self[prev].next = Some(new);
        } else if let Some(parent) = parent {
            self[parent].first = Some(new);
        }
        self[sibling].prev = Some(new);
    }

    /// Replace an element by its children (`<noscript>` unwrapped).
    pub(crate) fn unwrap(&mut self, i: NodeId) {
        let mut child = self[i].first();
        while let Some(c) = child {
            child = self[c].next();
            self.insert_before(i, c);
        }
        self.detach(i);
    }

    /// A node's children in order.
    pub(crate) fn children(&self, i: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(self[i].first(), |&c| self[c].next())
    }

    pub(crate) fn tag(&self, i: NodeId) -> Option<&str> {
        match &self[i].data {
            Data::Element { name, .. } => Some(&name.local),
            _ => None,
        }
    }

    pub(crate) fn attrs(&self, i: NodeId) -> &[Attribute] {
        match &self[i].data {
            Data::Element { attrs, .. } => attrs,
            _ => &[],
        }
    }

    pub(crate) fn attrs_mut(&mut self, i: NodeId) -> Option<&mut Vec<Attribute>> {
        match &mut self[i].data {
            Data::Element { attrs, .. } => Some(attrs),
            _ => None,
        }
    }

    /// The first element child of the document's `<html>` named `name` (`body`).
    pub(crate) fn html_child(&self, name: &str) -> Option<NodeId> {
        let html = self
            .children(NodeId::DOCUMENT)
            .find(|&c| self.tag(c) == Some("html"))?;
        self.children(html).find(|&k| self.tag(k) == Some(name))
    }

    /// Element nodes below `root` in document order (not `root` itself), without recursion.
    pub(crate) fn descendants(&self, root: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = Vec::new();
        self.push_children(&mut stack, root);
        while let Some(i) = stack.pop() {
            if matches!(self[i].data, Data::Element { .. }) {
                out.push(i);
                self.push_children(&mut stack, i);
            }
        }
        out
    }

    /// Push a node's children so that popping visits them in document order.
    pub(crate) fn push_children(&self, stack: &mut Vec<NodeId>, i: NodeId) {
        let mut c = self[i].last();
        while let Some(k) = c {
            stack.push(k);
            c = self[k].prev();
        }
    }

    /// Every text below `root`, joined by `sep` (selectolax's `node.text(separator=...)`:
    /// script and style text included).
    pub(crate) fn text_of(&self, root: NodeId, sep: &str) -> String {
        let mut out = String::new();
        let mut first = true;
        let mut stack = Vec::new();
        self.push_children(&mut stack, root);
        while let Some(i) = stack.pop() {
            match &self[i].data {
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
        child: NodeOrText<NodeId>,
        previous: Option<NodeId>,
        put: impl FnOnce(&mut Arena, NodeId),
    ) {
        let mut a = self.arena.borrow_mut();
        let node = match child {
            NodeOrText::AppendText(text) => {
                if let Some(previous) = previous {
                    if let Data::Text(t) = &mut a[previous].data {
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
    type Handle = NodeId;
    type Output = Arena;
    type ElemName<'a> = Name;

    fn finish(self) -> Arena {
        self.arena.into_inner()
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> NodeId {
        NodeId::DOCUMENT
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> Name {
        match &self.arena.borrow()[*target].data {
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

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> NodeId {
        let mut a = self.arena.borrow_mut();
        let template = flags.template.then(|| a.push(Data::Document));
        a.push(Data::Element {
            name,
            attrs,
            template,
        })
    }

    fn create_comment(&self, _text: StrTendril) -> NodeId {
        self.arena.borrow_mut().push(Data::Other)
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> NodeId {
        self.arena.borrow_mut().push(Data::Other)
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        let previous = self.arena.borrow()[*parent].last();
        let parent = *parent;
        self.append_text_or_node(child, previous, |a, n| a.append(parent, n));
    }

    fn append_based_on_parent_node(
        &self,
        element: &NodeId,
        prev_element: &NodeId,
        child: NodeOrText<NodeId>,
    ) {
        let has_parent = self.arena.borrow()[*element].parent().is_some();
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
        a.append(NodeId::DOCUMENT, n);
    }

    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        match &self.arena.borrow()[*target].data {
            Data::Element {
                template: Some(contents),
                ..
            } => *contents,
            _ => *target,
        }
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &NodeId, child: NodeOrText<NodeId>) {
        let previous = self.arena.borrow()[*sibling].prev();
        let sibling = *sibling;
        self.append_text_or_node(child, previous, |a, n| a.insert_before(sibling, n));
    }

    fn add_attrs_if_missing(&self, target: &NodeId, attrs: Vec<Attribute>) {
        let mut a = self.arena.borrow_mut();
        if let Data::Element {
            attrs: existing, ..
        } = &mut a[*target].data
        {
            for attr in attrs {
                if !existing.iter().any(|e| e.name == attr.name) {
                    existing.push(attr);
                }
            }
        }
    }

    fn remove_from_parent(&self, target: &NodeId) {
        self.arena.borrow_mut().detach(*target);
    }

    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        let mut a = self.arena.borrow_mut();
        let mut child = a[*node].first();
        while let Some(c) = child {
            child = a[c].next();
            a.append(*new_parent, c);
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
