//! Tables: a regular one as a pipe table (markdown), rows of cells apart by ` | ` (text) or
//! the page's cells with their spans (HTML); an irregular or layout one as rows of text.
use super::escape::escape_line_start;
use super::{Block, Format, Kind, Md};
use crate::read::dom::{Item, ViewId};
use crate::text::is_space;

impl<'a> Md<'a> {
    /// Whether a cell of table `t`'s own rows is content, by its own verdict or its row's.
    pub(super) fn has_content_cell(&self, t: ViewId) -> bool {
        let row = |tr: ViewId, trc: bool| {
            self.children(tr).iter().any(|k| {
                matches!(k, Item::Elem(c) if matches!(self.tag(*c), "td" | "th")
                    && self.content(*c, trc))
            })
        };
        self.children(t).iter().any(|k| match k {
            Item::Elem(r) if self.tag(*r) == "tr" => row(*r, self.content(*r, false)),
            Item::Elem(g) if matches!(self.tag(*g), "thead" | "tbody" | "tfoot") => {
                let gc = self.content(*g, false);
                self.children(*g).iter().any(|k| {
                    matches!(k, Item::Elem(r) if self.tag(*r) == "tr"
                        && row(*r, self.content(*r, gc)))
                })
            }
            _ => false,
        })
    }

    pub(super) fn table(&self, t: ViewId, content: bool, out: &mut Vec<Block>) {
        // rows of (cell, content, colspan, rowspan)
        let mut rows: Vec<Vec<Cell4>> = Vec::new();
        let mut caption = None;
        let mut irregular = false;
        let add_row = |tr: ViewId, trc: bool, rows: &mut Vec<Vec<Cell4>>, irregular: &mut bool| {
            let mut cells = Vec::new();
            for item in self.children(tr) {
                match item {
                    Item::Elem(c) if matches!(self.tag(*c), "td" | "th") => {
                        let span = |a| {
                            self.attr(*c, a)
                                .and_then(|v| v.trim().parse::<usize>().ok())
                                .unwrap_or(1)
                        };
                        let (cs, rs) = (span("colspan"), span("rowspan"));
                        if cs > MAX_SPAN || rs > MAX_SPAN || self.layout_cell[*c] {
                            *irregular = true;
                        }
                        cells.push((
                            *c,
                            self.content(*c, trc),
                            cs.clamp(1, MAX_SPAN),
                            rs.clamp(1, MAX_SPAN),
                        ));
                    }
                    Item::Elem(_) => *irregular = true,
                    Item::Text(s) if !s.trim_matches(is_space).is_empty() => *irregular = true,
                    Item::Text(_) => {}
                }
            }
            rows.push(cells);
        };
        for item in self.children(t) {
            let Item::Elem(c) = item else { continue };
            let cc = self.content(*c, content);
            match self.tag(*c) {
                "tr" => add_row(*c, cc, &mut rows, &mut irregular),
                "thead" | "tbody" | "tfoot" => {
                    for k in self.children(*c) {
                        match k {
                            Item::Elem(r) if self.tag(*r) == "tr" => {
                                add_row(*r, self.content(*r, cc), &mut rows, &mut irregular)
                            }
                            Item::Elem(_) => irregular = true,
                            _ => {}
                        }
                    }
                }
                "caption" => caption = Some((*c, cc)),
                "colgroup" | "col" => {} // column widths: no content
                _ => irregular = true,
            }
        }
        if let Some((c, cc)) = caption {
            self.blocks(c, cc, out);
        }
        let grid = span_grid(&rows);
        let width = grid.iter().map(Vec::len).max().unwrap_or(0);
        if !(2..=MAX_SPAN).contains(&width) {
            irregular = true;
        }
        if irregular {
            let plain: Vec<Vec<(ViewId, bool)>> = rows
                .iter()
                .map(|r| r.iter().map(|&(c, cc, _, _)| (c, cc)).collect())
                .collect();
            return self.rows_of_text(&plain, out);
        }
        let text = match self.fmt {
            Format::Html => self.html_table(&rows),
            _ => self.grid_table(&grid, width),
        };
        if let Some(text) = text {
            out.push(Block {
                text,
                kind: Kind::Other,
            });
        }
    }

    /// A regular table as a pipe table (markdown; its first row with text the header) or
    /// as rows of cells apart by ` | ` (text). A spanned cell's text stands in its first
    /// slot, the slots it covers stay empty, and short rows are padded: every row's cells
    /// keep their columns. Rows without text are left out. None: no text at all.
    fn grid_table(&self, grid: &[Vec<Option<(ViewId, bool)>>], width: usize) -> Option<String> {
        let md = self.fmt == Format::Markdown;
        let texts: Vec<Vec<String>> = grid
            .iter()
            .map(|r| {
                let mut cells: Vec<String> = r
                    .iter()
                    .map(|slot| {
                        slot.map_or_else(String::new, |(c, cc)| {
                            let line = self.line(c, cc);
                            if md {
                                line.replace('|', "\\|")
                            } else {
                                line
                            }
                        })
                    })
                    .collect();
                cells.resize(width, String::new());
                cells
            })
            .filter(|r: &Vec<String>| r.iter().any(|c| !c.is_empty()))
            .collect();
        if texts.is_empty() {
            return None;
        }
        if !md {
            let lines: Vec<String> = texts
                .iter()
                .map(|r| r.join(" | ").trim_end_matches([' ', '|']).to_string())
                .collect();
            return Some(lines.join("\n"));
        }
        let row = |cells: &[String]| format!("| {} |", cells.join(" | "));
        let mut lines = vec![row(&texts[0]), row(&vec!["---".to_string(); width])];
        lines.extend(texts[1..].iter().map(|r| row(r)));
        Some(lines.join("\n"))
    }

    /// A regular table as HTML: the page's cells (`th` or `td`) with their spans, rows
    /// without text left out. None: no text at all.
    fn html_table(&self, rows: &[Vec<Cell4>]) -> Option<String> {
        let mut lines = vec!["<table>".to_string(), "<tbody>".to_string()];
        for r in rows {
            let cells: Vec<String> = r
                .iter()
                .map(|&(c, cc, cs, rs)| {
                    let tag = self.tag(c);
                    let mut open = format!("<{tag}");
                    if cs > 1 {
                        open.push_str(&format!(" colspan=\"{cs}\""));
                    }
                    if rs > 1 {
                        open.push_str(&format!(" rowspan=\"{rs}\""));
                    }
                    format!("{open}>{}</{tag}>", self.line(c, cc))
                })
                .collect();
            let has_text = r.iter().any(|&(c, cc, _, _)| !self.line(c, cc).is_empty());
            if has_text {
                lines.push(format!("<tr>{}</tr>", cells.join("")));
            }
        }
        if lines.len() == 2 {
            return None;
        }
        lines.push("</tbody>".to_string());
        lines.push("</table>".to_string());
        Some(lines.join("\n"))
    }

    /// An irregular table: a row of cells that are lines of text becomes one paragraph
    /// (cells joined by " · "); cells with structure of their own become blocks.
    fn rows_of_text(&self, rows: &[Vec<(ViewId, bool)>], out: &mut Vec<Block>) {
        for r in rows {
            if r.iter().all(|&(c, _)| !self.has_structure[c]) {
                let cells: Vec<String> = r
                    .iter()
                    .map(|&(c, cc)| self.line(c, cc))
                    .filter(|s| !s.is_empty())
                    .collect();
                if !cells.is_empty() {
                    let line = cells.join(" · ");
                    let text = if self.fmt == Format::Markdown {
                        let mut text = String::new();
                        escape_line_start(&line, &mut text);
                        text
                    } else {
                        line
                    };
                    out.push(Block {
                        text,
                        kind: Kind::Para,
                    });
                }
            } else {
                for &(c, cc) in r {
                    self.blocks(c, cc, out);
                }
            }
        }
    }
}

/// A table cell: (element, content, colspan, rowspan).
type Cell4 = (ViewId, bool, usize, usize);

/// Spans beyond this (and tables wider than this) are no pipe table: a layout table.
const MAX_SPAN: usize = 64;

/// The table's rows as slots, column by column: a cell stands in the first slot it spans
/// (`Some`), the other slots it covers across and down are `None`.
fn span_grid(rows: &[Vec<Cell4>]) -> Vec<Vec<Option<(ViewId, bool)>>> {
    let mut grid = Vec::with_capacity(rows.len());
    let mut below: Vec<usize> = Vec::new(); // per column: rows still covered from above
    for row in rows {
        let mut slots = Vec::new();
        let mut cells = row.iter();
        let mut col = 0;
        loop {
            while col < below.len() && below[col] > 0 {
                below[col] -= 1;
                slots.push(None);
                col += 1;
            }
            let Some(&(c, cc, colspan, rowspan)) = cells.next() else {
                break;
            };
            for k in 0..colspan {
                if below.len() <= col {
                    below.resize(col + 1, 0);
                }
                below[col] = rowspan - 1;
                slots.push(if k == 0 { Some((c, cc)) } else { None });
                col += 1;
            }
        }
        for rest in below.iter_mut().skip(col) {
            if *rest > 0 {
                *rest -= 1;
                slots.push(None);
            }
        }
        grid.push(slots);
    }
    grid
}
