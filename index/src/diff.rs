//! Unified diffs: reading one (`git diff`'s output or any unified diff, with
//! or without context lines) into the lines each file lost and gained, and
//! getting one from the `git` binary.
//!
//! Why the `git` binary and not `gix`: the diff must be the one the user's
//! own git shows (their index, attributes, rename detection, worktrees and
//! submodules, whatever version wrote the repository), the binary is on
//! every machine that has a repository, and `gix` would add a large
//! dependency tree to every build for two commands. `git` is run with
//! settings that make its output stable whatever the user configured
//! (no colour, no external diff or textconv, `a/` and `b/` prefixes, no
//! path quoting of non-ASCII names).

use std::path::Path;
use std::process::Command;

/// One file of a diff.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileDiff {
    /// Its path before (`None` for a new file), relative to the diff's root.
    pub old_path: Option<String>,
    /// Its path after (`None` for a deleted file).
    pub new_path: Option<String>,
    /// The old blob's id from the `index OLD..NEW` line, when given.
    pub old_blob: Option<String>,
    /// Old-side lines removed (1-based), ascending.
    pub removed: Vec<u32>,
    /// New-side lines added (1-based), ascending.
    pub added: Vec<u32>,
    /// For each run of removed lines, the new-side line after which they
    /// were (0 = before the first line): a deletion touches what holds both
    /// that line and the next.
    pub deletion_points: Vec<u32>,
    /// Whether git said the files are binary.
    pub binary: bool,
}

impl FileDiff {
    /// `added`, `deleted`, `renamed` or `modified`.
    pub fn status(&self) -> &'static str {
        match (&self.old_path, &self.new_path) {
            (None, _) => "added",
            (_, None) => "deleted",
            (Some(old), Some(new)) if old != new => "renamed",
            _ => "modified",
        }
    }

    /// The path to show: the new one, else the old one.
    pub fn path(&self) -> &str {
        self.new_path
            .as_deref()
            .or(self.old_path.as_deref())
            .unwrap_or_default()
    }
}

/// Lines as `START-END` runs (`3-5, 9`).
pub fn runs(lines: &[u32]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &line in lines {
        match out.last_mut() {
            Some((_, end)) if *end + 1 == line => *end = line,
            Some((_, end)) if *end == line => {}
            _ => out.push((line, line)),
        }
    }
    out
}

/// A path of a `---`/`+++`/`diff --git` line: unquoted (C-style quotes as
/// git writes them), without its `a/` or `b/` prefix and any trailing tab
/// and timestamp (as `diff -u` writes them). `None` for `/dev/null`.
fn diff_path(text: &str, prefix: &str) -> Option<String> {
    let text = text.trim_end_matches(['\r', '\n']);
    let text = if let Some(quoted) = text.strip_prefix('"') {
        unquote(quoted)
    } else {
        text.split('\t').next().unwrap_or_default().to_owned()
    };
    if text == "/dev/null" {
        return None;
    }
    Some(text.strip_prefix(prefix).unwrap_or(&text).to_owned())
}

/// The text of a C-style quoted string whose opening quote is gone (`\t`,
/// `\"`, `\\`, octal bytes `\303\251`).
fn unquote(text: &str) -> String {
    let mut bytes = Vec::new();
    let mut chars = text.bytes().peekable();
    while let Some(byte) = chars.next() {
        match byte {
            b'"' => break,
            b'\\' => match chars.next() {
                Some(b'n') => bytes.push(b'\n'),
                Some(b't') => bytes.push(b'\t'),
                Some(digit @ b'0'..=b'7') => {
                    let mut value = u32::from(digit - b'0');
                    for _ in 0..2 {
                        if let Some(&next @ b'0'..=b'7') = chars.peek() {
                            value = value * 8 + u32::from(next - b'0');
                            chars.next();
                        }
                    }
                    bytes.push(u8::try_from(value & 0xff).unwrap_or(b'?'));
                }
                Some(other) => bytes.push(other),
                None => {}
            },
            other => bytes.push(other),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `-START[,COUNT] +START[,COUNT]` of a hunk header: the first old and new
/// lines and their counts (a count left out is 1).
fn hunk_header(line: &str) -> Option<[u32; 4]> {
    let rest = line.strip_prefix("@@ ")?;
    let mut parts = rest.split(' ');
    let old = parts.next()?.strip_prefix('-')?;
    let new = parts.next()?.strip_prefix('+')?;
    let range = |range: &str| -> Option<(u32, u32)> {
        let mut numbers = range.split(',');
        let start = numbers.next()?.parse::<u32>().ok()?;
        let count = match numbers.next() {
            Some(count) => count.parse::<u32>().ok()?,
            None => 1,
        };
        Some((start, count))
    };
    let ((old_start, old_count), (new_start, new_count)) = (range(old)?, range(new)?);
    // Every line of the hunk must have a number (u32): a header past that
    // is no header of a real file.
    old_start.checked_add(old_count.max(1))?;
    new_start.checked_add(new_count.max(1))?;
    Some([old_start, old_count, new_start, new_count])
}

/// The hunk being read: the next old and new line numbers and how many
/// old and new lines are still to come.
struct Hunk {
    old: u32,
    new: u32,
    old_left: u32,
    new_left: u32,
    in_removal: bool,
}

/// Reads a unified diff: every file's paths and the lines it lost and
/// gained. Lines outside file headers and hunks (a commit message, `git
/// show`'s header) are skipped.
///
/// # Errors
/// A message naming the line when a hunk header cannot be read or comes
/// before any file header, or when a text that is not empty holds no file
/// header at all.
pub fn parse(text: &str) -> Result<Vec<FileDiff>, String> {
    let mut files: Vec<FileDiff> = Vec::new();
    let mut hunk: Option<Hunk> = None;
    // Whether the last file came from a `diff --git` line and has not had
    // its `---` line yet (which then belongs to it).
    let mut git_header = false;
    for (number, line) in text.lines().enumerate() {
        if let (Some(h), Some(file)) = (hunk.as_mut(), files.last_mut()) {
            let consumed = match line.as_bytes().first() {
                Some(b'-') if h.old_left > 0 => {
                    file.removed.push(h.old);
                    if !h.in_removal {
                        file.deletion_points.push(h.new.saturating_sub(1));
                    }
                    h.in_removal = true;
                    h.old += 1;
                    h.old_left -= 1;
                    true
                }
                Some(b'+') if h.new_left > 0 => {
                    file.added.push(h.new);
                    h.in_removal = false;
                    h.new += 1;
                    h.new_left -= 1;
                    true
                }
                Some(b' ') | None if h.old_left > 0 && h.new_left > 0 => {
                    h.in_removal = false;
                    h.old += 1;
                    h.new += 1;
                    h.old_left -= 1;
                    h.new_left -= 1;
                    true
                }
                Some(b'\\') => true,
                _ => false,
            };
            if !consumed || (h.old_left == 0 && h.new_left == 0) {
                hunk = None;
            }
            if consumed {
                continue;
            }
        }
        if let Some(rest) = line.strip_prefix("diff --git ") {
            let mut file = FileDiff::default();
            // `a/x b/y`: the two halves, when unambiguous (renames say more).
            if let Some((old, new)) = split_git_header(rest) {
                file.old_path = Some(old);
                file.new_path = Some(new);
            }
            files.push(file);
            git_header = true;
        } else if let Some(rest) = line.strip_prefix("--- ") {
            if !git_header {
                files.push(FileDiff::default());
            }
            git_header = false;
            if let Some(file) = files.last_mut() {
                file.old_path = diff_path(rest, "a/");
            }
        } else if let Some(rest) = line.strip_prefix("+++ ") {
            if let Some(file) = files.last_mut() {
                file.new_path = diff_path(rest, "b/");
            }
        } else if let Some(rest) = line.strip_prefix("rename from ") {
            if let Some(file) = files.last_mut() {
                file.old_path = diff_path(rest, "");
            }
        } else if let Some(rest) = line.strip_prefix("rename to ") {
            if let Some(file) = files.last_mut() {
                file.new_path = diff_path(rest, "");
            }
        } else if line.starts_with("new file mode") {
            if let Some(file) = files.last_mut() {
                file.old_path = None;
            }
        } else if line.starts_with("deleted file mode") {
            if let Some(file) = files.last_mut() {
                file.new_path = None;
            }
        } else if let Some(rest) = line.strip_prefix("index ") {
            if let Some(file) = files.last_mut() {
                file.old_blob = rest
                    .split(['.', ' '])
                    .next()
                    .filter(|blob| !blob.is_empty() && blob.bytes().any(|b| b != b'0'))
                    .map(str::to_owned);
            }
        } else if line.starts_with("Binary files ") || line == "GIT binary patch" {
            if let Some(file) = files.last_mut() {
                file.binary = true;
            }
        } else if line.starts_with("@@ ") {
            let Some([old, old_count, new, new_count]) = hunk_header(line) else {
                return Err(format!(
                    "line {}: cannot read the hunk header {line:?}",
                    number + 1
                ));
            };
            if files.is_empty() {
                return Err(format!(
                    "line {}: a hunk before any file header (`--- a/PATH`, `+++ b/PATH`)",
                    number + 1
                ));
            }
            git_header = false;
            // An empty side (`-0,0`, `+N,0`) is after line N: its next
            // line is N + 1.
            hunk = Some(Hunk {
                old: if old_count == 0 { old + 1 } else { old },
                new: if new_count == 0 { new + 1 } else { new },
                old_left: old_count,
                new_left: new_count,
                in_removal: false,
            });
        }
    }
    if files.is_empty() && !text.trim().is_empty() {
        return Err("not a unified diff: no `diff --git` or `--- a/PATH` line".to_owned());
    }
    // `/dev/null` on both sides names no file.
    files.retain(|file| file.old_path.is_some() || file.new_path.is_some());
    Ok(files)
}

/// The two paths of `diff --git a/X b/Y` when X and Y can be told apart:
/// quoted, or the same path twice (`a/p b/p`).
fn split_git_header(rest: &str) -> Option<(String, String)> {
    if rest.starts_with('"') {
        let old = diff_path(rest, "a/")?;
        let close = rest.get(1..)?.find('"').map(|i| i + 2)?;
        let new = diff_path(rest.get(close..)?.trim_start(), "b/")?;
        return Some((old, new));
    }
    let body = rest.strip_prefix("a/")?;
    // `a/p b/p`: the middle " b/" that splits it into two equal halves.
    let half = body.len().checked_sub(3)? / 2;
    let (old, new) = (body.get(..half)?, body.get(half..)?);
    let new = new.strip_prefix(" b/")?;
    (old == new).then(|| (old.to_owned(), new.to_owned()))
}

/// What diff [`git_diff`] takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    /// The working tree (staged and unstaged changes, and files git does
    /// not track yet) against `HEAD`.
    Head,
    /// The working tree against a revision.
    Rev(String),
}

/// A diff from git, with the revision its old side is.
#[derive(Debug, Clone)]
pub struct GitDiff {
    /// The files changed.
    pub files: Vec<FileDiff>,
    /// The revision the old side is read from (`HEAD`, the revision asked
    /// for), or `None` when the repository has no commit yet.
    pub base: Option<String>,
}

/// Runs `git` in `root` with `args`; its standard output.
fn git(root: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["-c", "core.quotePath=false"])
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output()
        .map_err(|error| format!("cannot run git: {error}"))?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        Err(String::from_utf8_lossy(&output.stderr).trim().to_owned())
    }
}

/// The diff of the working tree under `root` against `base`, from the `git`
/// binary: paths relative to `root` (`git diff --relative`), files outside
/// it left out; files git does not track yet (and does not ignore) are
/// added files.
///
/// # Errors
/// A message when `root` is not in a git repository, the revision is not
/// one, or git fails.
pub fn git_diff(root: &Path, base: &Base) -> Result<GitDiff, String> {
    if git(root, &["rev-parse", "--show-toplevel"]).is_err() {
        return Err(format!(
            "{} is not inside a git repository (impact reads the diff from git; \
             pipe a unified diff with --diff - otherwise)",
            root.display()
        ));
    }
    let rev = match base {
        Base::Head => "HEAD".to_owned(),
        Base::Rev(rev) => rev.clone(),
    };
    if rev.starts_with('-') {
        return Err(format!("unknown revision {rev:?}"));
    }
    if rev.contains("..") {
        return Err(format!(
            "{rev:?} is a range: --base takes one revision, and the working tree is compared \
             with it (for a range, pipe `git diff {rev}` to --diff -)"
        ));
    }
    let verified = git(
        root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    );
    let base_rev = match (verified, base) {
        (Ok(_), _) => Some(rev),
        // An unborn HEAD: every file is new.
        (Err(_), Base::Head)
            if git(root, &["rev-parse", "--verify", "--quiet", "HEAD"]).is_err() =>
        {
            None
        }
        (Err(_), _) => {
            return Err(format!(
                "unknown revision {rev:?} (not a commit of this repository)"
            ));
        }
    };
    // The empty tree: the old side of a repository without commits.
    const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
    let old = base_rev.clone().unwrap_or_else(|| EMPTY_TREE.to_owned());
    let out = git(
        root,
        &[
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--unified=0",
            "--find-renames",
            "--relative",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            &old,
            "--",
        ],
    )?;
    let mut files = parse(&String::from_utf8_lossy(&out))?;
    let untracked = git(root, &["ls-files", "--others", "--exclude-standard", "-z"])?;
    for path in untracked.split(|&b| b == 0).filter(|p| !p.is_empty()) {
        let path = String::from_utf8_lossy(path).into_owned();
        let bytes = std::fs::read(root.join(&path)).unwrap_or_default();
        // Lines as git counts them: a last line without its newline counts.
        let lines = bytes.iter().filter(|&&b| b == b'\n').count()
            + usize::from(!bytes.is_empty() && !bytes.ends_with(b"\n"));
        let binary = bytes.contains(&0);
        files.push(FileDiff {
            new_path: Some(path),
            added: if binary {
                Vec::new()
            } else {
                (1..=u32::try_from(lines).unwrap_or(u32::MAX)).collect()
            },
            binary,
            ..FileDiff::default()
        });
    }
    files.sort_by(|a, b| a.path().cmp(b.path()));
    Ok(GitDiff {
        files,
        base: base_rev,
    })
}

/// The text of `path` (relative to `root`) at revision `rev`, or of the
/// blob `blob`; `None` when git cannot give it. One `git` process per call:
/// for many files, [`OldTexts`].
pub fn old_text(root: &Path, rev: Option<&str>, path: &str, blob: Option<&str>) -> Option<String> {
    let spec = old_spec(rev, path, blob)?;
    let bytes = git(root, &["cat-file", "blob", &spec]).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The object name of a file's old text: `REV:./PATH`, else the blob id.
fn old_spec(rev: Option<&str>, path: &str, blob: Option<&str>) -> Option<String> {
    match (rev, blob) {
        (Some(rev), _) => Some(format!("{rev}:./{path}")),
        (None, Some(blob)) => Some(blob.to_owned()),
        (None, None) => None,
    }
}

/// Old texts of many files through one `git cat-file --batch` process (a
/// diff of thousands of files would otherwise start thousands of
/// processes). Asked one at a time: each answer is read whole before the
/// next question, so the pipes never fill both ways. When the process
/// cannot be started or its answers cannot be read, each text is asked
/// with [`old_text`].
pub struct OldTexts {
    root: std::path::PathBuf,
    batch: std::cell::RefCell<Option<Batch>>,
}

struct Batch {
    child: std::process::Child,
    input: std::process::ChildStdin,
    output: std::io::BufReader<std::process::ChildStdout>,
}

impl OldTexts {
    /// Old texts of files under `root` (the batch process starts at the
    /// first question).
    pub fn new(root: &Path) -> OldTexts {
        OldTexts {
            root: root.to_owned(),
            batch: std::cell::RefCell::new(None),
        }
    }

    /// As [`old_text`].
    pub fn get(&self, rev: Option<&str>, path: &str, blob: Option<&str>) -> Option<String> {
        let spec = old_spec(rev, path, blob)?;
        if spec.contains(['\n', '\r']) {
            // The batch protocol reads one name a line.
            return old_text(&self.root, rev, path, blob);
        }
        let mut batch = self.batch.try_borrow_mut().ok()?;
        if batch.is_none() {
            *batch = self.start();
        }
        let Some(running) = batch.as_mut() else {
            return old_text(&self.root, rev, path, blob);
        };
        match running.ask(&spec) {
            Ok(text) => text,
            Err(_) => {
                // The process is gone or out of step: not asked again.
                if let Some(mut stopped) = batch.take() {
                    let _ = stopped.child.kill();
                    let _ = stopped.child.wait();
                }
                old_text(&self.root, rev, path, blob)
            }
        }
    }

    fn start(&self) -> Option<Batch> {
        let mut child = Command::new("git")
            .arg("-C")
            .arg(&self.root)
            .args(["cat-file", "--batch"])
            .env("GIT_OPTIONAL_LOCKS", "0")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .ok()?;
        let input = child.stdin.take()?;
        let output = std::io::BufReader::new(child.stdout.take()?);
        Some(Batch {
            child,
            input,
            output,
        })
    }
}

impl Batch {
    /// One question: `Ok(None)` when git has no such blob.
    fn ask(&mut self, spec: &str) -> std::io::Result<Option<String>> {
        use std::io::{BufRead as _, Read as _, Write as _};
        writeln!(self.input, "{spec}")?;
        self.input.flush()?;
        let mut header = String::new();
        if self.output.read_line(&mut header)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        // `<oid> <type> <size>`, or `<name> missing` / `ambiguous`.
        let fields: Vec<&str> = header.split_whitespace().collect();
        let [_, kind, size] = fields[..] else {
            return Ok(None);
        };
        let size: usize = size
            .parse()
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidData))?;
        let mut bytes = vec![0; size + 1];
        self.output.read_exact(&mut bytes)?;
        bytes.pop(); // the newline after the content
        Ok((kind == "blob").then(|| String::from_utf8_lossy(&bytes).into_owned()))
    }
}

impl Drop for OldTexts {
    fn drop(&mut self) {
        if let Some(batch) = self.batch.get_mut().take() {
            drop(batch.input);
            let mut child = batch.child;
            let _ = child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn reads_git_diff_with_zero_context() {
        let text = "diff --git a/src/a.py b/src/a.py\nindex 1234567..89abcde 100644\n--- a/src/a.py\n+++ b/src/a.py\n@@ -3,2 +3,3 @@ def f():\n-    x = 1\n-    y = 2\n+    x = 10\n+    y = 20\n+    z = 30\n@@ -10 +10,0 @@\n-    gone\n";
        let files = parse(text).unwrap();
        assert_eq!(files.len(), 1);
        let file = &files[0];
        assert_eq!(file.path(), "src/a.py");
        assert_eq!(file.status(), "modified");
        assert_eq!(file.old_blob.as_deref(), Some("1234567"));
        assert_eq!(file.removed, vec![3, 4, 10]);
        assert_eq!(file.added, vec![3, 4, 5]);
        assert_eq!(file.deletion_points, vec![2, 10]);
    }

    #[test]
    fn reads_context_diffs_renames_and_new_and_deleted_files() {
        let text = "--- a/x.ts\n+++ b/x.ts\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n d\n\
diff --git a/old.py b/new.py\nsimilarity index 100%\nrename from old.py\nrename to new.py\n\
diff --git a/n.rs b/n.rs\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/n.rs\n@@ -0,0 +1,2 @@\n+fn a() {}\n+fn b() {}\n\
diff --git a/d.py b/d.py\ndeleted file mode 100644\nindex 2222222..0000000\n--- a/d.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-def f():\n-    pass\n";
        let files = parse(text).unwrap();
        let summary: Vec<_> = files
            .iter()
            .map(|f| {
                (
                    f.path().to_owned(),
                    f.status(),
                    f.removed.clone(),
                    f.added.clone(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                ("x.ts".to_owned(), "modified", vec![2], vec![2]),
                ("new.py".to_owned(), "renamed", vec![], vec![]),
                ("n.rs".to_owned(), "added", vec![], vec![1, 2]),
                ("d.py".to_owned(), "deleted", vec![1, 2], vec![]),
            ]
        );
        assert_eq!(files[3].old_blob.as_deref(), Some("2222222"));
    }

    /// Hunk headers whose lines would pass u32 (a new user's trial: they
    /// overflowed) are refused; huge counts with few lines are read.
    #[test]
    fn hunk_headers_past_the_line_numbers_are_refused() {
        for header in [
            "@@ -4294967295,1 +4294967295,1 @@",
            "@@ -1,2 +4294967295,2 @@",
            "@@ -4294967295,0 +1 @@",
        ] {
            let text = format!("--- a/x.py\n+++ b/x.py\n{header}\n-a\n+b\n");
            assert_eq!(
                parse(&text),
                Err(format!("line 3: cannot read the hunk header {header:?}"))
            );
        }
        let files =
            parse("--- a/x.py\n+++ b/x.py\n@@ -1,4000000000 +1,4000000000 @@\n-a\n+b\n").unwrap();
        assert_eq!(
            (files[0].removed.clone(), files[0].added.clone()),
            (vec![1], vec![1])
        );
    }

    #[test]
    fn bad_diffs_are_errors() {
        assert_eq!(
            parse("hello\n").unwrap_err(),
            "not a unified diff: no `diff --git` or `--- a/PATH` line"
        );
        assert_eq!(
            parse("--- a/x\n+++ b/x\n@@ nonsense @@\n").unwrap_err(),
            "line 3: cannot read the hunk header \"@@ nonsense @@\""
        );
        assert!(parse("").unwrap().is_empty());
    }

    #[test]
    fn quoted_paths_and_runs() {
        assert_eq!(
            diff_path("\"a/caf\\303\\251 x.py\"", "a/").as_deref(),
            Some("café x.py")
        );
        assert_eq!(
            diff_path("b/x.py\t2020-01-01", "b/").as_deref(),
            Some("x.py")
        );
        assert_eq!(runs(&[1, 2, 3, 7, 9, 10]), vec![(1, 3), (7, 7), (9, 10)]);
    }

    /// One batch process answers many questions, in order, including
    /// missing names between found ones, empty files and blob ids; the
    /// answers equal those of one process per file.
    #[test]
    fn old_texts_come_from_one_batch_process() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let git = |args: &[&str]| {
            let out = Command::new("git")
                .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
                .args(args)
                .current_dir(root)
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
            String::from_utf8(out.stdout).unwrap()
        };
        git(&["init", "-q"]);
        std::fs::write(root.join("a.py"), "def f():\n    return 1\n").unwrap();
        std::fs::write(root.join("empty.py"), "").unwrap();
        std::fs::write(root.join("b c.py"), "x = 'é'\n").unwrap();
        git(&["add", "-A"]);
        git(&["commit", "-qm", "one"]);
        std::fs::write(root.join("a.py"), "def f():\n    return 2\n").unwrap();
        let blob = git(&["rev-parse", "HEAD:a.py"]);
        let texts = OldTexts::new(root);
        let head = Some("HEAD");
        assert_eq!(
            texts.get(head, "a.py", None).as_deref(),
            Some("def f():\n    return 1\n")
        );
        assert_eq!(texts.get(head, "missing.py", None), None);
        assert_eq!(texts.get(head, "empty.py", None).as_deref(), Some(""));
        assert_eq!(
            texts.get(head, "b c.py", None).as_deref(),
            Some("x = 'é'\n")
        );
        assert_eq!(texts.get(Some("nope"), "a.py", None), None);
        assert_eq!(
            texts.get(None, "a.py", Some(blob.trim())).as_deref(),
            Some("def f():\n    return 1\n")
        );
        // A tree is no file's text.
        assert_eq!(texts.get(head, "", None), None);
        assert_eq!(
            texts.get(head, "a.py", None),
            old_text(root, head, "a.py", None)
        );
    }
}
