//! The counts and the findings, as Markdown (printed, and written where asked).

use crate::classify::Class;
use crate::embed::Way;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Everything one check found.
#[derive(Default)]
pub struct Report {
    /// Where the files came from, one line.
    pub source: String,
    /// Counts by way and kind, in the order of [`Class::ALL`].
    pub counts: BTreeMap<(Way, &'static str), [usize; 4]>,
    /// Counts of the project's own files by way (also in `counts`, by kind).
    pub own: BTreeMap<Way, [usize; 4]>,
    /// Held calls by way and reason.
    pub held: BTreeMap<(Way, String), usize>,
    /// One line per wrong release.
    pub wrong: Vec<String>,
    /// One line per held call: file, way, reasons.
    pub held_calls: Vec<String>,
    /// One line per escape-ambiguous release: where it first reads the file differently.
    pub ambiguous: Vec<String>,
    /// One line per file and way whose result depends on the chunking (invariant 4).
    pub chunking: Vec<String>,
    /// One line per broken invariant of a run (support::check, invariant 1 in way 1).
    pub invariants: Vec<String>,
}

impl Report {
    pub fn count(&mut self, way: Way, kind: &'static str, own: bool, class: Class) {
        self.counts.entry((way, kind)).or_default()[class as usize] += 1;
        if own {
            self.own.entry(way).or_default()[class as usize] += 1;
        }
    }

    /// Counts of a way over every kind.
    pub fn way(&self, way: Way) -> [usize; 4] {
        let mut sum = [0; 4];
        for (_, counts) in self
            .counts
            .range((way, "")..)
            .take_while(|((w, _), _)| *w == way)
        {
            for (s, c) in sum.iter_mut().zip(counts) {
                *s += c;
            }
        }
        sum
    }

    /// Exact plus escape-ambiguous, as a share of the way's files.
    pub fn released_right(&self, way: Way) -> f64 {
        let c = self.way(way);
        let all: usize = c.iter().sum();
        if all == 0 {
            return 1.0;
        }
        (c[Class::Exact as usize] + c[Class::Ambiguous as usize]) as f64 / all as f64
    }

    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{}\n", self.source);
        out.push_str(
            "| way | files | exact | escape-ambiguous | held | wrong | exact + ambiguous |\n",
        );
        out.push_str("|---|---:|---:|---:|---:|---:|---:|\n");
        for way in Way::ALL {
            let c = self.way(way);
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {:.1}% |",
                way.label(),
                c.iter().sum::<usize>(),
                c[0],
                c[1],
                c[2],
                c[3],
                100.0 * self.released_right(way)
            );
        }
        out.push_str(
            "\nBy kind of file (exact / escape-ambiguous / held / wrong):\n\n| kind | files |",
        );
        for way in Way::ALL {
            let _ = write!(out, " {} |", way.label());
        }
        out.push_str("\n|---|---:|---|---|---|---|\n");
        let mut kinds: Vec<&str> = self.counts.keys().map(|(_, k)| *k).collect();
        kinds.sort();
        kinds.dedup();
        let mut rows: Vec<(String, BTreeMap<Way, [usize; 4]>)> = kinds
            .into_iter()
            .map(|kind| {
                let by_way = Way::ALL.map(|w| (w, self.counts[&(w, kind)]));
                (kind.to_owned(), by_way.into_iter().collect())
            })
            .collect();
        rows.push(("the project's own".into(), self.own.clone()));
        rows.push((
            "all".into(),
            Way::ALL.map(|w| (w, self.way(w))).into_iter().collect(),
        ));
        for (name, by_way) in rows {
            let files: usize = by_way.get(&Way::Escaped).map_or(0, |c| c.iter().sum());
            let _ = write!(out, "| {name} | {files} |");
            for way in Way::ALL {
                let c = by_way.get(&way).copied().unwrap_or_default();
                let _ = write!(out, " {} / {} / {} / {} |", c[0], c[1], c[2], c[3]);
            }
            out.push('\n');
        }
        if !self.held.is_empty() {
            out.push_str("\nHeld, by reason:\n\n");
            for ((way, reason), n) in &self.held {
                let _ = writeln!(out, "- way {}: {reason}: {n}", way.number());
            }
        }
        for (title, lines) in [
            ("Wrong releases", &self.wrong),
            ("Escape-ambiguous releases", &self.ambiguous),
            ("Held calls", &self.held_calls),
            ("Results that depend on the chunking", &self.chunking),
            ("Broken invariants", &self.invariants),
        ] {
            let _ = writeln!(out, "\n{title}: {}", lines.len());
            if !lines.is_empty() {
                out.push('\n');
            }
            for line in lines {
                let _ = writeln!(out, "- {line}");
            }
        }
        out
    }
}
