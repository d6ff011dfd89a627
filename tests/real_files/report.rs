//! The counts and the findings, as Markdown (printed, and written where asked).

use crate::classify::Class;
use crate::embed::Way;
use std::collections::BTreeMap;
use std::fmt::Write;

/// One dialect and way: files by class, and the runs that broke a rule of their own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Files by class, in the order of [`Class`].
    pub classes: [usize; 4],
    /// Files whose result depends on the chunking (invariant 4).
    pub chunking: usize,
    /// Files whose runs broke an invariant `support::check` reads (or invariant 1).
    pub invariants: usize,
}

impl Counts {
    pub fn files(&self) -> usize {
        self.classes.iter().sum()
    }

    /// Exact plus escape-ambiguous, as a share of the files.
    pub fn released_right(&self) -> f64 {
        if self.files() == 0 {
            return 1.0;
        }
        (self.classes[Class::Exact as usize] + self.classes[Class::Ambiguous as usize]) as f64
            / self.files() as f64
    }

    pub fn wrong(&self) -> usize {
        self.classes[Class::Wrong as usize]
    }
}

/// How many lines of each kind a report lists per dialect and way.
const LINES_PER_ROW: usize = 4;

/// Everything one check found.
#[derive(Default)]
pub struct Report {
    /// Where the files came from, one line.
    pub source: String,
    /// Counts by row (a dialect's name, or `repair()`) and way, rows in order of
    /// [`Report::rows`].
    pub counts: BTreeMap<(usize, Way), Counts>,
    /// Row names, in table order.
    pub rows: Vec<String>,
    /// Counts by way and kind of file, over every row.
    pub kinds: BTreeMap<(Way, &'static str), [usize; 4]>,
    /// Held calls by row, way and reason.
    pub held: BTreeMap<(usize, Way, String), usize>,
    /// Findings by row and way: lines for wrong, escape-ambiguous and held files,
    /// chunking-dependent results, broken invariants.
    pub lines: BTreeMap<(usize, Way, &'static str), Vec<String>>,
}

impl Report {
    /// The index of row `name`, added at the end if new.
    pub fn row(&mut self, name: &str) -> usize {
        match self.rows.iter().position(|r| r == name) {
            Some(i) => i,
            None => {
                self.rows.push(name.to_owned());
                self.rows.len() - 1
            }
        }
    }

    pub fn count(&mut self, row: usize, way: Way, kind: &'static str, class: Class) {
        self.counts.entry((row, way)).or_default().classes[class as usize] += 1;
        self.kinds.entry((way, kind)).or_default()[class as usize] += 1;
    }

    pub fn note(&mut self, row: usize, way: Way, what: &'static str, line: String) {
        match what {
            "chunking" => self.counts.entry((row, way)).or_default().chunking += 1,
            "invariants" => self.counts.entry((row, way)).or_default().invariants += 1,
            _ => {}
        }
        self.lines.entry((row, way, what)).or_default().push(line);
    }

    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{}\n", self.source);
        out.push_str(&table(
            self.counts
                .iter()
                .map(|(&(row, way), c)| (self.rows[row].as_str(), way, *c)),
        ));
        out.push_str("\nBy kind of file, over every dialect (exact / escape-ambiguous / held / wrong):\n\n| kind |");
        for way in Way::ALL {
            let _ = write!(out, " {} |", way.label());
        }
        out.push_str("\n|---|---|---|---|---|---|---|\n");
        let mut kinds: Vec<&str> = self.kinds.keys().map(|(_, k)| *k).collect();
        kinds.sort();
        kinds.dedup();
        for kind in kinds {
            let _ = write!(out, "| {kind} |");
            for way in Way::ALL {
                let c = self.kinds.get(&(way, kind)).copied().unwrap_or_default();
                let _ = write!(out, " {} / {} / {} / {} |", c[0], c[1], c[2], c[3]);
            }
            out.push('\n');
        }
        if !self.held.is_empty() {
            out.push_str("\nHeld, by reason:\n\n");
            for ((row, way, reason), n) in &self.held {
                let _ = writeln!(out, "- {} {}: {reason}: {n}", self.rows[*row], way.label());
            }
        }
        for (what, title) in [
            ("wrong", "Wrong releases"),
            ("chunking", "Results that depend on the chunking"),
            ("invariants", "Broken invariants"),
            ("ambiguous", "Escape-ambiguous releases"),
            ("held", "Held calls"),
        ] {
            let all: usize = self
                .lines
                .iter()
                .filter(|((_, _, w), _)| *w == what)
                .map(|(_, l)| l.len())
                .sum();
            let _ = writeln!(
                out,
                "\n{title}: {all} (at most {LINES_PER_ROW} listed per dialect and way)"
            );
            if all > 0 {
                out.push('\n');
            }
            for ((row, way, w), lines) in &self.lines {
                if *w != what {
                    continue;
                }
                for line in lines.iter().take(LINES_PER_ROW) {
                    let _ = writeln!(out, "- {} {}: {line}", self.rows[*row], way.label());
                }
                if lines.len() > LINES_PER_ROW {
                    let _ = writeln!(
                        out,
                        "- {} {}: ... and {} more",
                        self.rows[*row],
                        way.label(),
                        lines.len() - LINES_PER_ROW
                    );
                }
            }
        }
        out
    }
}

/// The dialect × way table: files, the classes, the share released right.
pub fn table<'a>(rows: impl Iterator<Item = (&'a str, Way, Counts)>) -> String {
    let mut out = String::from(
        "| dialect | way | files | exact | escape-ambiguous | held | wrong | exact + ambiguous | \
         chunking-dependent | broken invariants |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (name, way, c) in rows {
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} | {} | {:.1}% | {} | {} |",
            way.label(),
            c.files(),
            c.classes[0],
            c.classes[1],
            c.classes[2],
            c.classes[3],
            100.0 * c.released_right(),
            c.chunking,
            c.invariants,
        );
    }
    out
}
