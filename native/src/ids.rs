//! Typed ids: the crate numbers several kinds of things by index, each in its own space,
//! and an id of one kind cannot index another's arrays. Each is a `u32` (the arrays' length
//! never reaches `u32::MAX`), made only where the thing is numbered; "none" is `None`, never
//! a sentinel, and costs nothing (`Option` of an id is 4 bytes, as the id). Python receives
//! them as plain ints, converted in `py/` only.
//!
//! - `read::parse::NodeId`: a node of the parsed document's arena (0 is the document);
//! - `read::dom::ViewId`: an element of the visible tree (the Python tree's `nid` less 1);
//! - `page::blocks::ElemId`: an element of a page's blocks, its place in the preorder walk
//!   (`View::preorder[e]` is its element of the tree). Its arrays are many and side by side
//!   (`PageBlocks::tags`, `flags`, the rules' `Vec<bool>`s), so any array is indexed by it.
//! - `page::blocks::BlockId`: a block of a page, in the order its text starts; its arrays
//!   too are many (`PageBlocks::elem`, `text`, `tokens`, the probabilities, the rules'
//!   `Vec<bool>`s over blocks), so any array is indexed by it. (The feature kernels'
//!   row numbers of their flat matrices stay plain indices.)

/// Declare a typed id: a `u32` index with `new` (from a `usize` index) and `index`. It holds
/// the index plus one in a `NonZeroU32`, so `Option<Id>` is the same 4 bytes as the id
/// (none is the 0 no id holds) and an array of them as dense as of `u32`; `index` is one
/// subtraction, no branch. (Tried and dearer, callgrind on `core_loop.py 1`: `2i + 1` with
/// `index` a shift, +10 M instructions; the subtraction done in `usize`, +15 M.)
macro_rules! typed_id {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub(crate) struct $name(std::num::NonZeroU32);

        // "None" costs nothing: the niche of the 0 that no id holds.
        const _: () = assert!(std::mem::size_of::<Option<$name>>() == 4);

        impl $name {
            /// The id of the thing at index 0.
            #[allow(dead_code)]
            pub(crate) const FIRST: Self = Self(std::num::NonZeroU32::MIN);

            /// The id of the thing at index `i` of its arrays.
            #[inline]
            pub(crate) fn new(i: usize) -> Self {
                debug_assert!(i < u32::MAX as usize);
                // `i + 1` is never 0 below `u32::MAX`; saturating keeps it so without a
                // branch (a compare and a conditional move).
                Self(std::num::NonZeroU32::MIN.saturating_add(i as u32))
            }

            /// The ids of the first `n` things, in order.
            #[allow(dead_code)]
            #[inline]
            pub(crate) fn all(n: usize) -> impl DoubleEndedIterator<Item = Self> {
                // (bounded below `u32::MAX` once, so that the compiler sees `i + 1` never
                // saturate: an id from the walk costs its index, no compare in the loop)
                debug_assert!(n < u32::MAX as usize);
                let n = n.min(u32::MAX as usize - 1) as u32;
                (0..n).map(|i| Self(std::num::NonZeroU32::MIN.saturating_add(i)))
            }

            /// The index of the thing in its arrays.
            #[inline]
            pub(crate) fn index(self) -> usize {
                (self.0.get() - 1) as usize
            }
        }
    };
}

pub(crate) use typed_id;

/// Index a container by a typed id: `container[id]` is the entry of its array `field`.
macro_rules! index_by {
    ($id:ty => $container:ty, $field:ident, $item:ty) => {
        impl std::ops::Index<$id> for $container {
            type Output = $item;
            #[inline]
            fn index(&self, id: $id) -> &$item {
                &self.$field[id.index()]
            }
        }

        impl std::ops::IndexMut<$id> for $container {
            #[inline]
            fn index_mut(&mut self, id: $id) -> &mut $item {
                &mut self.$field[id.index()]
            }
        }
    };
}

pub(crate) use index_by;

/// Index any array by a typed id (`inside[e]` for a `Vec<bool>` over a page's elements):
/// for the ids whose things are numbered in many arrays of their own, side by side.
/// (`Vec` has its own impls: indexing does not look through it to the slice's.)
macro_rules! index_slices_by {
    ($id:ty) => {
        $crate::ids::index_slices_by!(@one $id, [T]);
        $crate::ids::index_slices_by!(@one $id, Vec<T>);
    };
    (@one $id:ty, $array:ty) => {
        impl<T> std::ops::Index<$id> for $array {
            type Output = T;
            #[inline]
            fn index(&self, id: $id) -> &T {
                &self[id.index()]
            }
        }

        impl<T> std::ops::IndexMut<$id> for $array {
            #[inline]
            fn index_mut(&mut self, id: $id) -> &mut T {
                &mut self[id.index()]
            }
        }
    };
}

pub(crate) use index_slices_by;
