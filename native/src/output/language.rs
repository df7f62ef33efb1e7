//! The language of a page's main text (issue 55): whatlang's trigram detector on a bounded
//! prefix of the text, its language named by ISO 639-1 as DataTrove and FineWeb write it.
//! Chosen by measurement beside lingua, fastText's lid.176, py3langid and Resiliparse
//! (`benchmarks/language_check.py`, docs/language.md): as accurate as the best of them on the
//! shared corpora's pages, for a few per cent of the cleaner's CPU, with no model to load.

use whatlang::Lang;

/// The characters of the text read: the first this many (at a character boundary). The
/// agreement with the pages' declared language is the same with 2,048 as with the whole
/// text, and the detector's time grows with what it reads (docs/language.md).
pub(crate) const PREFIX_CHARS: usize = 2048;

/// The language of `text` as (ISO 639-1 code, confidence in [0, 1]), from its first
/// `PREFIX_CHARS` characters; None where there is nothing to read (no letters) or whatlang
/// finds no language.
pub(crate) fn detect(text: &str) -> Option<(&'static str, f64)> {
    let head = match text.char_indices().nth(PREFIX_CHARS) {
        Some((end, _)) => &text[..end],
        None => text,
    };
    if !head.chars().any(char::is_alphabetic) {
        return None;
    }
    let info = whatlang::detect(head)?;
    Some((iso639_1(info.lang()), info.confidence().clamp(0.0, 1.0)))
}

/// The ISO 639-1 code of one of whatlang's languages (all 69 have one; Mandarin is `zh`,
/// Western Persian `fa`, Norwegian Bokmål `nb`).
fn iso639_1(lang: Lang) -> &'static str {
    match lang {
        Lang::Epo => "eo",
        Lang::Eng => "en",
        Lang::Rus => "ru",
        Lang::Cmn => "zh",
        Lang::Spa => "es",
        Lang::Por => "pt",
        Lang::Ita => "it",
        Lang::Ben => "bn",
        Lang::Fra => "fr",
        Lang::Deu => "de",
        Lang::Ukr => "uk",
        Lang::Kat => "ka",
        Lang::Ara => "ar",
        Lang::Hin => "hi",
        Lang::Jpn => "ja",
        Lang::Heb => "he",
        Lang::Yid => "yi",
        Lang::Pol => "pl",
        Lang::Amh => "am",
        Lang::Jav => "jv",
        Lang::Kor => "ko",
        Lang::Nob => "nb",
        Lang::Dan => "da",
        Lang::Swe => "sv",
        Lang::Fin => "fi",
        Lang::Tur => "tr",
        Lang::Nld => "nl",
        Lang::Hun => "hu",
        Lang::Ces => "cs",
        Lang::Ell => "el",
        Lang::Bul => "bg",
        Lang::Bel => "be",
        Lang::Mar => "mr",
        Lang::Kan => "kn",
        Lang::Ron => "ro",
        Lang::Slv => "sl",
        Lang::Hrv => "hr",
        Lang::Srp => "sr",
        Lang::Mkd => "mk",
        Lang::Lit => "lt",
        Lang::Lav => "lv",
        Lang::Est => "et",
        Lang::Tam => "ta",
        Lang::Vie => "vi",
        Lang::Urd => "ur",
        Lang::Tha => "th",
        Lang::Guj => "gu",
        Lang::Uzb => "uz",
        Lang::Pan => "pa",
        Lang::Aze => "az",
        Lang::Ind => "id",
        Lang::Tel => "te",
        Lang::Pes => "fa",
        Lang::Mal => "ml",
        Lang::Ori => "or",
        Lang::Mya => "my",
        Lang::Nep => "ne",
        Lang::Sin => "si",
        Lang::Khm => "km",
        Lang::Tuk => "tk",
        Lang::Aka => "ak",
        Lang::Zul => "zu",
        Lang::Sna => "sn",
        Lang::Afr => "af",
        Lang::Lat => "la",
        Lang::Slk => "sk",
        Lang::Cat => "ca",
        Lang::Tgl => "tl",
        Lang::Hye => "hy",
    }
}

/// Every code `detect` can give, sorted: what `--lang` accepts.
pub(crate) fn codes() -> Vec<&'static str> {
    let mut all: Vec<&'static str> = Lang::all().iter().map(|&l| iso639_1(l)).collect();
    all.sort_unstable();
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_language_of_ordinary_prose() {
        let cases = [
            (
                "The fishing boats of the small harbour sailed at dawn, as they have every \
              morning for a hundred years, and came back with a full catch before noon.",
                "en",
            ),
            (
                "Die Fischerboote des kleinen Hafens liefen im Morgengrauen aus, wie sie es seit \
              hundert Jahren jeden Morgen tun, und kamen vor Mittag mit vollem Fang zurück.",
                "de",
            ),
            (
                "Les bateaux de pêche du petit port sont partis à l'aube, comme chaque matin \
              depuis cent ans, et sont revenus avant midi avec une pêche abondante.",
                "fr",
            ),
            (
                "Рыболовные лодки маленькой гавани вышли на рассвете, как и каждое утро на \
              протяжении ста лет.",
                "ru",
            ),
        ];
        for (text, code) in cases {
            let (got, score) = detect(text).expect("a language");
            assert_eq!(got, code, "{text}");
            assert!((0.0..=1.0).contains(&score), "{score}");
        }
    }

    #[test]
    fn nothing_to_read_is_no_language() {
        assert_eq!(detect(""), None);
        assert_eq!(detect("  \n\n 12 345 -- !! "), None);
    }

    #[test]
    fn reads_a_bounded_prefix() {
        // German first, then far more English than the prefix holds: the prefix decides
        let german = "Die Fischerboote des kleinen Hafens liefen im Morgengrauen aus, wie \
                      sie es seit hundert Jahren jeden Morgen tun. ";
        let mut text = german.repeat(PREFIX_CHARS / german.chars().count() + 1);
        text.push_str(&"The boats came back with a full catch before noon. ".repeat(500));
        assert_eq!(detect(&text).map(|(c, _)| c), Some("de"));
        // a multi-byte character at the cut is not split
        let wide = "ü".repeat(PREFIX_CHARS + 10);
        let _ = detect(&wide);
    }

    #[test]
    fn every_language_has_a_two_letter_code() {
        let all = codes();
        assert_eq!(all.len(), Lang::all().len());
        assert!(all
            .iter()
            .all(|c| c.len() == 2 && c.bytes().all(|b| b.is_ascii_lowercase())));
        let mut unique = all.clone();
        unique.dedup();
        assert_eq!(unique.len(), all.len());
    }
}
