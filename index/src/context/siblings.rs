//! `context TARGET --kind siblings`: the symbols shaped like the target in
//! its own file and the other files of its directory (a Python package, a
//! TypeScript folder, a Rust module directory), ranked, so new code can be
//! written like the code next to it.
//!
//! Candidates: every symbol (no control-flow block) of the target's file
//! and of the other indexed files directly in its directory, except the
//! target, the symbols inside it and those holding it, of the same family of kinds
//! ([`Family`]: types, callables, values, impl blocks, modules, macros).
//! At most [`MAX_FILES`] files are read (the target's first, then by path).
//!
//! Score (the sum of these points; each reason is named in the output):
//!
//! | reason | points | when |
//! |---|---|---|
//! | `same kind` | [`SAME_KIND`] (4) | the same kind (`class`, `method`, …) |
//! | `similar kind` | [`SIMILAR_KIND`] (1) | the same family only (a function for a method); such a candidate is left out unless a reason besides `same file` and `arity` holds |
//! | `same name` | [`SAME_NAME`] (3) | the same name (`get` of another handler) |
//! | `same class` / `same impl` | [`SAME_CONTAINER`] (2) | a member of the same class, struct, impl block or trait (named by its kind) |
//! | `same type X` | [`SAME_CONTAINER`] (2) | Rust: a member of another impl block of the same type |
//! | `in base class X` | [`SIBLING_CONTAINER`] (2) | a member of a base class (or trait) of the target's container: what the target overrides or implements |
//! | `sibling class (X)` | [`SIBLING_CONTAINER`] (2) | a member of a container sharing the base class or trait X with the target's |
//! | `in base trait X` / `sibling impl (X)` | [`SIBLING_CONTAINER`] (2) | Rust: a member of the trait X the target's impl implements / of another `impl X for …` |
//! | `base X` / `trait X` | [`SHARED_BASE`] (3) each, at most 2 counted | a shared base class or interface (Python, TypeScript), a shared implemented trait (Rust: `impl X for …` of both types) |
//! | `target's base X` / `target's trait X` | [`SHARED_BASE`] (3) | a type: the target's own base class or interface (Rust: a trait the target implements) |
//! | `extends target` / `implements target` | [`SHARED_BASE`] (3) | a type built on the target: a subclass (Rust: a type with `impl Target for …`) |
//! | `decorator @x` / `attribute #[x]` | [`SHARED_DECORATOR`] (2) each, at most 2 counted | a shared decorator or attribute, by name (arguments ignored) |
//! | `prefix test_` / `suffix Handler` | [`NAME_PATTERN`] (2) each | the same first or last word of two names of two or more words (snake_case or camelCase words, compared ignoring case) |
//! | `hook (prefix use)` | [`HOOK`] (5) | two React hooks (`use` then a capital letter), instead of `prefix use` |
//! | `params a, b` | [`SHARED_PARAMETER`] (1) each, at most 3 counted | parameters of the same name (`self`, `cls`, `this` left out) |
//! | `types T` | [`SHARED_PARAMETER`] (1) each, at most 2 counted | parameters of the same annotated type |
//! | `arity N` | [`SAME_ARITY`] (1) | two callables with the same number of parameters (receiver left out) |
//! | `same file` | [`SAME_FILE`] (1) | in the target's file |
//!
//! Ties are broken by path, then start line, so the order is deterministic.
//!
//! Output: the target's signature line, then the siblings in rank order,
//! each with its id, lines, signature and reasons; the first
//! [`SHOWN_BODIES`] come with their first [`BODY_LINES`] lines of code. At
//! most [`MAX_LISTED`] are listed; entries are added while the whole output
//! fits in the token budget (a body is cut to its first lines that fit),
//! and the output says how many were left out.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use ast_outline_budget as tokens;
use outline_core::text::plural;
use outline_core::{FileOutline, Language, Symbol, SymbolKind};
use serde::Serialize;
use serde_json::json;

use super::{ContextOptions, Files, Format};
use crate::query::SymbolRow;

/// Points for the same kind (`class` and `class`).
pub const SAME_KIND: u32 = 4;
/// Points for a kind of the same family only (`function` for `method`).
pub const SIMILAR_KIND: u32 = 1;
/// Points for the same name.
pub const SAME_NAME: u32 = 3;
/// Points for a member of the same container (or, in Rust, of another impl
/// block of the same type).
pub const SAME_CONTAINER: u32 = 2;
/// Points for a member of a container that shares a base or trait with the
/// target's container, or is one of its bases.
pub const SIBLING_CONTAINER: u32 = 2;
/// Points for each shared base class, interface or trait (at most
/// [`MAX_COUNTED`] counted).
pub const SHARED_BASE: u32 = 3;
/// Points for each shared decorator or attribute name (at most
/// [`MAX_COUNTED`] counted).
pub const SHARED_DECORATOR: u32 = 2;
/// Points for a shared first word, and again for a shared last word.
pub const NAME_PATTERN: u32 = 2;
/// Points for two React hooks (`useFetch`, `useCounter`): the `use` prefix
/// is their shape, not a word they share by chance.
pub const HOOK: u32 = 5;
/// Points for each shared parameter name (at most 3 counted) and each
/// shared parameter type (at most [`MAX_COUNTED`] counted).
pub const SHARED_PARAMETER: u32 = 1;
/// Points for two callables with the same number of parameters.
pub const SAME_ARITY: u32 = 1;
/// Points for a candidate in the target's own file.
pub const SAME_FILE: u32 = 1;
/// The most bases, decorators or parameter types counted.
pub const MAX_COUNTED: usize = 2;
/// The most parameter names counted.
const MAX_PARAMETERS_COUNTED: usize = 3;

/// The most files read: the target's own, then the directory's by path.
pub const MAX_FILES: usize = 200;
/// The most siblings listed, whatever the budget.
pub const MAX_LISTED: usize = 20;
/// How many of the first siblings come with code.
pub const SHOWN_BODIES: usize = 2;
/// The most lines of code shown of each of those (counted from the
/// symbol's first line, decorators included).
pub const BODY_LINES: u32 = 15;

/// Kinds that can stand for one another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Type,
    Callable,
    Value,
    Impl,
    Module,
    Macro,
}

impl Family {
    fn of(kind: SymbolKind) -> Option<Family> {
        use SymbolKind as K;
        Some(match kind {
            K::Class | K::Interface | K::TypeAlias | K::Enum | K::Struct | K::Union | K::Trait => {
                Family::Type
            }
            K::Function | K::Method | K::Constructor | K::Getter | K::Setter => Family::Callable,
            K::Property | K::Field | K::Variable | K::Constant | K::EnumMember => Family::Value,
            K::Impl => Family::Impl,
            K::Module => Family::Module,
            K::Macro => Family::Macro,
            K::Block => return None,
        })
    }

    /// "no other …" in the answer without siblings.
    fn described(self) -> &'static str {
        match self {
            Family::Type => "class, interface, struct, enum, trait or type alias",
            Family::Callable => "function or method",
            Family::Value => "variable, constant, field or property",
            Family::Impl => "impl block",
            Family::Module => "module",
            Family::Macro => "macro",
        }
    }
}

/// A symbol of a file read, with the named symbol holding it.
struct Item<'a> {
    symbol: &'a Symbol,
    parent: Option<&'a Symbol>,
    path: &'a str,
}

/// Every symbol of `outline` but blocks, each with its nearest enclosing
/// symbol that is no block.
fn items<'a>(path: &'a str, outline: &'a FileOutline, out: &mut Vec<Item<'a>>) {
    fn visit<'a>(
        path: &'a str,
        symbol: &'a Symbol,
        parent: Option<&'a Symbol>,
        out: &mut Vec<Item<'a>>,
    ) {
        let is_block = symbol.kind == SymbolKind::Block;
        if !is_block {
            out.push(Item {
                symbol,
                parent,
                path,
            });
        }
        let next = if is_block { parent } else { Some(symbol) };
        for child in &symbol.children {
            visit(path, child, next, out);
        }
    }
    for symbol in &outline.symbols {
        visit(path, symbol, None, out);
    }
}

/// `Base[T]`, `pkg.Base`, `crate::x::Base<T>`, `&dyn Base` → `Base`.
fn base_name(written: &str) -> String {
    let text = written.trim();
    let text = text.split(['<', '[', '(']).next().unwrap_or_default();
    let text = text
        .trim_start_matches('&')
        .trim_start_matches("mut ")
        .trim_start_matches("dyn ")
        .trim();
    text.rsplit(['.', ':'])
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// The type a Rust impl block is for: `impl<T> Shape for Circle<T>` →
/// `Circle`.
fn impl_type(symbol: &Symbol) -> String {
    let name = symbol.name.trim();
    let rest = name.strip_prefix("impl").unwrap_or(name).trim_start();
    // Skip the impl's own generic parameters, `<…>`, brackets balanced.
    let rest = if rest.starts_with('<') {
        let mut depth = 0usize;
        let mut end = rest.len();
        for (i, c) in rest.char_indices() {
            match c {
                '<' => depth += 1,
                '>' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest.get(end..).unwrap_or_default()
    } else {
        rest
    };
    let own = match rest.rsplit_once(" for ") {
        Some((_, own)) => own,
        None => rest,
    };
    base_name(own)
}

/// The bases of a symbol: a class's or interface's bases; a Rust type's
/// traits, from the impl blocks of the files read (`traits`); an impl
/// block's trait. `object` is left out.
fn bases_of(symbol: &Symbol, traits: &HashMap<String, Vec<String>>) -> Vec<String> {
    let mut out: Vec<String> = symbol
        .bases
        .iter()
        .map(|b| base_name(b))
        .filter(|b| !b.is_empty() && b != "object")
        .collect();
    if matches!(
        symbol.kind,
        SymbolKind::Struct | SymbolKind::Enum | SymbolKind::Union
    ) && let Some(implemented) = traits.get(&symbol.name)
    {
        out.extend(implemented.iter().cloned());
    }
    let mut seen = Vec::new();
    out.retain(|b| {
        let new = !seen.contains(b);
        if new {
            seen.push(b.clone());
        }
        new
    });
    out
}

/// A decorator's or attribute's name without its arguments:
/// `route("/x")` → `@route`, `@app.get("/x")` → `@app.get`,
/// `#[derive(Debug)]` → `#[derive]`.
fn decorator_name(written: &str) -> String {
    let text = written.trim();
    if let Some(inner) = text.strip_prefix("#![").or_else(|| text.strip_prefix("#[")) {
        let name = inner
            .split(['(', '=', ']', ' '])
            .next()
            .unwrap_or_default()
            .trim();
        return format!("#[{name}]");
    }
    let text = text.strip_prefix('@').unwrap_or(text);
    let name = text.split(['(', ' ']).next().unwrap_or_default().trim();
    format!("@{name}")
}

/// The words of a name: `snake_case` split at `_`, `camelCase` and
/// `PascalCase` at each capital (a run of capitals is one word:
/// `HTTPHandler` → `HTTP`, `Handler`).
fn words(name: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let chars: Vec<(usize, char)> = part.char_indices().collect();
        let mut start = 0;
        for (k, &(i, c)) in chars.iter().enumerate().skip(1) {
            let previous = chars[k - 1].1;
            let next_lower = chars.get(k + 1).is_some_and(|&(_, n)| n.is_lowercase());
            let boundary = c.is_uppercase()
                && (previous.is_lowercase()
                    || previous.is_ascii_digit()
                    || (previous.is_uppercase() && next_lower));
            if boundary {
                if let Some(word) = part.get(start..i) {
                    out.push(word);
                }
                start = i;
            }
        }
        if let Some(word) = part.get(start..) {
            out.push(word);
        }
    }
    out
}

/// The shared first and last word of two names, as shown: `prefix test_`,
/// `prefix use`, `suffix Handler`, `suffix _handler`.
fn name_patterns(target: &str, other: &str) -> Vec<String> {
    let (a, b) = (words(target), words(other));
    if a.len() < 2 || b.len() < 2 || target == other {
        return Vec::new();
    }
    let snake = target.trim_matches('_').contains('_');
    let mut out = Vec::new();
    if let (Some(x), Some(y)) = (a.first(), b.first())
        && x.eq_ignore_ascii_case(y)
    {
        out.push(if snake {
            format!("prefix {x}_")
        } else {
            format!("prefix {x}")
        });
    }
    if let (Some(x), Some(y)) = (a.last(), b.last())
        && x.eq_ignore_ascii_case(y)
    {
        out.push(if snake {
            format!("suffix _{x}")
        } else {
            format!("suffix {x}")
        });
    }
    out
}

/// A React hook's name by the Rules of Hooks: `use` then a capital letter
/// (`useFetch`).
fn is_hook(name: &str) -> bool {
    name.strip_prefix("use")
        .and_then(|rest| rest.chars().next())
        .is_some_and(char::is_uppercase)
}

/// A receiver parameter, not counted (`self`, `&mut self`, `cls`, `this`).
fn is_receiver(name: &str) -> bool {
    let name = name
        .trim_start_matches('&')
        .trim_start_matches("mut ")
        .trim();
    matches!(
        name,
        "self" | "cls" | "this" | "mut self" | "&self" | "&mut self"
    ) || name.starts_with("self:")
}

/// The parameters of a callable, receiver left out: names and annotations.
/// Only a method has a receiver (`self`, `cls`); a function's first
/// parameter named `self` or `cls` (a decorator's inner function, a
/// helper) counts. TypeScript's `this:` pseudo-parameter never does.
fn parameters(symbol: &Symbol) -> Vec<(&str, Option<&str>)> {
    let method = matches!(
        symbol.kind,
        SymbolKind::Method | SymbolKind::Constructor | SymbolKind::Getter | SymbolKind::Setter
    );
    symbol
        .parameters
        .iter()
        .filter(|p| {
            if method {
                !is_receiver(&p.name)
            } else {
                p.name != "this"
            }
        })
        .map(|p| (p.name.as_str(), p.annotation.as_deref().map(str::trim)))
        .collect()
}

/// What the ranking knows of the target.
struct Target<'a> {
    item: &'a Item<'a>,
    family: Family,
    bases: Vec<String>,
    decorators: Vec<String>,
    container_bases: Vec<String>,
}

/// One ranked sibling.
#[derive(Debug, Clone, Serialize)]
struct Sibling {
    /// Its id `PATH:START_LINE:QUALNAME`.
    id: String,
    /// Its file.
    path: String,
    /// Its kind (`class`, `method`, …).
    kind: String,
    /// Its qualified name.
    qualname: String,
    /// First line (1-based).
    start_line: u32,
    /// Last line (1-based, inclusive).
    end_line: u32,
    /// Decorators and signature on one line.
    signature: String,
    /// The sum of the points of its reasons.
    score: u32,
    /// Why it ranks where it does, most points first.
    reasons: Vec<String>,
    /// Its first lines, for the first [`SHOWN_BODIES`] siblings.
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<String>,
    /// The last line of `code` (1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    code_end_line: Option<u32>,
    /// The code's numbered lines, for cutting.
    #[serde(skip)]
    lines: Vec<(u32, String)>,
}

/// The points and reasons of `candidate` as a sibling of `target`.
fn score(
    target: &Target<'_>,
    candidate: &Item<'_>,
    traits: &HashMap<String, Vec<String>>,
) -> Option<(u32, Vec<String>)> {
    let t = target.item.symbol;
    let c = candidate.symbol;
    if Family::of(c.kind)? != target.family {
        return None;
    }
    let mut points = 0;
    let mut reasons = Vec::new();
    let mut add = |n: u32, reason: String| {
        points += n;
        reasons.push(reason);
    };
    if c.kind == t.kind {
        add(SAME_KIND, "same kind".to_owned());
    } else {
        add(SIMILAR_KIND, format!("similar kind ({})", c.kind.as_str()));
    }
    if c.name == t.name && t.kind != SymbolKind::Impl {
        add(SAME_NAME, "same name".to_owned());
    }
    // Where each is a member.
    if let (Some(tp), Some(cp)) = (target.item.parent, candidate.parent) {
        let same = std::ptr::eq(tp, cp);
        let (tk, ck) = (container_type(tp), container_type(cp));
        if same {
            add(SAME_CONTAINER, format!("same {}", tp.kind.as_str()));
        } else if (tp.kind == SymbolKind::Impl || cp.kind == SymbolKind::Impl)
            && !tk.is_empty()
            && tk == ck
        {
            add(SAME_CONTAINER, format!("same type {tk}"));
        } else if !ck.is_empty() && target.container_bases.contains(&ck) {
            add(
                SIBLING_CONTAINER,
                format!("in base {} {ck}", cp.kind.as_str()),
            );
        } else {
            let theirs = bases_of(cp, traits);
            if let Some(shared) = target.container_bases.iter().find(|b| theirs.contains(b)) {
                add(
                    SIBLING_CONTAINER,
                    format!("sibling {} ({shared})", cp.kind.as_str()),
                );
            }
        }
    }
    let rust = candidate.path.ends_with(".rs");
    let theirs = bases_of(c, traits);
    // The target's own base (or trait), and a type built on the target.
    if target.family == Family::Type {
        let (base, derived) = if rust {
            ("target's trait", "implements target")
        } else {
            ("target's base", "extends target")
        };
        if target.bases.contains(&c.name) {
            add(SHARED_BASE, format!("{base} {}", c.name));
        } else if theirs.contains(&t.name) {
            add(SHARED_BASE, derived.to_owned());
        }
    }
    for shared in target
        .bases
        .iter()
        .filter(|b| theirs.contains(b))
        .take(MAX_COUNTED)
    {
        let word = if rust { "trait" } else { "base" };
        add(SHARED_BASE, format!("{word} {shared}"));
    }
    let theirs: Vec<String> = c.decorators.iter().map(|d| decorator_name(d)).collect();
    for shared in target
        .decorators
        .iter()
        .filter(|d| theirs.contains(d))
        .take(MAX_COUNTED)
    {
        let word = if shared.starts_with('#') {
            "attribute"
        } else {
            "decorator"
        };
        add(SHARED_DECORATOR, format!("{word} {shared}"));
    }
    if t.kind != SymbolKind::Impl {
        for pattern in name_patterns(&t.name, &c.name) {
            if pattern == "prefix use" && is_hook(&t.name) && is_hook(&c.name) {
                add(HOOK, "hook (prefix use)".to_owned());
            } else {
                add(NAME_PATTERN, pattern);
            }
        }
    }
    if target.family == Family::Callable {
        let (mine, theirs) = (parameters(t), parameters(c));
        let names: Vec<&str> = mine
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| theirs.iter().any(|(m, _)| m == n))
            .take(MAX_PARAMETERS_COUNTED)
            .collect();
        if !names.is_empty() {
            let count = u32::try_from(names.len()).unwrap_or(0);
            add(
                SHARED_PARAMETER * count,
                format!("params {}", names.join(", ")),
            );
        }
        let mut types: Vec<&str> = Vec::new();
        for ty in mine.iter().filter_map(|(_, t)| *t) {
            if !types.contains(&ty)
                && types.len() < MAX_COUNTED
                && theirs.iter().any(|(_, u)| *u == Some(ty))
            {
                types.push(ty);
            }
        }
        if !types.is_empty() {
            let count = u32::try_from(types.len()).unwrap_or(0);
            add(
                SHARED_PARAMETER * count,
                format!("types {}", types.join(", ")),
            );
        }
        if mine.len() == theirs.len() {
            add(SAME_ARITY, format!("arity {}", mine.len()));
        }
    }
    // A kind of the same family with nothing else in common (but its file
    // or its number of parameters) is padding, not a sibling.
    if candidate.path == target.item.path {
        add(SAME_FILE, "same file".to_owned());
    }
    let others = reasons
        .iter()
        .skip(1)
        .filter(|r| *r != "same file" && !r.starts_with("arity "))
        .count();
    if c.kind != t.kind && others == 0 {
        return None;
    }
    Some((points, reasons))
}

/// The type a container stands for: an impl block's type, else its name.
fn container_type(symbol: &Symbol) -> String {
    if symbol.kind == SymbolKind::Impl {
        impl_type(symbol)
    } else {
        symbol.name.clone()
    }
}

/// The directory of a path (`""` at the root).
fn directory(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The indexed files directly in `dir`, by path.
fn files_in(conn: &rusqlite::Connection, dir: &str) -> Result<Vec<String>, crate::Error> {
    let mut paths = Vec::new();
    if dir.is_empty() {
        let mut statement = conn.prepare_cached("SELECT path FROM files ORDER BY path")?;
        for path in statement.query_map([], |row| row.get::<_, String>(0))? {
            let path = path?;
            if !path.contains('/') {
                paths.push(path);
            }
        }
    } else {
        // `dir/` up to `dir0` (the character after `/`): the path index's
        // range.
        let (low, high) = (format!("{dir}/"), format!("{dir}0"));
        let mut statement = conn.prepare_cached(
            "SELECT path FROM files WHERE path >= ?1 AND path < ?2 ORDER BY path",
        )?;
        for path in statement.query_map([&low, &high], |row| row.get::<_, String>(0))? {
            let path = path?;
            if path
                .strip_prefix(&low)
                .is_some_and(|name| !name.contains('/'))
            {
                paths.push(path);
            }
        }
    }
    Ok(paths)
}

/// The files' outlines (through the library's outline cache), in the order
/// given; a file that cannot be outlined is left out.
fn outlines(root: &Path, paths: &[String]) -> Vec<(String, FileOutline)> {
    let outliner = crate::answers::outliner(root, false);
    let mut out = Vec::new();
    for path in paths {
        let Some(language) = Language::from_path(path) else {
            continue;
        };
        let file = ast_outline::walk::FileEntry {
            path: root.join(path),
            display: path.clone(),
            language: Some(language),
            explicit: false,
        };
        if let Ok(outline) = outliner.outline(&file) {
            out.push((path.clone(), outline));
        }
    }
    // The cache is only a speed-up: failing to write it changes nothing.
    let _ = outliner.end();
    out
}

/// What was left out.
#[derive(Debug, Clone, Copy, Default, Serialize)]
struct Left {
    /// Ranked siblings not shown to stay within the budget.
    budget: usize,
    /// Ranked siblings below the [`MAX_LISTED`] listed.
    limit: usize,
    /// Whether the last body shown was cut to fewer lines.
    cut_body: bool,
}

/// The header: what this is about, and the target's signature.
struct Header<'a> {
    symbol: &'a SymbolRow,
    signature: String,
    /// `handlers/user.py and the other files of handlers/`.
    place: String,
    candidates: usize,
    /// Files of the directory not read (over [`MAX_FILES`]).
    unread: usize,
    family: Family,
}

fn render_text(header: &Header<'_>, shown: &[Sibling], left: Left) -> String {
    let symbol = header.symbol;
    let mut out = format!(
        "context of {} ({} {}), siblings\ntarget: {}\n",
        symbol.id, symbol.kind, symbol.qualname, header.signature
    );
    if header.candidates == 0 {
        let _ = writeln!(
            out,
            "no siblings: no other {} in {}",
            header.family.described(),
            header.place
        );
    } else {
        let _ = writeln!(
            out,
            "{} in {}, best first:",
            plural(header.candidates, "sibling"),
            header.place
        );
    }
    if header.unread > 0 {
        let _ = writeln!(
            out,
            "[{} of the directory not read: at most {MAX_FILES} are]",
            plural(header.unread, "file")
        );
    }
    for (i, sibling) in shown.iter().enumerate() {
        let _ = writeln!(
            out,
            "\n{}. {} L{}-{}\n   {}\n   why ({}): {}",
            i + 1,
            sibling.id,
            sibling.start_line,
            sibling.end_line,
            sibling.signature,
            sibling.score,
            sibling.reasons.join(" · ")
        );
        if let (Some(code), Some(last)) = (&sibling.code, sibling.code_end_line) {
            out.push_str(code);
            out.push('\n');
            if last < sibling.end_line {
                let _ = writeln!(
                    out,
                    "[… L{}-{} not shown: read {}]",
                    last + 1,
                    sibling.end_line,
                    sibling.id
                );
            }
        }
    }
    if left.budget > 0 {
        let _ = writeln!(
            out,
            "\n[cut: {} more left out to stay within the token budget]",
            plural(left.budget, "sibling")
        );
    }
    if left.limit > 0 {
        let _ = writeln!(
            out,
            "\n[{} more ranked lower, not listed: at most {MAX_LISTED} are]",
            plural(left.limit, "sibling")
        );
    }
    out
}

fn render_json(header: &Header<'_>, shown: &[Sibling], left: Left, budget: usize) -> String {
    let mut value = json!({
        "target": header.symbol,
        "kind": "siblings",
        "signature": header.signature,
        "max_tokens": budget,
        "encoding": tokens::ENCODING,
        "candidates": header.candidates,
        "siblings": shown,
        "cut": {
            "omitted": left.budget + left.limit,
            "over_budget": left.budget,
            "over_limit": left.limit,
            "truncated": left.cut_body,
        },
    });
    if header.unread > 0 {
        value["unread_files"] = json!(header.unread);
    }
    if header.candidates == 0 {
        value["note"] = json!(format!(
            "no siblings: no other {} in {}",
            header.family.described(),
            header.place
        ));
    }
    format!("{value}\n")
}

/// The siblings answer of `symbol` (found by [`super::context_answer_with`]).
pub(super) fn answer(
    index: &crate::Index,
    root: &Path,
    symbol: &SymbolRow,
    budget: usize,
    format: Format,
    options: &ContextOptions<'_>,
) -> Result<String, String> {
    let conn = index.connection();
    let dir = directory(&symbol.path);
    let mut paths = vec![symbol.path.clone()];
    let in_dir = files_in(conn, dir).map_err(|e| e.to_string())?;
    let others: Vec<String> = in_dir
        .into_iter()
        .filter(|p| *p != symbol.path && (options.keep)(p))
        .collect();
    let room = MAX_FILES.saturating_sub(1);
    let unread = others.len().saturating_sub(room);
    paths.extend(others.into_iter().take(room));
    let outlined = outlines(root, &paths);
    let mut all: Vec<Item<'_>> = Vec::new();
    for (path, outline) in &outlined {
        items(path, outline, &mut all);
    }
    let Some(target_item) = all.iter().find(|item| {
        item.path == symbol.path
            && item.symbol.start_line == symbol.start_line
            && item.symbol.qualname == symbol.qualname
    }) else {
        return Err(format!(
            "{} is not in {} as it is now: its file changed since it was indexed, or could \
             not be read; refresh the index and ask again",
            symbol.id, symbol.path
        ));
    };
    let Some(family) = Family::of(target_item.symbol.kind) else {
        return Err(format!("{} is a block, not a definition", symbol.id));
    };
    // Rust: the traits each type implements, from the impl blocks read.
    let mut traits: HashMap<String, Vec<String>> = HashMap::new();
    for item in &all {
        if item.symbol.kind == SymbolKind::Impl {
            let own = impl_type(item.symbol);
            for base in item.symbol.bases.iter().map(|b| base_name(b)) {
                if !own.is_empty() && !base.is_empty() {
                    traits.entry(own.clone()).or_default().push(base);
                }
            }
        }
    }
    let t = target_item.symbol;
    let target = Target {
        item: target_item,
        family,
        bases: bases_of(t, &traits),
        decorators: t.decorators.iter().map(|d| decorator_name(d)).collect(),
        container_bases: target_item
            .parent
            .map(|p| bases_of(p, &traits))
            .unwrap_or_default(),
    };
    let mut ranked: Vec<(u32, Vec<String>, &Item<'_>)> = all
        .iter()
        .filter(|item| {
            // Not the target, nor anything inside it, nor what holds it (a
            // nested function's own function).
            let s = item.symbol;
            let same_file = item.path == target_item.path;
            let inside = same_file
                && s.start_line >= t.start_line
                && s.end_line <= t.end_line
                && (s.qualname == t.qualname
                    || s.qualname.starts_with(&format!("{}.", t.qualname)));
            let holder = same_file
                && s.start_line <= t.start_line
                && t.end_line <= s.end_line
                && t.qualname.starts_with(&format!("{}.", s.qualname));
            !inside && !holder
        })
        .filter_map(|item| {
            score(&target, item, &traits).map(|(points, reasons)| (points, reasons, item))
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| a.2.path.cmp(b.2.path))
            .then_with(|| a.2.symbol.start_line.cmp(&b.2.symbol.start_line))
            .then_with(|| a.2.symbol.name_column.cmp(&b.2.symbol.name_column))
    });
    let header = Header {
        symbol,
        signature: ast_outline::read::summary_detail(t),
        place: if dir.is_empty() {
            format!("{} and the other files at the root", symbol.path)
        } else {
            format!("{} and the other files of {dir}/", symbol.path)
        },
        candidates: ranked.len(),
        unread,
        family,
    };
    let limit = ranked.len().saturating_sub(MAX_LISTED);
    let mut files = Files::default();
    let siblings: Vec<Sibling> = ranked
        .into_iter()
        .take(MAX_LISTED)
        .enumerate()
        .map(|(i, (score, reasons, item))| {
            let s = item.symbol;
            let lines = if i < SHOWN_BODIES {
                let last = s.end_line.min(s.start_line.saturating_add(BODY_LINES - 1));
                files.numbered(root, item.path, s.start_line, last, options.docs)
            } else {
                Vec::new()
            };
            Sibling {
                id: s.id.clone(),
                path: item.path.to_owned(),
                kind: s.kind.as_str().to_owned(),
                qualname: s.qualname.clone(),
                start_line: s.start_line,
                end_line: s.end_line,
                signature: ast_outline::read::summary_detail(s),
                score,
                reasons,
                code: None,
                code_end_line: None,
                lines,
            }
            .with_lines(usize::MAX)
        })
        .collect();
    let render = |shown: &[Sibling], left: Left| match format {
        Format::Text => render_text(&header, shown, left),
        Format::Json => render_json(&header, shown, left, budget),
    };
    let total = siblings.len();
    let mut shown: Vec<Sibling> = Vec::new();
    let mut left = Left {
        budget: 0,
        limit,
        cut_body: false,
    };
    for (i, sibling) in siblings.into_iter().enumerate() {
        let after = Left {
            budget: total - i - 1,
            ..left
        };
        shown.push(sibling);
        if tokens::fits(&render(&shown, after), budget) {
            continue;
        }
        // Fewer lines of its code, if it has any: the most that fit.
        let Some(sibling) = shown.pop() else { break };
        let with = Left {
            cut_body: true,
            ..after
        };
        let (mut low, mut high) = (0usize, sibling.lines.len().saturating_sub(1));
        while low < high {
            let middle = (low + high).div_ceil(2);
            let mut trial = shown.clone();
            trial.push(sibling.clone().with_lines(middle));
            if tokens::fits(&render(&trial, with), budget) {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        let mut fitted = shown.clone();
        fitted.push(sibling.clone().with_lines(low));
        if tokens::fits(&render(&fitted, with), budget) {
            shown = fitted;
            left = with;
        } else {
            left = Left {
                budget: total - i,
                ..left
            };
        }
        break;
    }
    // The closing note changes with what was left out: drop siblings until
    // the whole output fits.
    let mut text = render(&shown, left);
    while !tokens::fits(&text, budget) {
        if shown.pop().is_none() {
            return Err(format!(
                "{budget} tokens is too small: not even the header fits (it takes {})",
                tokens::count(&text).unwrap_or(0)
            ));
        }
        left.budget += 1;
        text = render(&shown, left);
    }
    Ok(text)
}

impl Sibling {
    /// This sibling with at most `n` of its code lines (none: no code).
    fn with_lines(mut self, n: usize) -> Sibling {
        let kept = &self.lines[..n.min(self.lines.len())];
        if kept.is_empty() {
            self.code = None;
            self.code_end_line = None;
        } else {
            self.code = Some(
                kept.iter()
                    .map(|(_, line)| line.as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
            );
            self.code_end_line = kept.last().map(|(number, _)| *number);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_snake_and_camel_case() {
        assert_eq!(words("UserHandler"), ["User", "Handler"]);
        assert_eq!(words("HTTPHandler"), ["HTTP", "Handler"]);
        assert_eq!(words("test_user_get"), ["test", "user", "get"]);
        assert_eq!(words("useOrder"), ["use", "Order"]);
        assert_eq!(words("__init__"), ["init"]);
        assert_eq!(words(""), Vec::<&str>::new());
    }

    #[test]
    fn name_patterns_name_the_shared_word() {
        assert_eq!(
            name_patterns("UserHandler", "OrderHandler"),
            ["suffix Handler"]
        );
        assert_eq!(name_patterns("test_get", "test_post"), ["prefix test_"]);
        assert_eq!(name_patterns("useUser", "useOrder"), ["prefix use"]);
        assert!(name_patterns("get", "get").is_empty());
        assert!(name_patterns("Config", "ConfigError").is_empty());
    }

    #[test]
    fn decorator_and_base_names_drop_arguments_and_paths() {
        assert_eq!(decorator_name("route(\"/users\")"), "@route");
        assert_eq!(decorator_name("@Injectable()"), "@Injectable");
        assert_eq!(decorator_name("app.get('/x')"), "@app.get");
        assert_eq!(decorator_name("#[derive(Debug, Clone)]"), "#[derive]");
        assert_eq!(decorator_name("#[test]"), "#[test]");
        assert_eq!(base_name("base.BaseHandler"), "BaseHandler");
        assert_eq!(base_name("Generic[T]"), "Generic");
        assert_eq!(base_name("BaseService<User>"), "BaseService");
        assert_eq!(base_name("crate::shapes::Shape"), "Shape");
    }

    #[test]
    fn an_impl_block_is_for_its_last_type() {
        let text = "impl<T: Clone> From<T> for Wrapper<T> {}\nimpl Circle {}\n\
                    impl Shape for &mut Circle {}\nimpl<'a> Tr for crate::x::Y<'a> {}\n";
        let outline =
            ast_outline::outline_source("x.rs", text, &outline_core::OutlineOptions::default())
                .expect("outlined");
        let types: Vec<String> = outline.symbols.iter().map(impl_type).collect();
        assert_eq!(types, ["Wrapper", "Circle", "Circle", "Y"]);
    }

    #[test]
    fn receivers_are_not_parameters() {
        for name in ["self", "&self", "&mut self", "mut self", "cls", "this"] {
            assert!(is_receiver(name), "{name}");
        }
        assert!(!is_receiver("selfish"));
    }
}
