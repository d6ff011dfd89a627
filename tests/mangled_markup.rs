//! A call whose opening tag was mangled after the dialect's tag prefix (DeepSeek's
//! `<｜DSML｜toolinvoke name">`, seen from small local models): the prefix, a special
//! token's, says markup follows, so nothing of the call reaches visible text; it is
//! reported, never released. Every dialect whose openers carry such a prefix (`<｜X｜`
//! followed by the tag), found from `Dialect::openers`; whole and under every chunking.

mod support;

use toolsift::render::{Call, Style, Turn};
use toolsift::{Config, Dialect, StopReason};

/// The tag prefix an opener carries (`<｜DSML｜` of `<｜DSML｜invoke name=`), if any: a
/// special token followed by the tag's name in ordinary text (a whole special token,
/// `<｜tool▁call▁begin｜>`, cannot be mangled inside).
fn prefix(opener: &str) -> Option<&str> {
    let rest = opener.strip_prefix("<｜")?;
    let end = rest.find('｜')? + "<｜".len() + '｜'.len_utf8();
    let next = opener[end..].chars().next()?;
    (next.is_ascii_alphabetic() || next == ' ').then(|| &opener[..end])
}

#[test]
fn a_mangled_opener_after_a_tag_prefix_never_reaches_text() {
    let mut checked = Vec::new();
    let mut wrong = Vec::new();
    for form in Dialect::ALL.iter().flat_map(|d| d.forms()) {
        let dialect = form.dialect();
        let mut turn = Turn::new();
        if form.text_before() {
            turn = turn.text("Listing.");
        }
        let turn = turn.call(Call::new("get_weather", r#"{"city": "Paris"}"#));
        let style = Style::new().form(form.name());
        let written = dialect.render_with(&turn, &style).unwrap().output;
        for opener in dialect.openers() {
            let opener = String::from_utf8_lossy(opener).into_owned();
            let Some(prefix) = prefix(&opener) else {
                continue;
            };
            let Some(at) = written.find(&opener) else {
                continue;
            };
            checked.push(format!("{}/{} {opener}", dialect.name(), form.name()));
            let name_end = written[at..]
                .find('>')
                .map_or(written.len(), |e| at + e + 1);
            for mangled in [
                // The opener's word mangled, the name kept.
                format!("{prefix}toolinvoke name={}", &written[at + opener.len()..]),
                // The name lost too.
                format!("{prefix}toolinvoke name\">{}", &written[name_end..]),
                // A tag that reads as a name: a guess, never released.
                format!("{prefix}toolinvoke>{}", &written[name_end..]),
            ] {
                let raw = format!("{}{mangled}", &written[..at]);
                let config = Config::new(dialect);
                let events =
                    match support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop) {
                        Ok(events) => events,
                        Err(e) => {
                            wrong.push(format!("{} {raw:?}: {e}", dialect.name()));
                            continue;
                        }
                    };
                let shown = support::shown(&events);
                let leaked = ["toolinvoke", "Paris", "city", "｜"]
                    .iter()
                    .any(|w| shown.text.contains(w));
                let lost = form.text_before() && !shown.text.contains("Listing.");
                if !shown.released.is_empty() || shown.held != 1 || leaked || lost {
                    wrong.push(format!("{} {raw:?}: {shown:?}", dialect.name()));
                }
            }
        }
    }
    assert!(checked.len() >= 3, "too few prefixed openers: {checked:?}");
    assert!(
        wrong.is_empty(),
        "checked {checked:?}\n{}",
        wrong.join("\n")
    );
}
