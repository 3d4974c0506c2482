//! Hostile inputs: each has a clear, bounded outcome (an outline, or a
//! diagnostic, note or error with a known exit status), never a panic, a
//! stack overflow or a hang. The inputs are generated here, in temporary
//! directories (nothing large is committed). Time and memory are not
//! asserted (they are measured and documented in the README); a run that
//! never ended would hang the test.

use std::path::Path;
use std::process::Command;

use ast_outline::{
    FileOutline, Language, OutlineOptions, Severity, Symbol, SymbolKind, outline_source,
};
use serde_json::Value;
use tempfile::TempDir;

// ---------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------

/// What one run of the binary did.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    command: String,
}

impl Run {
    fn expect_code(&self, code: i32) -> &Run {
        assert_eq!(
            self.code,
            Some(code),
            "`{}` exited with {:?}, expected {code}\n--- stdout (start)\n{}\n--- stderr\n{}",
            self.command,
            self.code,
            self.stdout.chars().take(2000).collect::<String>(),
            self.stderr
        );
        assert!(
            !self.stderr.contains("panicked") && !self.stderr.contains("internal error"),
            "`{}` panicked:\n{}",
            self.command,
            self.stderr
        );
        self
    }

    /// The JSON Lines output, one object per file.
    fn json(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
            .collect()
    }
}

/// Runs the binary in `dir` with `args`.
fn run(dir: &Path, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_ast-outline"))
        .args(args)
        .current_dir(dir)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("run ast-outline");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        command: format!("ast-outline {}", args.join(" ")),
    }
}

/// A temporary directory holding `files` (path relative to it, bytes).
fn tree(files: &[(&str, &[u8])]) -> TempDir {
    let dir = tempfile::tempdir().expect("create a temporary directory");
    for (name, bytes) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, bytes).expect("write a test file");
    }
    dir
}

/// Runs `f` on a thread with a 2 MiB stack, like a default spawned thread
/// (the library must not rely on the caller's stack size).
fn on_small_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("small-stack".into())
            .stack_size(2 << 20)
            .spawn_scoped(scope, f)
            .expect("spawn a thread")
            .join()
            .expect("the outline does not panic")
    })
}

fn outline(path: &str, source: &str) -> FileOutline {
    outline_source(path, source, &OutlineOptions::default()).expect("a known language")
}

/// The messages of the error diagnostics.
fn errors(outline: &FileOutline) -> Vec<&str> {
    outline
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message.as_str())
        .collect()
}

/// How deep the symbol tree goes (1 = top level only).
fn depth(symbols: &[Symbol]) -> usize {
    symbols
        .iter()
        .map(|s| 1 + depth(&s.children))
        .max()
        .unwrap_or(0)
}

const DEEP: usize = 10_000;

// ---------------------------------------------------------------------------
// Nesting 10,000 levels deep, through the library on a 2 MiB stack
// ---------------------------------------------------------------------------

#[test]
fn python_brackets_10000_deep_are_left_out_with_an_error() {
    let source = format!(
        "x = {}1{}\n\ndef after():\n    pass\n",
        "(".repeat(DEEP),
        ")".repeat(DEEP)
    );
    let outline = on_small_stack(|| outline("deep.py", &source));
    assert_eq!(
        errors(&outline),
        [
            "brackets nested more than 2000 levels deep: the text inside them (lines 1-1) was not parsed"
        ]
    );
    assert!(outline.partial);
    let names: Vec<&str> = outline.symbols.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["x", "after"]);
    assert_eq!(outline.symbols[1].start_line, 3);
    // The column is the first character inside the 2001st bracket.
    assert_eq!(outline.diagnostics[0].column, 5 + 2001);
}

#[test]
fn python_classes_and_blocks_10000_deep_are_cut_at_the_symbol_depth_limit() {
    // Indentation nests without brackets: 10,000 classes, then 10,000 ifs.
    let classes: String = (0..DEEP)
        .map(|i| format!("{}class C{i}:\n", " ".repeat(i)))
        .collect();
    let source = format!("{classes}{}pass\n", " ".repeat(DEEP));
    let outline = on_small_stack(|| outline("classes.py", &source));
    assert_eq!(depth(&outline.symbols), outline_core_depth());
    assert_eq!(outline.symbols[0].name, "C0");
    let warning = outline.diagnostics.last().expect("a depth warning");
    assert_eq!(
        warning.message,
        format!(
            "{} symbols nested deeper than {} levels are not listed",
            DEEP - outline_core_depth(),
            outline_core_depth()
        )
    );

    let ifs: String = (0..DEEP)
        .map(|i| format!("{}if x:\n", " ".repeat(i + 4)))
        .collect();
    let source = format!("def f():\n{ifs}{}pass\n", " ".repeat(DEEP + 4));
    let options = OutlineOptions {
        block_threshold: 1,
        ..OutlineOptions::default()
    };
    let outline = on_small_stack(|| outline_source("ifs.py", &source, &options).expect("python"));
    assert_eq!(outline.symbols[0].name, "f");
    assert_eq!(outline.symbols[0].children[0].kind, SymbolKind::Block);
    assert_eq!(depth(&outline.symbols), outline_core_depth());
}

fn outline_core_depth() -> usize {
    ast_outline::outline_core::MAX_SYMBOL_DEPTH
}

#[test]
fn typescript_brackets_blocks_and_classes_10000_deep_are_reported_not_parsed() {
    let cases = [
        (
            "parens.ts",
            format!("let x = {}1{};\n", "(".repeat(DEEP), ")".repeat(DEEP)),
        ),
        (
            "blocks.js",
            format!("{}{}\n", "{".repeat(DEEP), "}".repeat(DEEP)),
        ),
        (
            "classes.ts",
            format!(
                "class A {}{}\n",
                "{ static x = class ".repeat(DEEP - 1) + "{",
                "}".repeat(DEEP)
            ),
        ),
    ];
    for (path, deep) in cases {
        let source = format!("export function before() {{}}\n{deep}export function after() {{}}\n");
        let outline = on_small_stack(|| outline(path, &source));
        assert_eq!(
            errors(&outline),
            [format!(
                "brackets nested {DEEP} levels deep (more than 2000): statement at lines 2-2 not parsed"
            )],
            "{path}"
        );
        let names: Vec<&str> = outline.symbols.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["before", "after"], "{path}");
        assert_eq!(outline.symbols[1].start_line, 3, "{path}");
    }
}

#[test]
fn typescript_brackets_a_million_deep_are_reported_too() {
    // Finding deep statements once took time proportional to the depth at
    // each bracket (40,000 levels: a minute); a million levels must finish.
    let n = 1_000_000;
    let source = format!(
        "let x = {}1{};\nfunction after() {{}}\n",
        "(".repeat(n),
        ")".repeat(n)
    );
    let outline = on_small_stack(|| outline("million.ts", &source));
    assert_eq!(
        errors(&outline),
        [format!(
            "brackets nested {n} levels deep (more than 2000): statement at lines 1-1 not parsed"
        )]
    );
    assert_eq!(outline.symbols[0].name, "after");
}

/// A `1+1+…` chain of three million links, whole or broken: swc parses it
/// with a loop, but dropping its tree recursed once per link and overflowed
/// the 256 MiB stack, killing every command and server (a new-user trial).
/// Over a million operators in one expression, the statement is reported.
#[test]
fn javascript_operator_chains_of_three_million_links_are_reported_not_parsed() {
    let n = 3_000_000;
    for (name, end) in [("whole.js", "1"), ("broken.js", "")] {
        let source = format!("var a = {}{end};\nfunction after() {{}}\n", "1+".repeat(n));
        let outline = on_small_stack(|| outline(name, &source));
        // The `=` is an operator too.
        let links = n + 1;
        assert_eq!(
            errors(&outline),
            [format!(
                "an expression of {links} operators (more than 1000000): statement at lines 1-1 not parsed"
            )],
            "{name}"
        );
        assert_eq!(outline.symbols[0].name, "after", "{name}");
    }
    // Long chains of real code are parsed as they are.
    let source = format!(
        "var a = {}1;\nfunction after() {{}}\n",
        "x+".repeat(100_000)
    );
    let outline = on_small_stack(|| outline("long.js", &source));
    assert!(errors(&outline).is_empty(), "{:?}", outline.diagnostics);
    assert_eq!(outline.symbols.len(), 2);
}

#[test]
fn jsx_elements_150000_deep_are_reported_not_parsed() {
    // 150,000 nested `<a>` overflowed swc's stack (new-user trial), killing
    // outline, index and both servers.
    let n = 150_000;
    for name in ["deep.tsx", "deep.jsx"] {
        let source = format!(
            "const x = <div>{}{}</div>;\nfunction after() {{}}\n",
            "<a>".repeat(n),
            "</a>".repeat(n)
        );
        let outline = on_small_stack(|| outline(name, &source));
        let errors = errors(&outline);
        assert_eq!(errors.len(), 1, "{name}: {errors:?}");
        assert!(
            errors[0].ends_with("statement at lines 1-1 not parsed"),
            "{name}: {errors:?}"
        );
        assert_eq!(outline.symbols.len(), 1, "{name}");
        assert_eq!(outline.symbols[0].name, "after", "{name}");
    }
    // Real JSX nesting, with expressions and self-closing tags, is parsed.
    let source = format!(
        "const x = (\n{}{{items.map(i => <li key={{i}}><b/></li>)}}{}\n);\nfunction after() {{}}\n",
        "<div>".repeat(100),
        "</div>".repeat(100)
    );
    let outline = on_small_stack(|| outline("shallow.tsx", &source));
    assert!(errors(&outline).is_empty(), "{:?}", outline.diagnostics);
    assert_eq!(outline.symbols.len(), 2);
}

#[test]
fn typescript_prefix_and_arrow_chains_100000_deep_are_reported_not_parsed() {
    // Chains without brackets recurse in swc and the walk like brackets do:
    // 100,000 `await`s, `new`s, `keyof`s, `readonly`s or unbraced arrows
    // aborted the process with a stack overflow; so did a million
    // right-associative operators (`=`, `? :`, `**`), unary `!`/`-` or
    // member links (`a.b.…b = 1`), and 100,000 nested template
    // substitutions. (`const x =` is one level.)
    const N: usize = 100_000;
    const M: usize = 1_000_000;
    let cases = [
        ("assign.js", format!("x = {}1;\n", "a = ".repeat(M)), M + 1),
        (
            "conditional.js",
            format!("x = {}1;\n", "a ? b : ".repeat(M)),
            M + 1,
        ),
        ("power.js", format!("x = {}1;\n", "a ** ".repeat(M)), M + 1),
        // An assignment target is cloned by recursion, once per link.
        (
            "members.js",
            format!("x = a{} = 1;\n", ".b".repeat(M)),
            M + 1,
        ),
        ("not.js", format!("x = {}1;\n", "!".repeat(M)), M + 1),
        ("minus.js", format!("x = {}1;\n", "- ".repeat(M)), M + 1),
        (
            "templates.js",
            format!("x = {}1{};\n", "`${".repeat(N), "}`".repeat(N)),
            N + 1,
        ),
        (
            "await.ts",
            format!("async function f() {{ return {}1; }}\n", "await ".repeat(N)),
            N + 1,
        ),
        (
            "await.js",
            format!("async function f() {{ return {}1; }}\n", "await ".repeat(N)),
            N + 1,
        ),
        (
            "new.ts",
            format!("const x = {}X;\n", "new ".repeat(N)),
            N + 1,
        ),
        (
            "keyof.ts",
            format!("type T = {}X;\n", "keyof ".repeat(N)),
            N + 1,
        ),
        (
            "readonly.ts",
            format!("type T = {}X[];\n", "readonly ".repeat(N)),
            N + 1,
        ),
        (
            "typeof.ts",
            format!("const x = {}1;\n", "typeof ".repeat(N)),
            N + 1,
        ),
        (
            "void.js",
            format!("const x = {}1;\n", "void ".repeat(N)),
            N + 1,
        ),
        (
            "delete.js",
            format!("const x = {}1;\n", "delete ".repeat(N)),
            N + 1,
        ),
        (
            "yield.js",
            format!("function* g() {{ {}1; }}\n", "yield ".repeat(N)),
            N + 1,
        ),
        (
            "arrows.ts",
            format!("const x = {}1;\n", "a => ".repeat(N)),
            N + 1,
        ),
        (
            "arrows.js",
            format!("const x = {}1;\n", "(a) =>\n".repeat(N)),
            N + 1,
        ),
    ];
    for (path, deep, depth) in cases {
        let source = format!("export function before() {{}}\n{deep}export function after() {{}}\n");
        let outline = on_small_stack(|| outline(path, &source));
        let last = source.lines().count() - 1;
        assert_eq!(
            errors(&outline),
            [format!(
                "brackets nested {depth} levels deep (more than 2000): statement at lines 2-{last} not parsed"
            )],
            "{path}"
        );
        let names: Vec<&str> = outline.symbols.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["before", "after"], "{path}");
        assert_eq!(outline.symbols[1].start_line as usize, last + 1, "{path}");
    }
}

#[test]
fn rust_blocks_modules_and_parens_10000_deep_are_left_out_with_an_error() {
    let cases = [
        (
            "blocks.rs",
            format!("fn f() {}{}\n", "{".repeat(DEEP), "}".repeat(DEEP)),
        ),
        (
            "mods.rs",
            format!("{}{}\n", "mod m { ".repeat(DEEP), "}".repeat(DEEP)),
        ),
        (
            "parens.rs",
            format!("const X: u8 = {}1{};\n", "(".repeat(DEEP), ")".repeat(DEEP)),
        ),
    ];
    for (path, deep) in cases {
        let source = format!("pub fn before() {{}}\n{deep}pub fn after() {{}}\n");
        let outline = on_small_stack(|| outline(path, &source));
        assert_eq!(
            errors(&outline),
            [
                "brackets nested more than 2000 levels deep: the text inside them (lines 2-2) was not parsed"
            ],
            "{path}"
        );
        let first = outline.symbols.first().map(|s| s.name.as_str());
        let last = outline.symbols.last().map(|s| s.name.as_str());
        assert_eq!((first, last), (Some("before"), Some("after")), "{path}");
        assert_eq!(outline.symbols.len(), 3, "{path}");
    }
}

#[test]
fn rust_generic_arguments_100000_deep_are_left_out_with_an_error() {
    // `syn` parses each `<…>` by recursion: 100,000 of them once overflowed
    // even the parser's large stack and aborted the process.
    const N: usize = 100_000;
    let cases = [
        (
            "vec.rs",
            "T",
            format!("type T = {}i32{};\n", "Vec<".repeat(N), ">".repeat(N)),
        ),
        (
            "turbofish.rs",
            "X",
            format!(
                "const X: usize = f::{}u8{}();\n",
                "<V".repeat(N),
                ">".repeat(N)
            ),
        ),
    ];
    for (path, name, deep) in cases {
        let source = format!("pub fn before() {{}}\n{deep}pub fn after() {{}}\n");
        let outline = on_small_stack(|| outline(path, &source));
        assert_eq!(
            errors(&outline),
            [
                "brackets nested more than 2000 levels deep: the text inside them (lines 2-2) was not parsed"
            ],
            "{path}"
        );
        let names: Vec<&str> = outline.symbols.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["before", name, "after"], "{path}");
    }
}

#[test]
fn rust_prefix_chains_100000_deep_are_left_out_with_an_error() {
    // `syn` parses each link of these chains by recursion: 100,000 of them
    // overflowed the parser's stack and aborted the process.
    const N: usize = 100_000;
    let cases = [
        ("refs.rs", format!("type T = {}u8;\n", "&".repeat(N))),
        (
            "spaced_refs.rs",
            format!("type T = {}u8;\n", "& ".repeat(N)),
        ),
        (
            "mut_refs.rs",
            format!("type T = {}u8;\n", "&'a mut ".repeat(N)),
        ),
        (
            "pointers.rs",
            format!("type T = {}i32;\n", "*const ".repeat(N)),
        ),
        (
            "mut_pointers.rs",
            format!("type T = {}i32;\n", "*mut ".repeat(N)),
        ),
        (
            "fn_pointers.rs",
            format!("type T = {}u8;\n", "fn() -> ".repeat(N)),
        ),
        (
            "fn_traits.rs",
            format!("type T = {}u8;\n", "&dyn Fn() -> ".repeat(N)),
        ),
        (
            "impl.rs",
            format!("type T = {}u8;\n", "impl FnOnce(u8) -> ".repeat(N)),
        ),
        (
            "closures.rs",
            format!("const T: u8 = {}1;\n", "|| ".repeat(N)),
        ),
        (
            "closure_args.rs",
            format!("const T: u8 = {}1;\n", "|x| ".repeat(N)),
        ),
        (
            "ranges.rs",
            format!("const T: u8 = {}1;\n", ".. ".repeat(N)),
        ),
        (
            "ranges_to.rs",
            format!("const T: u8 = {}1;\n", "..=".repeat(N)),
        ),
        (
            "breaks.rs",
            format!("const T: u8 = loop {{ {}1; }};\n", "break ".repeat(N)),
        ),
        (
            "returns.rs",
            format!("const T: u8 = {{ {}1 }};\n", "return ".repeat(N)),
        ),
        (
            "negations.rs",
            format!("const T: i8 = {}1;\n", "- ".repeat(N)),
        ),
        (
            "nots.rs",
            format!("const T: bool = {}true;\n", "!".repeat(N)),
        ),
        (
            "spaced_generics.rs",
            format!("type T = {}u8{};\n", "Vec < ".repeat(N), " >".repeat(N)),
        ),
    ];
    for (path, deep) in cases {
        let source = format!("pub fn before() {{}}\n{deep}pub fn after() {{}}\n");
        let outline = on_small_stack(|| outline(path, &source));
        assert_eq!(
            errors(&outline),
            [
                "brackets nested more than 2000 levels deep: the text inside them (lines 2-2) was not parsed"
            ],
            "{path}"
        );
        let names: Vec<&str> = outline.symbols.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["before", "T", "after"], "{path}");
    }
}

#[test]
fn rust_assignment_chains_of_a_million_links_are_left_out_with_an_error() {
    // Assignments are right-associative: `syn` parses the right side of
    // each `=` by recursion, and a million of them (a 4 MB file) overflowed
    // even the parser's 256 MiB stack and aborted the process.
    const N: usize = 1_000_000;
    for (path, link) in [("assignments.rs", "a = "), ("compound.rs", "a += ")] {
        let source = format!(
            "pub fn before() {{}}\nfn g() {{ {}1; }}\npub fn after() {{}}\n",
            link.repeat(N)
        );
        let outline = on_small_stack(|| outline(path, &source));
        // The text left out ends at the `;`, so what is parsed ends with an
        // `=`: `syn` says so too.
        assert_eq!(
            errors(&outline),
            [
                "brackets nested more than 2000 levels deep: the text inside them (lines 2-2) was not parsed",
                "expected an expression"
            ],
            "{path}"
        );
        let names: Vec<&str> = outline.symbols.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["before", "g", "after"], "{path}");
    }
    // A long expression of other operators, and many assignments one after
    // another, are parsed whole.
    let flat = format!(
        "fn g() {{ let x = {}1; {} }}\n",
        "a == b && ".repeat(5_000),
        "a = 1; b += 2; c = (d, e = f); ".repeat(1_000)
    );
    let outline = on_small_stack(|| outline("flat.rs", &flat));
    assert_eq!(errors(&outline), Vec::<&str>::new());
}

#[test]
fn python_lambdas_a_million_deep_give_the_references_above_5000_levels() {
    // The parser takes them, but the visit for references recursed once per
    // level and aborted the process (the index's facts, not the outline).
    let source = format!("x = f({}a)\n", "lambda: ".repeat(1_000_000));
    let (outline, facts) = on_small_stack(|| {
        ast_outline::outline_source_with_facts(
            "deep.py",
            Language::Python,
            &source,
            &OutlineOptions::default(),
        )
    });
    assert_eq!(outline.symbols[0].name, "x");
    let names: Vec<&str> = facts.references.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["f"]);
    // Under the limit, the innermost name is found.
    let source = format!("x = f({}a)\n", "lambda: ".repeat(100));
    let (_, facts) = ast_outline::outline_source_with_facts(
        "shallow.py",
        Language::Python,
        &source,
        &OutlineOptions::default(),
    );
    let names: Vec<&str> = facts.references.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["f", "a"]);
    // Attribute and call chains a million long nest the same way: one
    // reference per attribute down to the limit.
    for (path, source, references) in [
        (
            "attributes.py",
            format!("x = a{}\n", ".b".repeat(1_000_000)),
            5_000,
        ),
        ("calls.py", format!("x = f{}\n", "()".repeat(1_000_000)), 0),
    ] {
        let (_, facts) = on_small_stack(|| {
            ast_outline::outline_source_with_facts(
                path,
                Language::Python,
                &source,
                &OutlineOptions::default(),
            )
        });
        assert_eq!(facts.references.len(), references, "{path}");
    }
}

#[test]
fn rust_and_typescript_chains_a_million_long_give_the_references_above_5000_levels() {
    // Parsed in a loop, but visited for references by recursion: each
    // aborted index (the outline does not visit bodies this way).
    const N: usize = 1_000_000;
    for (path, language, source, references) in [
        (
            "calls.rs",
            Language::Rust,
            format!("fn g() {{ let x = f{}; }}\n", "()".repeat(N)),
            0,
        ),
        (
            "methods.rs",
            Language::Rust,
            format!("fn g() {{ let x = a{}; }}\n", ".m()".repeat(N)),
            5_000,
        ),
        (
            "subscripts.ts",
            Language::Typescript,
            format!("let x = a{};\n", "[0]".repeat(N)),
            0,
        ),
    ] {
        let (_, facts) = on_small_stack(|| {
            ast_outline::outline_source_with_facts(
                path,
                language,
                &source,
                &OutlineOptions::default(),
            )
        });
        assert_eq!(facts.references.len(), references, "{path}");
    }
}

#[test]
fn max_nesting_is_an_option() {
    let deep = 4_000;
    let source = format!("x = {}1{}\n", "(".repeat(deep), ")".repeat(deep));
    // Raised above the input's depth, everything is parsed (on a 2 MiB
    // thread too: the library gives the parser its own large stack).
    let options = OutlineOptions {
        max_nesting: 5_000,
        ..OutlineOptions::default()
    };
    let outline = on_small_stack(|| outline_source("deep.py", &source, &options).expect("python"));
    assert_eq!(outline.diagnostics, []);
    assert_eq!(outline.symbols[0].value.as_deref(), Some("1"));

    // Lowered on the command line.
    let dir = tree(&[("a.py", b"x = [[[1]]]\n"), ("b.ts", b"let y = [[[1]]];\n")]);
    let out = run(
        dir.path(),
        &["outline", "--max-nesting", "2", "--format", "json", "."],
    );
    out.expect_code(0);
    let files = out.json();
    assert_eq!(
        files[0]["diagnostics"][0]["message"],
        "brackets nested more than 2 levels deep: the text inside them (lines 1-1) was not parsed"
    );
    assert_eq!(files[0]["symbols"][0]["value"], "[[[ ]]]");
    assert_eq!(
        files[1]["diagnostics"][0]["message"],
        "brackets nested 3 levels deep (more than 2): statement at lines 1-1 not parsed"
    );
    let out = run(dir.path(), &["outline", "--max-nesting", "0", "a.py"]);
    out.expect_code(2);
}

#[test]
fn max_nesting_is_capped_at_5000() {
    // Larger values brought the stack overflows back: 10,000 nested class
    // expressions (with `--max-nesting 20000`) or 100,000 `(` (with
    // `--max-nesting 100000000`) aborted the process.
    let cases = [
        (
            "classes.ts",
            "class A ".to_owned()
                + &"{ static x = class ".repeat(DEEP - 1)
                + "{"
                + &"}".repeat(DEEP),
            "brackets nested 10000 levels deep (more than 5000): statement at lines 2-2 not parsed",
        ),
        (
            "parens.ts",
            format!("let x = {}1{};", "(".repeat(100_000), ")".repeat(100_000)),
            "brackets nested 100000 levels deep (more than 5000): statement at lines 2-2 not parsed",
        ),
        (
            "parens.rs",
            format!(
                "const X: u8 = {}1{};",
                "(".repeat(100_000),
                ")".repeat(100_000)
            ),
            "brackets nested more than 5000 levels deep: the text inside them (lines 2-2) was not parsed",
        ),
        (
            "parens.py",
            format!("x = {}1{}", "(".repeat(100_000), ")".repeat(100_000)),
            "brackets nested more than 5000 levels deep: the text inside them (lines 2-2) was not parsed",
        ),
    ];
    let options = OutlineOptions {
        max_nesting: u32::MAX,
        ..OutlineOptions::default()
    };
    for (path, deep, message) in cases {
        let source = if path.ends_with(".py") {
            format!("def before(): pass\n{deep}\ndef after(): pass\n")
        } else if path.ends_with(".rs") {
            format!("fn before() {{}}\n{deep}\nfn after() {{}}\n")
        } else {
            format!("function before() {{}}\n{deep}\nfunction after() {{}}\n")
        };
        let outline = on_small_stack(|| outline_source(path, &source, &options).expect("known"));
        assert_eq!(errors(&outline), [message], "{path}");
        let names: Vec<&str> = outline.symbols.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names.first(), Some(&"before"), "{path}");
        assert_eq!(names.last(), Some(&"after"), "{path}");
    }

    // On the command line, above the cap is refused with the range.
    let dir = tree(&[("a.ts", b"let y = 1;\n")]);
    let out = run(dir.path(), &["outline", "--max-nesting", "5001", "a.ts"]);
    out.expect_code(2);
    assert!(
        out.stderr.contains("5001 is not in 1..=5000"),
        "{}",
        out.stderr
    );
    let out = run(dir.path(), &["outline", "--max-nesting", "5000", "a.ts"]);
    out.expect_code(0);
}

// ---------------------------------------------------------------------------
// Size
// ---------------------------------------------------------------------------

#[test]
fn a_50_mb_file_is_outlined() {
    let line = format!("# {}\n", "x".repeat(97));
    let mut text = String::from("def first():\n    pass\n");
    let lines = 50 * 1024 * 1024 / line.len();
    text.reserve(lines * line.len() + 32);
    for _ in 0..lines {
        text.push_str(&line);
    }
    text.push_str("def last():\n    pass\n");
    let dir = tree(&[("big.py", text.as_bytes())]);
    let out = run(dir.path(), &["outline", "--format", "json", "big.py"]);
    out.expect_code(0);
    let file = &out.json()[0];
    assert_eq!(file["line_count"], lines + 4);
    let ends: Vec<(&Value, &Value)> = file["symbols"]
        .as_array()
        .expect("symbols")
        .iter()
        .map(|s| (&s["name"], &s["start_line"]))
        .collect();
    assert_eq!(
        ends,
        [
            (&"first".into(), &1.into()),
            (&"last".into(), &(lines + 3).into())
        ]
    );
}

#[test]
fn files_above_max_file_size_are_skipped_when_walked_and_refused_when_named() {
    let dir = tree(&[
        ("big.py", "x = 1\n".repeat(1000).as_bytes()),
        ("small.py", b"def ok():\n    pass\n"),
    ]);
    let out = run(dir.path(), &["outline", "--max-file-size", "1000", "."]);
    out.expect_code(0);
    assert_eq!(out.stdout, "small.py (python, 2 lines)\nL1-2 def ok()\n");
    assert_eq!(
        out.stderr,
        "ast-outline: big.py: skipped, 6000 bytes is more than --max-file-size 1000\n"
    );
    let out = run(
        dir.path(),
        &["outline", "--max-file-size", "1000", "big.py"],
    );
    out.expect_code(1);
    assert_eq!(
        out.stderr,
        "ast-outline: big.py: 6000 bytes, more than the limit of 1000 (--max-file-size); not read\n"
    );
    let out = run(
        dir.path(),
        &["read", "--max-file-size", "1000", "big.py:1-2"],
    );
    out.expect_code(1);
    assert_eq!(
        out.stderr,
        "ast-outline: big.py: 6000 bytes, more than the limit of 1000 (--max-file-size); not read\n"
    );
    // The default limit is 64 MiB: a sparse file one byte larger is refused
    // before anything is read.
    let huge = dir.path().join("huge.py");
    std::fs::File::create(&huge)
        .and_then(|f| f.set_len(ast_outline::DEFAULT_MAX_FILE_SIZE + 1))
        .expect("a sparse file");
    let out = run(dir.path(), &["outline", "huge.py"]);
    out.expect_code(1);
    assert_eq!(
        out.stderr,
        format!(
            "ast-outline: huge.py: {} bytes, more than the limit of {} (--max-file-size); not read\n",
            (64 << 20) + 1,
            64 << 20
        )
    );
}

#[test]
fn a_5_mb_line_of_minified_javascript_is_outlined() {
    // A bundle: 2,000 functions and a large data array, all on one line.
    let mut line = String::new();
    for i in 0..2000 {
        line.push_str(&format!(
            "function f{i}(a){{return a+{i}}}var v{i}=f{i}(1);"
        ));
    }
    line.push_str("var data=[");
    while line.len() < 5 * 1024 * 1024 {
        line.push_str("123456789,");
    }
    line.push_str("0];function last(){}");
    let dir = tree(&[("bundle.min.js", line.as_bytes())]);
    let out = run(
        dir.path(),
        &["outline", "--format", "json", "bundle.min.js"],
    );
    out.expect_code(0);
    let file = &out.json()[0];
    assert_eq!(file["line_count"], 1);
    assert_eq!(file["diagnostics"], Value::Array(vec![]));
    let symbols = file["symbols"].as_array().expect("symbols");
    // Each function, each var, `data`, `last`.
    assert_eq!(symbols.len(), 4002);
    let data = &symbols[4000];
    assert_eq!(data["name"], "data");
    // Long values are cut, so one symbol cannot flood the output.
    let value = data["value"].as_str().expect("a value");
    assert!(
        value.ends_with('…') && value.chars().count() <= 81,
        "{value}"
    );
    assert_eq!(symbols[4001]["name"], "last");
}

#[test]
fn a_file_with_100000_symbols_is_outlined() {
    let text: String = (0..100_000)
        .map(|i| format!("def f{i}(x):\n    return x\n"))
        .collect();
    let dir = tree(&[("many.py", text.as_bytes())]);
    let out = run(dir.path(), &["outline", "--format", "json", "many.py"]);
    out.expect_code(0);
    let file = &out.json()[0];
    let symbols = file["symbols"].as_array().expect("symbols");
    assert_eq!(symbols.len(), 100_000);
    assert_eq!(symbols[99_999]["id"], "many.py:199999:f99999");
    assert_eq!(symbols[99_999]["end_line"], 200_000);
}

// ---------------------------------------------------------------------------
// Encodings, bytes and line ends
// ---------------------------------------------------------------------------

#[test]
fn invalid_utf8_is_decoded_lossily_and_said() {
    let dir = tree(&[(
        "bad.py",
        b"def ok():\n    return '\xff\xfe'\n\ndef after():\n    pass\n",
    )]);
    let out = run(dir.path(), &["outline", "bad.py"]);
    out.expect_code(0);
    assert_eq!(
        out.stdout,
        "bad.py (python, 5 lines)\n\
         ! L2:13 warning: file is not valid UTF-8; invalid bytes were replaced by U+FFFD\n\
         L1-2 def ok()\nL4-5 def after()\n"
    );
    // `read` prints the decoded lines, and says they are not the file's bytes.
    let out = run(dir.path(), &["read", "bad.py:ok"]);
    out.expect_code(0);
    assert_eq!(
        out.stdout,
        "==> bad.py:1-2 function ok <==\ndef ok():\n    return '\u{fffd}\u{fffd}'\n"
    );
    assert_eq!(
        out.stderr,
        "ast-outline: bad.py:2:13: note: file is not valid UTF-8; invalid bytes were replaced by U+FFFD\n"
    );
}

#[test]
fn nul_bytes_are_binary_skipped_with_a_note_when_walked_and_refused_when_named() {
    let dir = tree(&[
        ("blob.py", b"x = 1\n\0\0\x01\x02binary"),
        ("fine.ts", b"export const A = 1;\n"),
    ]);
    let out = run(dir.path(), &["outline", "."]);
    out.expect_code(0);
    assert_eq!(out.stdout, "fine.ts (typescript, 1 line)\nL1-1 const A\n");
    assert_eq!(
        out.stderr,
        "ast-outline: blob.py: skipped, looks binary (NUL bytes)\n"
    );
    let out = run(dir.path(), &["outline", "blob.py"]);
    out.expect_code(1);
    assert_eq!(
        out.stderr,
        "ast-outline: blob.py: looks binary (contains NUL bytes); not outlined\n"
    );
}

#[test]
fn a_file_with_only_a_bom_is_an_empty_outline() {
    for name in ["bom.py", "bom.ts", "bom.rs"] {
        let dir = tree(&[(name, b"\xef\xbb\xbf")]);
        let out = run(dir.path(), &["outline", "--format", "json", name]);
        out.expect_code(0);
        let file = &out.json()[0];
        assert_eq!(file["line_count"], 0, "{name}");
        assert_eq!(file["symbols"], Value::Array(vec![]), "{name}");
        assert_eq!(file["diagnostics"], Value::Array(vec![]), "{name}");
    }
}

#[test]
fn mixed_line_ends_count_as_lines_everywhere() {
    // Line 1 ends with \r\n, line 2 with \r, line 3 with \n.
    let cases: [(&str, &[u8], &str); 3] = [
        ("m.py", b"import os\r\nx = 1\rdef f():\n    pass\r\n", "f"),
        (
            "m.ts",
            b"import 'a';\r\nlet x = 1;\rfunction f() {\n}\r\n",
            "f",
        ),
        ("m.rs", b"use a;\r\nconst X: u8 = 1;\rfn f() {\n}\r\n", "f"),
    ];
    for (name, bytes, function) in cases {
        let dir = tree(&[(name, bytes)]);
        let out = run(dir.path(), &["outline", "--format", "json", name]);
        out.expect_code(0);
        let file = &out.json()[0];
        assert_eq!(file["line_count"], 4, "{name}");
        let f = &file["symbols"][1];
        assert_eq!(f["name"], function, "{name}");
        assert_eq!(
            (&f["start_line"], &f["end_line"]),
            (&3.into(), &4.into()),
            "{name}"
        );
        let out = run(dir.path(), &["read", &format!("{name}:{function}")]);
        out.expect_code(0);
        assert!(
            out.stdout
                .starts_with(&format!("==> {name}:3-4 function {function} <==\n")),
            "{}",
            out.stdout
        );
    }
}

#[test]
fn tabs_and_spaces_mixed_inconsistently_are_a_diagnostic_not_a_crash() {
    // The method body is indented with a tab, the next line with 8 spaces.
    let source = "class A:\n\tdef m(self):\n\t\treturn 1\n        def n(self):\n\t\tpass\n";
    let mixed = on_small_stack(|| outline("tabs.py", source));
    assert_eq!(mixed.symbols[0].name, "A");
    assert_eq!(mixed.symbols[0].children[0].name, "m");
    assert_eq!(
        errors(&mixed),
        [
            "Unexpected indentation",
            "Expected an indented block after function definition"
        ]
    );
    assert_eq!(
        (mixed.diagnostics[0].line, mixed.diagnostics[0].column),
        (4, 1)
    );
    // Consistent tabs are fine.
    let tabs = outline("tabs_ok.py", "class A:\n\tdef m(self):\n\t\treturn 1\n");
    assert_eq!(tabs.diagnostics, []);
    assert_eq!(tabs.symbols[0].children[0].end_line, 3);
}

#[test]
fn a_line_separator_in_a_javascript_string_is_no_line_end() {
    // U+2028 ends a line for ECMAScript but not for our line rule (\n, \r\n,
    // \r): lines stay those of every editor. In a one-line value it is
    // whitespace, collapsed to a space like any other run of whitespace.
    let source = "const s = \"a\u{2028}b\";\nfunction f() {}\n";
    let outline = outline("sep.js", source);
    assert_eq!(outline.line_count, 2);
    assert_eq!(outline.diagnostics, []);
    assert_eq!(outline.symbols[0].value.as_deref(), Some("\"a b\""));
    assert_eq!(
        (
            outline.symbols[1].name.as_str(),
            outline.symbols[1].start_line
        ),
        ("f", 2)
    );
}

// ---------------------------------------------------------------------------
// Walking a tree
// ---------------------------------------------------------------------------

#[test]
fn unreadable_files_and_broken_links_are_notes_and_the_rest_is_outlined() {
    let dir = tree(&[
        ("a.py", b"def a():\n    pass\n"),
        ("locked.py", b"def locked():\n    pass\n"),
    ]);
    let locked = dir.path().join("locked.py");
    std::os::unix::fs::symlink("missing.py", dir.path().join("dangling.py")).expect("symlink");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    // As root, permissions do not deny reading: then the file is outlined.
    let denied = std::fs::read(&locked).is_err();
    let out = run(dir.path(), &["outline", "."]);
    out.expect_code(0);
    let mut expected_err =
        String::from("ast-outline: dangling.py: broken symbolic link; not read\n");
    let mut expected_out = String::from("a.py (python, 2 lines)\nL1-2 def a()\n");
    if denied {
        expected_err.push_str("ast-outline: locked.py: Permission denied (os error 13)\n");
    } else {
        expected_out.push_str("\nlocked.py (python, 2 lines)\nL1-2 def locked()\n");
    }
    assert_eq!(out.stderr, expected_err);
    assert_eq!(out.stdout, expected_out);
    // --quiet leaves the note on the link out (a file that cannot be read is
    // still an error).
    let quiet = run(dir.path(), &["outline", "--quiet", "."]);
    let still = if denied {
        "ast-outline: locked.py: Permission denied (os error 13)\n"
    } else {
        ""
    };
    assert_eq!(quiet.stderr, still);
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o644)).expect("chmod");
}

#[test]
fn walking_a_tree_with_a_fifo_never_opens_it() {
    let dir = tree(&[("sub/ok.py", b"def fine():\n    pass\n")]);
    let fifo = dir.path().join("sub/pipe.py");
    let status = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    // Opening the FIFO for reading would block this run forever (nothing
    // writes to it): finishing at all is the assertion, with the right output.
    let out = run(dir.path(), &["outline", "sub"]);
    out.expect_code(0);
    assert_eq!(out.stdout, "sub/ok.py (python, 2 lines)\nL1-2 def fine()\n");
    assert_eq!(
        out.stderr,
        "ast-outline: sub/pipe.py: not a regular file (a FIFO, socket or device); not read\n"
    );
    // --quiet leaves notes out.
    let out = run(dir.path(), &["outline", "--quiet", "sub"]);
    out.expect_code(0);
    assert_eq!(out.stderr, "");
    let out = run(dir.path(), &["outline", "sub/pipe.py"]);
    out.expect_code(1);
    assert_eq!(
        out.stderr,
        "ast-outline: sub/pipe.py: not a regular file (a FIFO, socket or device); not read\n"
    );
}

#[test]
fn language_of_the_library_entry_point_is_checked() {
    // outline_file refuses what the binary refuses.
    let dir = tree(&[("blob.rs", b"fn a() {}\0"), ("ok.rs", b"fn a() {}\n")]);
    let error = ast_outline::outline_file(dir.path().join("blob.rs"), &OutlineOptions::default())
        .expect_err("binary");
    assert!(
        error
            .to_string()
            .ends_with("looks binary (contains NUL bytes); not outlined")
    );
    let outline = on_small_stack(|| {
        ast_outline::outline_file(dir.path().join("ok.rs"), &OutlineOptions::default())
    })
    .expect("outlined");
    assert_eq!(outline.language, Language::Rust);
    assert_eq!(outline.symbols[0].name, "a");
}

/// 300,000 chained `await`s overflowed ruff's stack (found by a new user's
/// trial; each `await` is a level of its recursive descent, not a bracket):
/// the awaits past the nesting limit are left out like deep brackets, and
/// the facts and outline are made.
#[test]
fn python_await_chains_of_a_million_links_are_left_out_with_an_error() {
    let source = format!(
        "async def f():\n    x = {}y\n\ndef after():\n    pass\n",
        "await ".repeat(1_000_000)
    );
    let (outline, facts) = on_small_stack(|| {
        ast_outline::outline_source_with_facts(
            "awaits.py",
            Language::Python,
            &source,
            &OutlineOptions::default(),
        )
    });
    let names: Vec<&str> = outline.symbols.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["f", "after"]);
    assert!(outline.partial);
    assert!(
        outline.not_outlined().is_none(),
        "{:?}",
        outline.diagnostics
    );
    let names: Vec<&str> = facts.references.iter().map(|r| r.name.as_str()).collect();
    assert!(names.contains(&"y"), "{names:?}");
    // `await await y` is not Python (an await takes a primary): ruff says
    // so of each nested await that is left, and those fill the listed
    // diagnostics before the left-out ones.
    assert_eq!(
        errors(&outline)[0],
        "Await expression cannot be used here",
        "{:?}",
        outline.diagnostics
    );
    assert!(outline.omitted_diagnostics > 0);
}

/// Chains of prefix operators mixed with `await`, 100,000 each, in an
/// `async def` (a second new-user trial: the stack overflowed in-process):
/// outlined, partial, on a 2 MiB stack.
#[test]
fn python_prefix_operators_mixed_with_awaits_are_left_out_past_the_limit() {
    for chunk in [
        "- await ",
        "not await ",
        "await - ",
        "await not ",
        "~await ",
        "+await ",
    ] {
        let source = format!(
            "async def f():\n    return {}x\n\ndef after():\n    pass\n",
            chunk.repeat(100_000)
        );
        let outline = on_small_stack(|| outline("mixed.py", &source));
        let names: Vec<&str> = outline.symbols.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["f", "after"], "{chunk:?}");
        assert!(outline.partial, "{chunk:?}");
        assert!(
            outline.not_outlined().is_none(),
            "{chunk:?}: {:?}",
            outline.diagnostics
        );
    }
}
