//! The marker tables of the dialects in force, built from dialect data once per
//! process and shared.

use super::*;

#[derive(Copy, Clone, Debug)]
pub(super) enum Action {
    /// Open reasoning; the index of its table.
    Reason(usize),
    /// Close reasoning.
    EndReason,
    /// Begin a call.
    Call(&'static CallForm),
    /// Drop the marker.
    Strip,
    /// A call's opener inside reasoning, left there as reasoning
    /// ([`InReasoning::Ignore`]): counted, and kept as the reasoning's text.
    InReasoning(&'static [u8]),
}

#[derive(Clone, Debug, Default)]
pub(super) struct Table {
    pub(super) set: MarkerSet,
    pub(super) actions: Vec<Action>,
    /// The bytes plain text stops at: a marker's first byte, or a byte that is not
    /// ASCII (it needs the UTF-8 check). Every other byte is text as it stands.
    pub(super) stop: TextStops,
}

impl Table {
    pub(super) fn seal(&mut self) {
        self.stop = TextStops::new(|b| self.set.starts_with_byte(b))
            .follow(|first| (self.set.seconds(first), self.set.thirds(first)));
    }

    /// The plain text at the start of `chunk`: the bytes before the first that may
    /// begin a marker where it stands or does not begin a whole UTF-8 character in the
    /// chunk. A byte that begins markers but none there (the `<` of `a < b`) is text,
    /// unless the text would then end with bytes that could still begin one (`a<` +
    /// `<|im_end|>`), or would after backing off such an end: that end could join a
    /// marker with the text after a removed marker, which `scan` decides.
    #[inline(always)]
    pub(super) fn plain<'c>(&self, chunk: &'c [u8]) -> &'c str {
        let mut declined = false;
        let text = self.stop.plain_prefix_where(chunk, |at| {
            let begins = self.set.match_at(chunk, at) != Found::None;
            declined |= !begins;
            begins
        });
        if declined && text.len() < chunk.len() {
            // What is left after backing off can end joinable too (`<|message` +
            // `<|tool_response`): a removed marker can take the second end away too,
            // and then the first joins, so back off until no end is joinable.
            let mut end = text.len();
            loop {
                match joinable(&self.set, &text.as_bytes()[..end]) {
                    0 => return &text[..end],
                    n => end -= n,
                }
            }
        }
        text
    }

    pub(super) fn add(&mut self, marker: &'static [u8], action: Action) {
        let id = self.set.push(marker);
        if id == self.actions.len() {
            self.actions.push(action);
        }
    }
}

/// The marker tables of the dialects in force.
#[derive(Clone, Debug, Default)]
pub(super) struct Tables {
    pub(super) text: Table,
    /// Whether a call form opens only at the start of a line (`CallForm::anchored`):
    /// only then is `Parser::last_text` ever read.
    pub(super) anchored: bool,
    /// Whether a call form's opener follows the tool name (`CallForm::name_before`):
    /// only then is a name held at the start of the output.
    pub(super) name_before: bool,
    /// The closer of each reasoning table.
    pub(super) closers: Vec<&'static [u8]>,
    /// One table per reasoning block kind, used inside it.
    pub(super) reasoning: Vec<Table>,
}

impl Tables {
    /// The tables for a dialect and policy, built once per process and shared: they are
    /// dialect data, so a parser holds no table of its own (and `reset` builds nothing).
    pub(super) fn shared(dialect: Dialect, policy: InReasoning) -> &'static Tables {
        const SLOTS: usize = 2 * (Dialect::ALL.len() + 1);
        static CACHE: [OnceLock<Tables>; SLOTS] = [const { OnceLock::new() }; SLOTS];
        let d = Dialect::ALL
            .iter()
            .position(|d| *d == dialect)
            .map_or(0, |i| i + 1);
        let slot = d * 2 + (policy == InReasoning::Extract) as usize;
        CACHE[slot].get_or_init(|| {
            let specs: Vec<&'static Spec> = match dialect {
                Dialect::Auto => auto_specs().to_vec(),
                d => vec![d.spec()],
            };
            Tables::build(&specs, &[], policy)
        })
    }

    /// The tables of `auto` after it locked on `opener`: every dialect that shares the
    /// opener (built once per opener and policy, and kept for the process).
    pub(super) fn locked(
        dialect: Dialect,
        opener: &'static [u8],
        policy: InReasoning,
    ) -> &'static Tables {
        type Cache = Vec<(&'static [u8], Dialect, InReasoning, &'static Tables)>;
        static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
        let cache = CACHE.get_or_init(|| Mutex::new(Vec::new()));
        let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&(.., t)) = cache
            .iter()
            .find(|(o, d, p, _)| *o == opener && *d == dialect && *p == policy)
        {
            return t;
        }
        let mut specs: Vec<&'static Spec> = auto_specs()
            .iter()
            .copied()
            .filter(|s| s.calls.iter().any(|f| f.opener == opener))
            .collect();
        if !specs.iter().any(|s| s.dialect == dialect) {
            specs.push(dialect.spec());
        }
        // The other dialects' markup stays markup: what `auto` stripped before it
        // locked, and their special tokens, are stripped after.
        let others: Vec<&'static Spec> = auto_specs()
            .iter()
            .copied()
            .filter(|s| !specs.iter().any(|t| std::ptr::eq(*t, *s)))
            .collect();
        let tables = Tables::build(&specs, &others, policy);
        let tables: &'static Tables = Box::leak(Box::new(tables));
        cache.push((opener, dialect, policy, tables));
        tables
    }

    /// The tables of `specs`, with the markup of `others` (what they strip, their
    /// special tokens) stripped as text.
    pub(super) fn build(
        specs: &[&'static Spec],
        others: &[&'static Spec],
        policy: InReasoning,
    ) -> Tables {
        let mut t = Tables::default();
        let mut closers: Vec<&'static [u8]> = Vec::new();
        for spec in specs {
            for &(open, close) in spec.reasoning {
                let idx = match closers.iter().position(|c| *c == close) {
                    Some(i) => i,
                    None => {
                        closers.push(close);
                        let mut table = Table::default();
                        table.add(close, Action::EndReason);
                        t.reasoning.push(table);
                        closers.len() - 1
                    }
                };
                t.text.add(open, Action::Reason(idx));
                // Another closer listed for the same opener closes the block too
                // (Hunyuan 3 ends a `<think>` with `</think:opensource>`).
                for &(o, c) in specs.iter().flat_map(|s| s.reasoning) {
                    if o == open && c != close {
                        t.reasoning[idx].add(c, Action::EndReason);
                    }
                }
            }
        }
        t.closers = closers;
        for spec in specs {
            for form in spec.calls {
                // (An opener counted after calls is judged at a line's start too.)
                t.anchored |= form.anchored || form.after_calls;
                t.name_before |= form.name_before || form.name_told;
                t.text.add(form.opener, Action::Call(form));
                if policy == InReasoning::Extract {
                    for table in &mut t.reasoning {
                        table.add(form.opener, Action::Call(form));
                    }
                } else if (is_special_token(form.opener) || form.opener.starts_with(b"<"))
                    && !(form.anchored || form.start_only || form.heuristic)
                    && !(form.name_before || form.name_told)
                {
                    // A call the model drafted while thinking: counted, not executed.
                    for table in &mut t.reasoning {
                        table.add(form.opener, Action::InReasoning(form.opener));
                    }
                }
            }
        }
        for spec in specs {
            for &m in spec.strip {
                t.text.add(m, Action::Strip);
            }
        }
        for spec in others {
            for &m in spec.strip {
                t.text.add(m, Action::Strip);
            }
            for form in spec.calls {
                for m in [form.opener, form.closer] {
                    if is_special_token(m) {
                        t.text.add(m, Action::Strip);
                    }
                }
            }
        }
        t.text.seal();
        for table in &mut t.reasoning {
            table.seal();
        }
        t
    }
}

/// Whether `marker` is a special token (`<|python_tag|>`, `<｜tool▁sep｜>`,
/// `[TOOL_CALLS]`), never prose, rather than a tag or a fence a text may hold.
pub(super) fn is_special_token(marker: &[u8]) -> bool {
    let has = |needle: &[u8]| memchr::memmem::find(marker, needle).is_some();
    let bracketed = marker.len() > 2
        && marker[0] == b'['
        && marker[marker.len() - 1] == b']'
        && marker[1..marker.len() - 1]
            .iter()
            .all(|&b| b.is_ascii_uppercase() || b == b'_' || b == b'/');
    has(b"<|") || has(b"|>") || has("｜".as_bytes()) || bracketed
}
