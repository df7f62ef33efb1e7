//! The rules set against the model, as one registered table (`RULES`).
//!
//! The model scores every block; the page's cut keeps those over it. Then the rules speak:
//! each is a switch a user sets (`--set default.NAME=VALUE`, Python's `DefaultParams`), and
//! each lives in a file of this folder that opens with what it does, why, an example and
//! the switch that turns it off. `RULES` is the one list of them: the switch names, their
//! values and defaults, their parsing and error texts (`Settings::parse`), the name a
//! block's reason gives (`decided_by`) and Python's settings (`_native.rules()`) all come
//! from it, and `decide` runs it. A new rule is a file here and a row in `table.rs`.
//!
//! The rules run by phase (`decide`): what the bar rules mark is never main text,
//! so it is out before the others read the kept text; the bring-in rules add to the kept
//! text one after another, each reading what the ones before it kept; the take-out rules
//! read all that was brought in; the editorial kinds read what is left. The table's order is
//! the precedence: a block several rules mark is decided by the first of them.
//! `toolkit.rs` holds what several rules read of a page.

mod articles;
mod choices;
mod consent;
mod dialogs;
mod editorial;
mod hidden;
mod listings;
mod notices;
mod records;
mod reviews;
mod slideshows;
mod table;
mod teasers;
mod toolkit;
mod unseen;

use table::TABLE;
pub(crate) use table::{N_RULES, RULES};

use crate::page::blocks::{BlockId, PageBlocks};
use crate::read::dom::View;
use Phase::{Bar, BringIn, Editorial, TakeOut};
use Report::{Always, Brought, OverCut, OverCutOrBrought};

/// When a rule runs, what it reads, and so what its marks mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Never main text: run first, from the page and the model's cut; what they mark no
    /// later rule counts as the page's text, and no verdict keeps.
    Bar,
    /// Adds to the kept text: each reads what the model and the bring-in rules before it
    /// kept, and marks what it brings in.
    BringIn,
    /// Takes out of the kept text: each reads all that was brought in, and marks what it
    /// takes out.
    TakeOut,
    /// The editorial kinds (comments, captions, bylines, dates), read last from what is
    /// kept: each marks the blocks of its sections that its setting decides.
    Editorial,
}

impl Phase {
    /// Its name as Python reads it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Phase::Bar => "bar",
            Phase::BringIn => "bring-in",
            Phase::TakeOut => "take-out",
            Phase::Editorial => "editorial",
        }
    }
}

/// A switch's value: `auto` leaves the blocks to the model; `drop` and `keep` decide them;
/// `separate` (comments only) drops them from the main text and keeps them apart, as the
/// result's comments (`pipeline::comment_elements`); `stories` (comments only) drops them
/// on a page that declares a story and is no discussion, and leaves the rest to the model
/// (`editorial::comments`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Setting {
    #[default]
    Auto,
    Drop,
    Keep,
    Separate,
    Stories,
}

impl Setting {
    const ALL: [Setting; 5] = [
        Setting::Auto,
        Setting::Drop,
        Setting::Keep,
        Setting::Separate,
        Setting::Stories,
    ];

    pub(crate) fn word(self) -> &'static str {
        match self {
            Setting::Auto => "auto",
            Setting::Drop => "drop",
            Setting::Keep => "keep",
            Setting::Separate => "separate",
            Setting::Stories => "stories",
        }
    }

    /// What a rule set so decides of the blocks it marks in the main text (none for
    /// `auto`; `separate` takes them out of it, and `stories` on the pages it reads).
    fn decision(self) -> Option<Decision> {
        match self {
            Setting::Auto => None,
            Setting::Drop | Setting::Separate | Setting::Stories => Some(Decision::Drop),
            Setting::Keep => Some(Decision::Keep),
        }
    }
}

/// What a rule decides of a block it marks, whatever the model said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    Keep,
    Drop,
}

/// When a block a rule marks names the rule in its verdict. Where it does not, the block
/// is still the rule's (no rule after it in the table decides it) and its verdict is what
/// was kept of it after every phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Report {
    /// every block it marks
    Always,
    /// a block over the model's cut (a consent dialog's text the model left out needs no
    /// word, even where a bring-in rule took it in)
    OverCut,
    /// a block over the model's cut or brought in by a bring-in rule
    OverCutOrBrought,
    /// a block brought in: the model's or a bring-in rule's
    Brought,
}

/// One rule: its switch, and how it runs.
pub(crate) struct Rule {
    /// the switch's name (`--set default.NAME=...`), the one a block's reason gives
    pub(crate) name: &'static str,
    pub(crate) phase: Phase,
    /// the settings that turn it on (`auto`, always allowed besides, leaves it off)
    pub(crate) on: &'static [Setting],
    /// the cleaner's default (Python's `DefaultParams`; the core's `Settings` start at auto)
    pub(crate) default: Setting,
    /// when a block it marks names it (`Report`)
    pub(crate) report: Report,
    /// one line on what it does (`sitesift methods default` shows it)
    pub(crate) summary: &'static str,
    /// The blocks it marks on the page (see `Phase`), under its setting (never `auto`);
    /// None where it marks none (off on this page: a listing on a page cut at infinity).
    pub(crate) run: fn(&Context, Setting) -> Option<Vec<bool>>,
}

impl Rule {
    /// The values its switch takes, the default first (`auto` and the settings that turn
    /// it on).
    pub(crate) fn values(&self) -> Vec<Setting> {
        let allowed = |s: &Setting| *s == Setting::Auto || self.on.contains(s);
        let rest = Setting::ALL.into_iter().filter(|s| *s != self.default);
        std::iter::once(self.default)
            .chain(rest)
            .filter(allowed)
            .collect()
    }
}

/// A rule: its place in `RULES`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct RuleId(u8);

impl RuleId {
    /// The rule of that name; a name no rule has stops the build where it is a constant.
    pub(crate) const fn named(name: &str) -> RuleId {
        let mut i = 0;
        while i < N_RULES {
            if same(TABLE[i].name, name) {
                return RuleId(i as u8);
            }
            i += 1;
        }
        panic!("no rule of that name");
    }

    pub(crate) fn rule(self) -> &'static Rule {
        &RULES[self.index()]
    }

    pub(crate) fn index(self) -> usize {
        usize::from(self.0)
    }

    /// Every rule, in precedence order.
    pub(crate) fn all() -> impl Iterator<Item = RuleId> {
        (0..N_RULES as u8).map(RuleId)
    }
}

/// (`str` equality for a `const fn`.)
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// `comments`: the one rule whose blocks can be kept apart (`comments=separate`).
pub(crate) const COMMENTS: RuleId = RuleId::named("comments");

/// `unseen=keep`: the one rule that asks whether the page is unlike the training pages.
pub(crate) const UNSEEN: RuleId = RuleId::named("unseen");

/// The name of the rule that decided a block against the model (its switch's).
pub(crate) fn decided_by(id: RuleId) -> &'static str {
    id.rule().name
}

/// Every rule's setting: what a user set, `auto` for the rest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Settings([Setting; N_RULES]);

impl Settings {
    /// From `(switch, value)` pairs: each switch a rule's name, each value one of its
    /// `Rule::values`; switches not named are `auto`.
    pub(crate) fn parse<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, String> {
        let mut settings = Settings::default();
        for (name, value) in pairs {
            let Some(id) = RuleId::all().find(|id| id.rule().name == name) else {
                let names: Vec<&str> = RULES.iter().map(|r| r.name).collect();
                return Err(format!(
                    "unknown convention {name:?}: use one of {}",
                    names.join(", ")
                ));
            };
            let values = id.rule().values();
            let Some(&setting) = values.iter().find(|s| s.word() == value) else {
                let words: Vec<&str> = values.iter().map(|s| s.word()).collect();
                return Err(format!("{name}={value}: use {}", either(&words)));
            };
            settings.0[id.index()] = setting;
        }
        Ok(settings)
    }

    pub(crate) fn get(&self, id: RuleId) -> Setting {
        self.0[id.index()]
    }

    /// Is the rule on (not `auto`)?
    pub(crate) fn is_on(&self, id: RuleId) -> bool {
        self.get(id) != Setting::Auto
    }
}

/// `a`, `a or b`, `a, b or c`.
fn either(words: &[&str]) -> String {
    match words.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => words.join(""),
    }
}

/// What a rule reads of the page when it runs.
#[derive(Clone, Copy)]
pub(crate) struct Context<'a> {
    pub(crate) pb: &'a PageBlocks,
    pub(crate) view: &'a View,
    /// each block's probability
    pub(crate) prob: &'a [f64],
    /// the page's cut, and its cut at the balanced preset (infinite both on a page sure to
    /// have no main content: `pipeline::verdicts`)
    pub(crate) cut: f64,
    pub(crate) balanced: f64,
    /// is the page unlike every page the model trained on (`Model::novel`; asked only
    /// where `unseen` is on)?
    pub(crate) novel: bool,
    /// what the bar rules marked (none yet while they run)
    pub(crate) barred: &'a [bool],
    /// what the model's cut kept and no bar rule marked (none yet while the bar rules run)
    pub(crate) sure: &'a [bool],
    /// The kept text as the rule's phase reads it: the model's cut (bar), `sure` with what
    /// the bring-in rules before it brought in (bring-in), all that was brought in
    /// (take-out), that less what was barred or taken out (editorial).
    pub(crate) kept: &'a [bool],
}

/// What the rules make of a block: is it content, and which rule decided so (None where
/// no rule names itself: the model's cut, or a rule's mark without a word, `Report`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ruling {
    pub(crate) content: bool,
    pub(crate) by: Option<RuleId>,
}

/// Per block: the rules' ruling on the page (`prob`: each block's probability; `cut` and
/// `balanced`: the page's cuts; `novel`: `Context::novel`), with each rule as `settings`
/// sets it.
pub(crate) fn decide(
    pb: &PageBlocks,
    view: &View,
    prob: &[f64],
    (cut, balanced): (f64, f64),
    novel: bool,
    settings: &Settings,
) -> Vec<Ruling> {
    let n = prob.len();
    let none = vec![false; n];
    let over: Vec<bool> = prob.iter().map(|&x| x >= cut).collect();
    let base = Context {
        pb,
        view,
        prob,
        cut,
        balanced,
        novel,
        barred: &none,
        sure: &none,
        kept: &over,
    };
    let mut marks: [Option<Vec<bool>>; N_RULES] = Default::default();
    let on = |phase: Phase| {
        RuleId::all().filter(move |&id| id.rule().phase == phase && settings.is_on(id))
    };
    let run = |id: RuleId, cx: &Context| (id.rule().run)(cx, settings.get(id));
    for id in on(Bar) {
        marks[id.index()] = run(id, &base);
    }
    let barred = marked(&marks, Bar, n);
    let sure: Vec<bool> = BlockId::all(n).map(|b| over[b] && !barred[b]).collect();
    // each bring-in rule reads what the model and the ones before it kept
    let mut kept = sure.clone();
    for id in on(BringIn) {
        let cx = Context {
            barred: &barred,
            sure: &sure,
            kept: &kept,
            ..base
        };
        if let Some(more) = run(id, &cx) {
            kept.iter_mut().zip(&more).for_each(|(k, &m)| *k |= m);
            marks[id.index()] = Some(more);
        }
    }
    let brought = kept;
    let cx = Context {
        barred: &barred,
        sure: &sure,
        kept: &brought,
        ..base
    };
    for id in on(TakeOut) {
        marks[id.index()] = run(id, &cx);
    }
    let taken = marked(&marks, TakeOut, n);
    let likely: Vec<bool> = BlockId::all(n)
        .map(|b| brought[b] && !taken[b] && !barred[b])
        .collect();
    let cx = Context {
        kept: &likely,
        ..cx
    };
    for id in on(Editorial) {
        marks[id.index()] = run(id, &cx);
    }
    BlockId::all(n)
        .map(|b| {
            // the first rule in the table that marks the block decides it
            let first = RuleId::all().find(|id| marks[id.index()].as_ref().is_some_and(|m| m[b]));
            let named = first.filter(|id| match id.rule().report {
                Always => true,
                OverCut => over[b],
                OverCutOrBrought => over[b] || brought[b],
                Brought => brought[b],
            });
            let decision = named.and_then(|id| settings.get(id).decision());
            Ruling {
                content: decision.map_or(likely[b], |d| d == Decision::Keep),
                by: named,
            }
        })
        .collect()
}

/// Per block: does a rule of `phase` mark it?
fn marked(marks: &[Option<Vec<bool>>], phase: Phase, n: usize) -> Vec<bool> {
    let mut out = vec![false; n];
    for id in RuleId::all().filter(|id| id.rule().phase == phase) {
        if let Some(m) = &marks[id.index()] {
            out.iter_mut().zip(m).for_each(|(o, &x)| *o |= x);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::Setting::{Auto, Drop, Keep};
    use super::*;

    fn parse(pairs: &[(&str, &str)]) -> Result<Settings, String> {
        Settings::parse(pairs.iter().copied())
    }

    #[test]
    fn settings_parse_and_bad_ones_are_refused() {
        let c = parse(&[("captions", "keep"), ("comments", "drop")]).unwrap();
        let (comments, captions) = (RuleId::named("comments"), RuleId::named("captions"));
        assert_eq!((c.get(comments), c.get(captions)), (Drop, Keep));
        assert!(RuleId::all()
            .filter(|&id| id != comments && id != captions)
            .all(|id| !c.is_on(id)));
        assert_eq!(Settings::default(), parse(&[]).unwrap());
        assert_eq!(
            parse(&[("comments", "keep")]).unwrap_err(),
            "comments=keep: use stories, auto, drop or separate"
        );
        let apart = parse(&[("comments", "separate")]).unwrap();
        assert_eq!(apart.get(comments), Setting::Separate);
        assert_eq!(
            parse(&[("captions", "separate")]).unwrap_err(),
            "captions=separate: use auto, drop or keep"
        );
        assert_eq!(
            parse(&[("dates", "sometimes")]).unwrap_err(),
            "dates=sometimes: use auto, drop or keep"
        );
        let unknown = parse(&[("tweets", "drop")]).unwrap_err();
        assert!(unknown.starts_with("unknown convention \"tweets\": use one of comments, "));
        for rule in RULES.iter().filter(|r| r.phase != Editorial) {
            let word = rule.on[0].word();
            let s = parse(&[(rule.name, word)]).unwrap();
            let id = RuleId::named(rule.name);
            assert!(
                s.is_on(id) && !Settings::default().is_on(id),
                "{}",
                rule.name
            );
            assert!(parse(&[(rule.name, "auto")]).is_ok());
            let other = if word == "keep" { "drop" } else { "keep" };
            assert_eq!(
                parse(&[(rule.name, other)]).unwrap_err(),
                format!("{}={other}: use {word} or auto", rule.name)
            );
            assert_eq!(decided_by(id), rule.name);
        }
        let all = parse(&[("reviews", "drop"), ("dialogs", "drop"), ("hidden", "drop")]).unwrap();
        assert!(["reviews", "dialogs", "hidden"]
            .iter()
            .all(|&n| all.get(RuleId::named(n)) == Drop));
    }

    #[test]
    fn the_table_holds_its_promises() {
        // one rule a name; each default one of its values, first; the switches on by
        // default but the editorial kinds, of which comments is on (`stories`)
        let mut names: Vec<&str> = RULES.iter().map(|r| r.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), N_RULES);
        for r in &RULES {
            let values = r.values();
            assert_eq!(values[0], r.default, "{}", r.name);
            assert_eq!(values.len(), r.on.len() + 1, "{}", r.name);
            let editorial = r.phase == Editorial && r.name != "comments";
            assert_eq!(r.default == Auto, editorial, "{}", r.name);
            assert!(!r.on.contains(&Auto) && !r.summary.is_empty(), "{}", r.name);
        }
        // the precedence the verdicts rely on: the editorial kinds, bar, take-out, then
        // bring-in (what is brought in and taken out is the taking rule's)
        let rank = |p: Phase| {
            [Editorial, Bar, TakeOut, BringIn]
                .iter()
                .position(|&x| x == p)
        };
        assert!(RULES
            .windows(2)
            .all(|w| rank(w[0].phase) <= rank(w[1].phase)));
        assert_eq!(
            RULES
                .iter()
                .filter(|r| r.phase == BringIn)
                .map(|r| r.name)
                .collect::<Vec<_>>(),
            ["records", "listings", "articles", "unseen"]
        );
        assert_eq!(decided_by(UNSEEN), "unseen");
        assert_eq!(RuleId::named("comments"), RuleId::all().next().unwrap());
    }

    #[test]
    fn a_switchs_values_start_with_its_default() {
        let words = |name: &str| -> Vec<&str> {
            RuleId::named(name)
                .rule()
                .values()
                .iter()
                .map(|s| s.word())
                .collect()
        };
        assert_eq!(words("comments"), ["stories", "auto", "drop", "separate"]);
        assert_eq!(words("captions"), ["auto", "drop", "keep"]);
        assert_eq!(words("records"), ["keep", "auto"]);
        assert_eq!(words("hidden"), ["drop", "auto"]);
        assert_eq!(either(&["a"]), "a");
        assert_eq!(either(&["a", "b", "c"]), "a, b or c");
    }
}
