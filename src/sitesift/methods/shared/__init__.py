"""Helpers shared by several methods: `blocks` (block trees and stemmed keywords),
`entropy` (feature entropies over a site's pages), `source` (lines of the HTML source) and
`state` (checks of a fitted model's stored state)."""
