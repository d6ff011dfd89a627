//! Which files the check writes: text files from the sources and docs of the crate's
//! dependencies in the cargo registry (every machine that built the tests has them),
//! plus the project's own set under `tests/fixtures/files/`.
//!
//! The registry sample is pinned: `tests/expected/real_files_registry.txt` lists each
//! file by name and content hash, so the files, and so the counts compared with the
//! expectations, do not move when the lock file gains a package or a machine has more
//! of the registry unpacked. Update mode draws the sample again (deterministically, from
//! the packages the `toolsift` package's tests build on Linux) and rewrites the list.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Smallest and largest file taken from the registry.
const MIN_BYTES: u64 = 512;
const MAX_BYTES: u64 = 30 * 1024;
/// Seed of the sampling hash: a given lock always selects the same files.
const SEED: u64 = 0x5eed_f11e_5700_1cab;

/// A registry file before sampling: its hash, `crate-version/relative/path`, its path.
type Candidate = (u64, String, PathBuf);

/// One file to write.
pub struct File {
    /// Where it came from, for the report: `crate-version/relative/path` or `own/name`.
    pub name: String,
    /// The path the call writes to.
    pub path: String,
    /// Its kind (`rust`, `markdown`, `html`, ...).
    pub kind: &'static str,
    /// Its text.
    pub text: String,
}

/// The kind of a file by its name, or `None` for a file the check does not take.
pub fn kind_of(name: &str) -> Option<&'static str> {
    // criterion's report templates are HTML with inline JS.
    let name = name.strip_suffix(".tt").unwrap_or(name);
    if name.ends_with(".toml.orig") || name == "Cargo.lock" {
        return Some("toml");
    }
    let upper = name.to_ascii_uppercase();
    if [
        "LICENSE",
        "UNLICENSE",
        "COPYING",
        "COPYRIGHT",
        "NOTICE",
        "AUTHORS",
    ]
    .iter()
    .any(|p| upper.starts_with(p) && !name.contains('.'))
    {
        return Some("text");
    }
    let ext = name.rsplit_once('.').map(|(_, e)| e)?;
    Some(match ext {
        "rs" => "rust",
        "md" | "markdown" => "markdown",
        "toml" => "toml",
        "json" => "json",
        "txt" | "stderr" | "stdout" => "text",
        "html" | "htm" => "html",
        "js" | "mjs" | "ts" => "js",
        "py" => "python",
        "sh" | "bash" | "bat" | "ps1" => "shell",
        "yml" | "yaml" => "yaml",
        "css" => "css",
        _ => return None,
    })
}

/// A seeded FNV-1a hash: the sampling order, and the chunking seeds.
pub fn hash(bytes: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325 ^ SEED;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The project's own files, sorted by name.
pub fn own() -> Vec<File> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/files");
    let mut files: Vec<File> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_owned();
            let kind = kind_of(&name).unwrap_or_else(|| panic!("{name}: no kind"));
            let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            File {
                name: format!("own/{name}"),
                path: format!("site/{name}"),
                kind,
                text,
            }
        })
        .collect();
    files.sort_by(|a, b| a.name.cmp(&b.name));
    files
}

/// What the registry offered.
pub struct Registry {
    /// The registry source directories searched.
    pub roots: Vec<PathBuf>,
    /// Locked registry packages, and how many of them were found unpacked.
    pub locked: usize,
    pub found: usize,
    /// Files eligible before sampling.
    pub eligible: usize,
    /// The sample.
    pub files: Vec<File>,
}

/// The pinned sample: `tests/expected/real_files_registry.txt`.
const PINNED: &str = "real_files_registry.txt";

/// The files of the pinned sample, found in the registry; panics naming every file
/// missing or changed (a dependency's version moved: draw the sample again with
/// `TOOLSIFT_UPDATE_EXPECTED=1`).
pub fn pinned() -> Registry {
    let roots = registry_roots();
    let list = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/expected")
        .join(PINNED);
    let text = fs::read_to_string(&list).unwrap_or_else(|e| panic!("{}: {e}", list.display()));
    let mut files = Vec::new();
    let mut missing = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (want_hash, rel) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("{PINNED}: not `HASH NAME`: {line:?}"));
        let found = roots.iter().find_map(|root| {
            let text = fs::read_to_string(root.join(rel)).ok()?;
            (format!("{:016x}", hash(text.as_bytes())) == want_hash).then_some(text)
        });
        let Some(text) = found else {
            missing.push(rel.to_owned());
            continue;
        };
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let kind = kind_of(name).unwrap_or_else(|| panic!("{PINNED}: {rel}: no kind"));
        let inner = rel.split_once('/').map_or(rel, |(_, p)| p);
        files.push(File {
            path: inner.to_owned(),
            name: rel.to_owned(),
            kind,
            text,
        });
    }
    assert!(
        missing.is_empty(),
        "{} of the pinned registry files are missing or changed under {roots:?} (build the \
         tests first: cargo unpacks the packages it builds; after a dependency moved, draw \
         the sample again with TOOLSIFT_UPDATE_EXPECTED=1): {missing:?}",
        missing.len()
    );
    Registry {
        roots,
        locked: 0,
        found: 0,
        eligible: files.len(),
        files,
    }
}

/// Write `registry`'s files as the pinned sample.
pub fn pin(registry: &Registry) {
    let mut out = String::from(
        "# The registry files of a full real-files run (tests/real_files/select.rs): content\n\
         # hash (seeded FNV-1a) and name. Rewritten by TOOLSIFT_REAL_FILES=full\n\
         # TOOLSIFT_UPDATE_EXPECTED=1, which draws the sample again.\n",
    );
    for f in &registry.files {
        out.push_str(&format!("{:016x} {}\n", hash(f.text.as_bytes()), f.name));
    }
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/expected")
        .join(PINNED);
    fs::write(&path, out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// Up to `want` files from the registry: kinds taken in turn (each kind's files in
/// seeded-hash order), so no kind crowds out the others while it has files left.
/// Identical files (the many copies of one license) are taken once.
pub fn registry(want: usize) -> Registry {
    let locked = locked_packages();
    let roots = registry_roots();
    let mut found = BTreeSet::new();
    let mut by_kind: BTreeMap<&'static str, Vec<Candidate>> = BTreeMap::new();
    for root in &roots {
        for package in &locked {
            let dir = root.join(package);
            if !dir.is_dir() {
                continue;
            }
            found.insert(package.clone());
            let mut files = Vec::new();
            walk(&dir, &mut files);
            for path in files {
                // `/`-separated on every OS, so the sample is the same everywhere.
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                let Some(kind) = kind_of(path.file_name().unwrap().to_str().unwrap_or("")) else {
                    continue;
                };
                let len = fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
                if (MIN_BYTES..=MAX_BYTES).contains(&len) {
                    by_kind
                        .entry(kind)
                        .or_default()
                        .push((hash(rel.as_bytes()), rel, path));
                }
            }
        }
    }
    let eligible = by_kind.values().map(Vec::len).sum();
    let mut queues: Vec<(&'static str, std::vec::IntoIter<Candidate>)> = by_kind
        .into_iter()
        .map(|(kind, mut files)| {
            files.sort();
            files.dedup_by(|a, b| a.1 == b.1);
            (kind, files.into_iter())
        })
        .collect();
    let mut seen = HashSet::new();
    let mut files = Vec::new();
    while files.len() < want && !queues.is_empty() {
        queues.retain_mut(|(kind, queue)| {
            if files.len() >= want {
                return true;
            }
            for (_, rel, path) in queue.by_ref() {
                let Ok(text) = fs::read_to_string(&path) else {
                    continue; // not UTF-8
                };
                if !seen.insert(hash(text.as_bytes())) {
                    continue;
                }
                let inner = rel.split_once('/').map_or(&*rel, |(_, p)| p);
                files.push(File {
                    path: inner.to_owned(),
                    name: rel.clone(),
                    kind,
                    text,
                });
                return true;
            }
            false
        });
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Registry {
        roots,
        locked: locked.len(),
        found: found.len(),
        eligible,
        files,
    }
}

/// Every file under `dir` (`.github` too), skipping `.git`, `target` and symlinks.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(meta) = fs::symlink_metadata(entry.path()) else {
            continue;
        };
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if meta.is_dir() && name != ".git" && name != "target" {
            walk(&entry.path(), out);
        } else if meta.is_file() {
            out.push(entry.path());
        }
    }
}

/// `name-version` of every registry package in the lock file (found from the crate's
/// directory upward, so a workspace's lock is found too).
fn locked_packages() -> Vec<String> {
    let built = built_packages();
    let start = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lock = start
        .ancestors()
        .map(|dir| dir.join("Cargo.lock"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("no Cargo.lock at or above {}", start.display()));
    let text = fs::read_to_string(&lock).unwrap();
    let mut out = Vec::new();
    for package in text.split("[[package]]").skip(1) {
        let field = |key: &str| {
            package.lines().find_map(|line| {
                let (k, v) = line.split_once('=')?;
                (k.trim() == key).then(|| v.trim().trim_matches('"').to_owned())
            })
        };
        let from_registry =
            field("source").is_some_and(|s| s.starts_with("registry+") || s.starts_with("sparse+"));
        if let (Some(name), Some(version), true) = (field("name"), field("version"), from_registry)
        {
            let package = format!("{name}-{version}");
            if built.contains(&package) {
                out.push(package);
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// `name-version` of every package the `toolsift` package's tests build on Linux, all
/// features on (`cargo tree`): what every machine that ran them has unpacked.
fn built_packages() -> HashSet<String> {
    let out = std::process::Command::new(env!("CARGO"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree",
            "-p",
            "toolsift",
            "--all-features",
            "-e",
            "normal,build,dev",
            "--target",
            "x86_64-unknown-linux-gnu",
            "--prefix",
            "none",
            "--offline",
        ])
        .output()
        .expect("cargo tree");
    assert!(
        out.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let name = words.next()?;
            let version = words.next()?.strip_prefix('v')?;
            Some(format!("{name}-{version}"))
        })
        .collect()
}

/// `$CARGO_HOME/registry/src/*/` (`~/.cargo` by default).
fn registry_roots() -> Vec<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry/src")) else {
        return Vec::new();
    };
    let mut roots: Vec<PathBuf> = fs::read_dir(src)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    roots.sort();
    roots
}

#[test]
fn kinds_of_file_names() {
    let kinds = [
        ("lib.rs", Some("rust")),
        ("README.md", Some("markdown")),
        ("Cargo.toml.orig", Some("toml")),
        ("Cargo.lock", Some("toml")),
        ("index.html.tt", Some("html")),
        ("LICENSE-MIT", Some("text")),
        ("conditional-drop-impl.stderr", Some("text")),
        ("win-cargo.bat", Some("shell")),
        ("ci.yml", Some("yaml")),
        ("zero_dynamic_size.x86-64.mca", None),
        ("Makefile", None),
        ("data.bin", None),
    ];
    for (name, kind) in kinds {
        assert_eq!(kind_of(name), kind, "{name}");
    }
}
