use super::address::{IMAGE_SCHEMES, LINK_SCHEMES};
use super::escape::inert_tex;
use super::*;
use crate::read::dom::build_view;
use crate::read::parse::parse;

fn md_with(html: &str, kept: &[(u32, bool)], opts: Options) -> String {
    let a = parse(html);
    let body = a.html_child("body").unwrap();
    let view = build_view(&a, body);
    let mut k = vec![None; view.elems.len()];
    for &(nid, v) in kept {
        k[nid as usize - 1] = Some(v);
    }
    render(&view, &k, &opts)
}

fn md(html: &str) -> String {
    md_with(html, &[], Options::default())
}

fn as_format(html: &str, format: Format) -> String {
    md_with(
        html,
        &[],
        Options {
            format,
            ..Options::default()
        },
    )
}

fn html(html: &str) -> String {
    as_format(html, Format::Html)
}

fn text(html: &str) -> String {
    as_format(html, Format::Text)
}

#[test]
fn formulas_are_latex_between_dollars_never_escaped() {
    let page = "<p>When <math><mi>a</mi><mo>≠</mo><mn>0</mn></math>, the roots of \
                <span class='katex'><span class='katex-mathml'><math><semantics><mi>x</mi>\
                <annotation encoding='application/x-tex'>a x^2 + b_1 x + c = 0</annotation>\
                </semantics></math></span><span class='katex-html' aria-hidden='true'>\
                ax2+b1x+c=0</span></span> are</p>\
                <div class='MathJax_Display'><span class='MathJax'>x = ...</span></div>\
                <script type='math/tex; mode=display'>x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}</script>\
                <p>and <em>*stars*</em> stay escaped.</p>";
    assert_eq!(
        md(page),
        "When $a\\neq 0$, the roots of $a x^2 + b_1 x + c = 0$ are\n\n\
         $$x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}$$\n\nand *\\*stars\\** stay escaped."
    );
    assert_eq!(
        text(page),
        "When $a\\neq 0$, the roots of $a x^2 + b_1 x + c = 0$ are\n\n\
         $$x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}$$\n\nand *stars* stay escaped."
    );
    assert_eq!(
        html(
            "<p>If <math><mi>a</mi><mo>&lt;</mo><mi>b</mi></math></p>\
              <math display='block'><mi>x</mi></math>"
        ),
        "<p>If <span class=\"math inline\">\\(a&lt;b\\)</span></p>\n\
         <p><span class=\"math display\">\\[x\\]</span></p>"
    );
}

#[test]
fn display_math_is_a_block_of_its_own_inline_math_stays_in_its_line() {
    let page = "<p>before <script type='math/tex; mode=display'>x^2</script>after \
                <script type='math/tex'>y</script> and</p>";
    assert_eq!(md(page), "before\n\n$$x^2$$\n\nafter $y$ and");
    // a line break before or after it adds nothing (no `\` left at a paragraph's end)
    let broken = "<p>before<br><script type='math/tex; mode=display'>x</script><br>after</p>";
    assert_eq!(md(broken), "before\n\n$$x$$\n\nafter");
}

#[test]
fn a_formula_under_a_noise_verdict_is_left_out_with_it() {
    // nids: body 1, its two p 2 and 3, then their formulas 4 and 5
    let page = "<p>Keep <math><mi>x</mi></math></p><p>drop <math><mi>y</mi></math></p>";
    let out = md_with(page, &[(2, true), (3, false)], Options::default());
    assert_eq!(out, "Keep $x$");
}

#[test]
fn paragraphs_are_separated_by_blank_lines_and_whitespace_folded() {
    assert_eq!(
        md("<p>  one\n  two </p><div>three <span> four</span></div>"),
        "one two\n\nthree four"
    );
}

#[test]
fn heading_levels() {
    let html =
        "<h1>One</h1><h2>Two</h2><h3>Three</h3><h4>Four</h4><h5>Five</h5><h6>Six <em>x</em></h6>";
    assert_eq!(
        md(html),
        "# One\n\n## Two\n\n### Three\n\n#### Four\n\n##### Five\n\n###### Six *x*"
    );
}

#[test]
fn nested_list() {
    let html = "<ul><li>a<ul><li>a1</li><li>a2<ul><li>deep</li></ul></li></ul></li><li>b</li></ul>";
    assert_eq!(md(html), "- a\n  - a1\n  - a2\n    - deep\n- b");
}

#[test]
fn list_inside_list_joins_the_item_before() {
    assert_eq!(
        md("<ul><li>a</li><ul><li>a1</li></ul><li>b</li></ul>"),
        "- a\n  - a1\n- b"
    );
}

#[test]
fn ordered_list_with_start() {
    let html = "<ol start=7><li>seven</li><li>eight<ol><li>sub</li></ol></li></ol>";
    assert_eq!(md(html), "7. seven\n8. eight\n   1. sub");
}

#[test]
fn table_with_header() {
    let html = "<table><thead><tr><th>Name</th><th>Pipe</th></tr></thead>\
                <tbody><tr><td>a</td><td>x | y</td></tr><tr><td>b<br>c</td><td><code>p|q</code></td></tr></tbody></table>";
    assert_eq!(
        md(html),
        "| Name | Pipe |\n| --- | --- |\n| a | x \\| y |\n| b c | `p\\|q` |"
    );
}

#[test]
fn table_without_th_takes_its_first_row_as_header() {
    let html = "<table><tr><td>k</td><td>v</td></tr><tr><td>1</td><td>2</td></tr></table>";
    assert_eq!(md(html), "| k | v |\n| --- | --- |\n| 1 | 2 |");
}

#[test]
fn table_with_colspan_keeps_its_columns() {
    let html = "<table><tr><th colspan=2>Both</th></tr><tr><td>a</td><td>b</td></tr>\
                <tr><td>c</td><td>d</td></tr></table>";
    assert_eq!(md(html), "| Both |  |\n| --- | --- |\n| a | b |\n| c | d |");
}

#[test]
fn table_with_rowspan_and_ragged_rows_keeps_its_columns() {
    let html = "<table><tr><th>k</th><th>v</th><th>w</th></tr>\
                <tr><td rowspan=2>x</td><td>1</td><td>2</td></tr><tr><td>3</td></tr></table>";
    assert_eq!(
        md(html),
        "| k | v | w |\n| --- | --- | --- |\n| x | 1 | 2 |\n|  | 3 |  |"
    );
}

#[test]
fn layout_table_keeps_its_cells_blocks() {
    let html =
        "<table><tr><td><h2>Title</h2><p>Body text.</p><ul><li>x</li></ul></td></tr></table>";
    assert_eq!(md(html), "## Title\n\nBody text.\n\n- x");
}

#[test]
fn code_with_comments_and_blank_lines_keeps_lines() {
    let html = "<pre><code class=\"language-js\">// add two numbers\nfunction add(a, b) {\n\n  \
                return a + b; // *sum*\n}\n</code></pre>";
    assert_eq!(
        md(html),
        "```js\n// add two numbers\nfunction add(a, b) {\n\n  return a + b; // *sum*\n}\n```"
    );
}

#[test]
fn code_block_language_on_pre_and_longer_fence() {
    let html = "<pre class='lang-md'>\n<span>a</span>\n```\nb</pre>";
    assert_eq!(md(html), "````md\na\n```\nb\n````");
}

#[test]
fn inline_code_in_paragraph() {
    let html =
        "<p>Call <code>f(x)</code> or <code>a`b</code> and <code>&lt;div&gt;</code> *now*.</p>";
    assert_eq!(md(html), "Call `f(x)` or ``a`b`` and `<div>` \\*now\\*.");
}

#[test]
fn link_with_markup_inside() {
    let html = "<p>See <a href='/docs/a b'>the <b>new</b> docs</a>.</p>";
    assert_eq!(
        md_with(
            html,
            &[],
            Options {
                links: true,
                ..Options::default()
            }
        ),
        "See [the **new** docs](/docs/a%20b)."
    );
    assert_eq!(md(html), "See the **new** docs.");
}

#[test]
fn emphasis_keeps_its_spaces_outside() {
    assert_eq!(
        md("<p>a<em> b </em>c <strong>d</strong><i></i></p>"),
        "a *b* c **d**"
    );
}

#[test]
fn emphasis_inside_emphasis_of_its_kind_adds_no_markup() {
    assert_eq!(
        md("<p><b>a <strong>b</strong> <i>c <em>d</em></i></b></p>"),
        "**a b *c d***"
    );
}

#[test]
fn images_only_when_asked() {
    let html = "<p>x <img src='p.png' alt='A [cat]'> y</p>";
    assert_eq!(md(html), "x y");
    assert_eq!(
        md_with(
            html,
            &[],
            Options {
                images: true,
                ..Options::default()
            }
        ),
        "x ![A \\[cat\\]](p.png) y"
    );
}

#[test]
fn line_breaks() {
    assert_eq!(
        md("<p>one<br>two<br><br>three<br></p>"),
        "one\\\ntwo\\\nthree"
    );
}

#[test]
fn block_quote() {
    assert_eq!(
        md("<blockquote><p>a</p><p>b</p></blockquote>"),
        "> a\n>\n> b"
    );
}

#[test]
fn escaped_characters() {
    let html =
        "<p># not a heading</p><p>- not a list</p><p>1. not a list</p><p>&gt; not a quote</p>\
                <p>a *b* [c] &lt;div&gt; snake_case _x_ &amp;amp; AT&amp;T \\ `t`</p><p>---</p>";
    assert_eq!(
        md(html),
        "\\# not a heading\n\n\\- not a list\n\n1\\. not a list\n\n\\> not a quote\n\n\
         a \\*b\\* \\[c\\] \\<div> snake_case \\_x\\_ \\&amp; AT&T \\\\ \\`t\\`\n\n\\---"
    );
}

#[test]
fn noise_subtree_left_out() {
    // nids: body 1, div 2, p 3; below div: h2 4, p 5, ul 6; below ul: li 7, li 8
    let html = "<div><h2>Title</h2><p>keep</p><ul><li>menu</li><li>back</li></ul></div><p>end</p>";
    assert_eq!(
        md_with(html, &[(6, false)], Options::default()),
        "## Title\n\nkeep\n\nend"
    );
    // a content verdict below a noise one holds for its subtree
    assert_eq!(
        md_with(html, &[(2, false), (8, true)], Options::default()),
        "- back\n\nend"
    );
    assert_eq!(
        md_with(html, &[(1, false), (5, true)], Options::default()),
        "keep"
    );
}

#[test]
fn no_trailing_blank_lines() {
    assert_eq!(md("<p>a</p><p> </p><div>\n</div>"), "a");
    assert_eq!(md(""), "");
}

#[test]
fn links_and_images_resolve_against_the_base_href_and_the_url() {
    let page = "<p><a href='../b (1).html'>b</a> <img src='i.png' alt='I'> \
                <a href='javascript:go()'>js</a> <img src='data:image/png;base64,AAA' alt='D'></p>";
    let base = base_url(Some("https://ex.org/a/c/page"), Some("/docs/x/"));
    let opts = Options {
        links: true,
        images: true,
        base,
        ..Options::default()
    };
    assert_eq!(
        md_with(page, &[], opts.clone()),
        "[b](https://ex.org/docs/b%20%281%29.html) ![I](https://ex.org/docs/x/i.png) js"
    );
    assert_eq!(
        md_with(
            page,
            &[],
            Options {
                format: Format::Html,
                ..opts
            }
        ),
        "<p><a href=\"https://ex.org/docs/b%20(1).html\">b</a> \
         <img src=\"https://ex.org/docs/x/i.png\" alt=\"I\"> js</p>"
    );
    // no URL: addresses stay as written; an unparsable base falls back to the URL
    assert_eq!(base_url(None, Some("rel/")), None);
    assert_eq!(
        base_url(Some("https://ex.org/p"), Some("http://[bad")).map(String::from),
        Some("https://ex.org/p".to_string())
    );
}

/// Classic filter-evasion spellings of a scripting address (as they stand in a page's
/// source), each inside an `href` and a `src`.
const EVASIONS: &[&str] = &[
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "java&#x09;script:alert(1)",
    "java&#x0A;script:alert(1)",
    "java&#x0D;script:alert(1)",
    "java\tscript:alert(1)",
    "java\nscript:alert(1)",
    " \t javascript:alert(1)",
    "&#14;javascript:alert(1)",
    "&#x01;&#x1f; javascript:alert(1)",
    "&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)",
    "&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058alert(1)",
    "&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A;alert(1)",
    "javascript&colon;alert(1)",
    "javascript&amp;#58;alert(1)",
    "java\0script:alert(1)",
    "vbscript:msgbox(1)",
    "livescript:alert(1)",
    "javascript://%0aalert(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "DATA:text/html,<script>alert(1)</script>",
    "data:image/svg+xml,<svg onload=alert(1)>",
    "file:///etc/passwd",
];

/// Every `href="..."` and `src="..."` value in rendered HTML, unescaped.
fn html_addresses(out: &str) -> Vec<String> {
    let mut found = Vec::new();
    for key in ["href=\"", "src=\""] {
        for (at, _) in out.match_indices(key) {
            let rest = &out[at + key.len()..];
            let value = &rest[..rest.find('"').unwrap()];
            found.push(
                value
                    .replace("&quot;", "\"")
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&amp;", "&"),
            );
        }
    }
    found
}

/// Every `](...)` destination in rendered markdown.
fn md_addresses(out: &str) -> Vec<String> {
    out.match_indices("](")
        .map(|(at, _)| {
            let rest = &out[at + 2..];
            rest[..rest.find(')').unwrap()].to_string()
        })
        .collect()
}

/// The scheme a browser reads in `address` on a page at an https address.
fn browser_scheme(address: &str) -> String {
    let page = Url::parse("https://reader.example/view").unwrap();
    page.join(address)
        .map_or("-".to_string(), |u| u.scheme().to_string())
}

#[test]
fn scripting_addresses_in_any_spelling_are_dropped_with_their_markup() {
    let page_urls = [None, Some("https://ex.org/a/"), Some("javascript:alert(1)")];
    let bases = [
        None,
        Some("javascript:alert(1)//"),
        Some("data:text/html,x"),
    ];
    for raw in EVASIONS {
        let page = format!(
            "<p>see <a href=\"{raw}\">one</a> <img src=\"{raw}\" alt=\"two\"> \
             <a href=\"{raw}\"><img src=\"{raw}\" alt=\"three\"></a></p>"
        );
        for url in page_urls {
            for base_href in bases {
                for format in [Format::Html, Format::Markdown] {
                    let opts = Options::for_page(format, true, true, url, base_href);
                    let out = md_with(&page, &[], opts);
                    let found = match format {
                        Format::Html => html_addresses(&out),
                        _ => md_addresses(&out),
                    };
                    for a in found {
                        let scheme = browser_scheme(&a);
                        assert!(
                            scheme == "https",
                            "{raw:?} (url {url:?}, base {base_href:?}) wrote {a:?}: {out}"
                        );
                    }
                    assert!(out.contains("one"), "{out}");
                }
            }
        }
    }
}

#[test]
fn only_allowed_schemes_pass_and_what_is_written_is_what_was_checked() {
    let base = base_url(Some("https://ex.org/a/p.html"), None);
    let (html, md) = (Format::Html, Format::Markdown);
    // (address, against the base, in format, written or None)
    let cases: &[(&str, bool, Format, Option<&str>)] = &[
        ("b.html", true, html, Some("https://ex.org/a/b.html")),
        ("//cdn.org/x", true, html, Some("https://cdn.org/x")),
        (" mailto:a@b.org ", true, html, Some("mailto:a@b.org")),
        ("ftp://f.org/x", true, html, Some("ftp://f.org/x")),
        ("HTTP://EX.ORG", true, html, Some("http://ex.org/")),
        ("java\tscript:x", true, html, None),
        ("\u{1}javascript:x", true, html, None),
        ("tel:123", true, html, None),
        ("http://exa mple.org/", true, html, None), // no valid host
        // without a base: relative addresses stay relative, absolute ones are checked
        ("b.html", false, html, Some("b.html")),
        ("/b c.html", false, md, Some("/b%20c.html")),
        ("#top", false, md, Some("#top")),
        ("vbscript:x", false, html, None),
        // a relative address a markdown renderer could decode into a scheme: led by ./
        (
            "javascript&#58;alert(1)",
            false,
            md,
            Some("./javascript&#58;alert%281%29"),
        ),
        (
            "javascript&#58;alert(1)",
            false,
            html,
            Some("javascript&#58;alert(1)"),
        ),
    ];
    for &(raw, based, fmt, want) in cases {
        let b = if based { base.as_ref() } else { None };
        let got = safe_address(raw, b, LINK_SCHEMES, fmt);
        assert_eq!(got.as_deref(), want, "{raw:?}");
    }
    let mail = safe_address("mailto:a@b.org", base.as_ref(), IMAGE_SCHEMES, html);
    assert_eq!(mail, None);
    // a scripting or data base is no base; the page's URL stands
    let based = |url: Option<&str>, href: &str| base_url(url, Some(href)).map(String::from);
    let page = Some("https://ex.org/p");
    assert_eq!(based(page, "javascript:alert(1)//").as_deref(), page);
    assert_eq!(based(page, "javascript://%0aalert(1)//").as_deref(), page);
    assert_eq!(based(None, "data:text/html,x"), None);
    assert_eq!(base_url(Some("javascript:x"), None), None);
    assert_eq!(
        based(page, "http://cdn.ex.org/").as_deref(),
        Some("http://cdn.ex.org/")
    );
}

#[test]
fn lazy_images_take_their_data_src() {
    let page = "<p><img src='data:image/gif;base64,R0l' data-src='/big.jpg' alt='B'></p>";
    let opts = Options {
        images: true,
        base: base_url(Some("https://ex.org/a"), None),
        ..Options::default()
    };
    assert_eq!(md_with(page, &[], opts), "![B](https://ex.org/big.jpg)");
}

#[test]
fn html_fragment_keeps_the_structure() {
    let page = "<h2>T &amp; U</h2><p>a <b>b</b><br>c <code>&lt;x&gt;</code></p>\
                <ol start=3><li>x</li><li><p>y</p><p>z</p></li></ol>\
                <ul><li>p<ul><li>q</li></ul></li></ul>\
                <pre class='language-rs'>fn a() {\n  1 < 2\n}</pre><blockquote>q</blockquote><hr>";
    assert_eq!(
        html(page),
        "<h2>T &amp; U</h2>\n<p>a <strong>b</strong><br>\nc <code>&lt;x&gt;</code></p>\n\
         <ol start=\"3\">\n<li>x</li>\n<li><p>y</p>\n<p>z</p></li>\n</ol>\n\
         <ul>\n<li>p\n<ul>\n<li>q</li>\n</ul></li>\n</ul>\n\
         <pre><code class=\"language-rs\">fn a() {\n  1 &lt; 2\n}</code></pre>\n\
         <blockquote>\n<p>q</p>\n</blockquote>\n<hr>"
    );
}

#[test]
fn html_table_keeps_its_cells_and_spans() {
    let page = "<table><tr><th colspan=2>Both</th></tr><tr><td>a</td><td>b &lt; c</td></tr>\
                <tr><td></td><td></td></tr></table>";
    assert_eq!(
        html(page),
        "<table>\n<tbody>\n<tr><th colspan=\"2\">Both</th></tr>\n\
         <tr><td>a</td><td>b &lt; c</td></tr>\n</tbody>\n</table>"
    );
}

#[test]
fn text_keeps_paragraphs_line_breaks_and_code_lines_without_markup() {
    let page = "<h1>Title *x*</h1><p>one<br>two <em>three</em> [4]</p>\
                <ul><li>a</li><li>b</li></ul><pre>x = 1\n\ny = 2</pre>\
                <table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td>2</td></tr></table>";
    assert_eq!(
        text(page),
        "Title *x*\n\none\ntwo three [4]\n\n- a\n- b\n\nx = 1\n\ny = 2\n\nk | v\n1 | 2"
    );
}

#[test]
fn title_heading_is_escaped_for_its_format() {
    assert_eq!(
        title_heading(" A  *B* #", Format::Markdown),
        "# A \\*B\\* \\#"
    );
    assert_eq!(title_heading("A < B", Format::Html), "<h1>A &lt; B</h1>");
    assert_eq!(title_heading("A\n B", Format::Text), "A B");
}

#[test]
fn list_in_a_cell_stays_in_its_cell() {
    let page =
        "<table><tr><th>Products</th><td><ul><li>Firefox</li><li>Thunderbird</li></ul></td></tr>\
                <tr><th>Founded</th><td>2003</td></tr></table>";
    assert_eq!(
        md(page),
        "| Products | Firefox; Thunderbird |\n| --- | --- |\n| Founded | 2003 |"
    );
    // a list beside paragraphs: a layout cell
    let layout = "<table><tr><td><p>Intro</p><ul><li>a</li></ul></td><td>x</td></tr>\
                  <tr><td>1</td><td>2</td></tr></table>";
    assert_eq!(md(layout), "Intro\n\n- a\n\nx\n\n1 · 2");
}

#[test]
fn content_cells_of_a_noise_table_stay_a_table() {
    // nids: body 1, table 2, tbody 3, tr 4-6; cells 7-8, 9-10, 11-12
    let page = "<table><tr><td>menu</td><td>x</td></tr><tr><td>k</td><td>v</td></tr>\
                <tr><td>1</td><td>2</td></tr></table>";
    let kept = [(1, false), (9, true), (10, true), (11, true), (12, true)];
    assert_eq!(
        md_with(page, &kept, Options::default()),
        "| k | v |\n| --- | --- |\n| 1 | 2 |"
    );
    // no content cell: the table's content below it is written as blocks
    assert_eq!(
        md_with(page, &[(1, false), (2, false)], Options::default()),
        ""
    );
}

#[test]
fn a_line_break_at_an_inline_element_s_edge_still_parts_the_words() {
    assert_eq!(
        md("<p><strong>Huge expectations<br></strong>Ride on</p>"),
        "**Huge expectations**\\\nRide on"
    );
    assert_eq!(
        md("<p><b>Apps</b><b><br></b><span>Facilitate</span></p>"),
        "**Apps**\\\nFacilitate"
    );
    assert_eq!(text("<p>x<i><br>a</i>b</p>"), "x\nab");
}

#[test]
fn what_stands_in_a_list_outside_its_items_keeps_its_place() {
    assert_eq!(
        md("<ol>Benefits: <li>one</li><li>two</li><h3>More</h3><li>three</li></ol>"),
        "Benefits:\n\n1. one\n2. two\n\n### More\n\n3. three"
    );
    // a nested list without items: its text is written, not dropped
    assert_eq!(md("<ul><ul>A quoted line.</ul></ul>"), "A quoted line.");
    assert_eq!(md("<ul><li>a</li><ul><li>a1</li></ul></ul>"), "- a\n  - a1");
}

#[test]
fn a_formula_in_markdown_holds_no_markup_a_browser_runs() {
    assert_eq!(
        inert_tex("a<b>c [x](javascript:alert(1))"),
        "a\\lt b\\gt c [x] (javascript:alert(1))"
    );
    assert_eq!(inert_tex("\\frac{a}{b}"), "\\frac{a}{b}");
    // a space after the name only where none follows already
    assert_eq!(inert_tex("a > 0, b<c, d>"), "a \\gt 0, b\\lt c, d\\gt ");
}
