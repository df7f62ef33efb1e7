//! The rules, one row each, in precedence order: the one table the switches' names,
//! values, defaults, parsing, Python's settings and `decide` are made from (`mod.rs` tells
//! what each column means). A new rule is a file in this folder and a row here.

use super::Phase::{Bar, BringIn, Editorial, TakeOut};
use super::Report::{Always, Brought, OverCut, OverCutOrBrought};
use super::Setting::{Auto, Drop, Keep, Separate, Stories};
use super::{
    articles, choices, consent, dialogs, editorial, hidden, listings, notices, records, reviews,
    slideshows, teasers, unseen, Context, Phase, Report, Rule, Setting,
};

/// How many rules there are.
pub(crate) const N_RULES: usize = 16;

/// Every rule, in precedence order: the editorial kinds (in a section of two kinds, the
/// first decides), then the bar rules, the take-out rules and the bring-in rules. A block
/// brought in and then barred or taken out is the barring or taking rule's, which comes
/// first; the bring-in rules come in the order they run, each adding to what the ones
/// before it kept.
#[rustfmt::skip]
pub(super) const TABLE: [Rule; N_RULES] = [
    //   name          phase      on (or auto)    def.  report            run; the summary below
    rule("comments",   Editorial, &[Drop, Separate, Stories], Stories, Always, editorial::comments,
         "The page's comment section (named by class, id, role or itemprop); `stories`: where the page declares a story, no forum; `separate`: apart."),
    rule("captions",   Editorial, &[Drop, Keep],  Auto, Always,           editorial::captions,
         "Photo captions and credits (`<figcaption>`, a class or id naming a caption)."),
    rule("bylines",    Editorial, &[Drop, Keep],  Auto, Always,           editorial::bylines,
         "Bylines and author boxes (a class, id, itemprop or rel naming an author)."),
    rule("dates",      Editorial, &[Drop, Keep],  Auto, Always,           editorial::dates,
         "Dates (a class, id or itemprop naming a date, dateline or timestamp)."),
    rule("consent",    Bar,       &[Drop],        Drop, OverCut,          consent::run,
         "A cookie-consent dialog (OneTrust, Cookiebot, Didomi, `cookie-banner`, ...)."),
    rule("notices",    Bar,       &[Drop],        Drop, OverCutOrBrought, notices::run,
         "Ad-slot labels (\"Advertisement\") and a footer's copyright notice."),
    rule("choices",    Bar,       &[Drop],        Drop, OverCutOrBrought, choices::run,
         "The options of a drop-down list (a `<select>`'s)."),
    rule("hidden",     Bar,       &[Drop],        Drop, OverCutOrBrought, hidden::run,
         "Text a hiding utility class hides (`hidden`, `d-none`, `is-hidden`, ...)."),
    rule("slideshows", TakeOut,   &[Drop],        Drop, Brought,          slideshows::run,
         "A numbered slideshow (`1/44`, `3 of 18`) beside the main text."),
    rule("teasers",    TakeOut,   &[Drop],        Drop, Brought,          teasers::run,
         "Other stories' teasers beside the text: a stream beside a story, teasers cut off with \"...\", a run listing the page itself."),
    rule("reviews",    TakeOut,   &[Drop],        Drop, Brought,          reviews::run,
         "On a product page, the customer reviews."),
    rule("dialogs",    TakeOut,   &[Drop],        Drop, Brought,          dialogs::run,
         "A modal dialog's text (`modal`, `popup`, `lightbox`, role `dialog`)."),
    rule("records",    BringIn,   &[Keep],        Keep, Always,           records::run,
         "Alike records (a thread's posts) take the verdicts of those the model kept."),
    rule("listings",   BringIn,   &[Keep],        Keep, Always,           listings::run,
         "A page without prose keeps its largest run of alike records (a shop's category)."),
    rule("articles",   BringIn,   &[Keep],        Keep, Always,           articles::run,
         "Where the kept text holds no prose, the `<article>` of the main block keeps its prose; on a page declaring no story, its half-believed sentences too."),
    rule("unseen",     BringIn,   &[Keep],        Keep, Always,           unseen::run,
         "On a page unlike any the model trained on, the blocks it half-believes are kept."),
];

/// Every rule, in precedence order (`TABLE`).
pub(crate) static RULES: [Rule; N_RULES] = TABLE;

/// A row of the table (the columns in a line; `Rule`'s fields in its order).
const fn rule(
    name: &'static str,
    phase: Phase,
    on: &'static [Setting],
    default: Setting,
    report: Report,
    run: fn(&Context, Setting) -> Option<Vec<bool>>,
    summary: &'static str,
) -> Rule {
    Rule {
        name,
        phase,
        on,
        default,
        report,
        summary,
        run,
    }
}
