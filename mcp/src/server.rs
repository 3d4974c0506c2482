//! The MCP server: the tools of [`super::tools`] (outline, read, find) and
//! [`super::index_tools`] (references, calls, type hierarchy, context) behind
//! rmcp's tool router, each with a description that teaches the workflow
//! (outline first, then read only what is needed, by id).

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};

use super::index_tools::{
    FindReferencesArgs, FindTestsArgs, GetCallersArgs, GetContextArgs, GetImpactArgs,
    TypeHierarchyArgs,
};
use super::tools::{
    Checked, FileOutlineArgs, FindSymbolArgs, ReadLinesArgs, ReadSymbolArgs, SearchCodeArgs,
    Workspace,
};
use ast_outline_budget as tokens;

/// What the server tells a client about itself when it connects: the same
/// advice as `ast-outline prompt`.
pub const INSTRUCTIONS: &str = "\
Search, then read only the part you need: every result costs context, and its token count \
ends it. 1) search_code a distinctive word from the task (an error message, an option or \
function name): each hit comes under the symbol and block holding it, with their ids and \
lines. With context_lines=2 the lines around each hit come too: for \"where is X called, set \
or used\" that is usually the whole answer (more than 5 rarely pays; leave tests out with \
globs [\"!**/test*/**\"] when the question is about library code). 2) To see more, \
read_symbol(id) the block or symbol a hit is under rather than a wide line range; a symbol \
longer than max_lines (default 300; max_lines=60 gives a long function's overview) comes with \
its parts (members, control-flow blocks) folded to one line each with their ids, so read \
just the part. Ids (PATH:START_LINE:QUALNAME) stay valid after edits. 3) find_symbol(path, \
line) names the function and branch holding a line; read_lines(path, start, end) reads a \
few lines you know you need and says which symbols they are in. 4) For the map of a file or \
directory, get_file_outline (a big file shows names and lines only; get_file_outline(path, \
symbol=qualname) shows one class or function with signatures, ids and blocks); \
find_symbol(pattern) finds a name across the tree. 5) Before changing a symbol, see who uses \
it: find_references, get_callers (incoming or outgoing calls), get_type_hierarchy, or \
get_context (the definition plus the code of its references, callers or related types, \
within a token budget). 6) Before adding a handler, service or test, get_context(kind=siblings) \
on one nearby shows the code shaped like it, ranked, with why. Outlines and references cover \
the static source only: a reference made at run time (getattr with a literal name, \
import_module, a dispatch table) is labelled dynamic, as is a use of a Rust item that a \
macro_rules! of the project makes (its target is the macro), and symbols registered at run time \
(plugins, decorators' registries, generated names) are not seen: confirm those with a run \
(logs, a stack trace). Paths are relative to the server's root.";

const OUTLINE: &str = "\
The outline of a source file (or of every source file under a directory): one line per \
class, function, method, field… as `L<start>-<end> <signature> — <first doc line> id=<id>`, \
indented by nesting, with imports and syntax errors. Lines are 1-based and inclusive. With \
symbol (a qualname or id): only that symbol's members, nested definitions and control-flow \
blocks. Cut to max_tokens (default 2500): a larger outline shows names and lines only, then \
fewer nesting levels (the result says so). Python, TypeScript/JavaScript and Rust.";

const READ_SYMBOL: &str = "\
Read the exact source of one symbol (function, method, class, block…) by the id that \
get_file_outline, search_code or find_symbol printed (PATH:START_LINE:QUALNAME), or by path + \
qualname. The header gives the real lines and the enclosing symbols. A symbol longer than \
max_lines (default 300) comes as its lines with each part (member, nested definition, \
control-flow block) folded to one line ending in the part's id: read the part you need next. \
After you edit the file the same id still works: the symbol is found again by its qualname.";

const SEARCH_CODE: &str = "\
Find text across the tree (or under a path), like grep -rn, but each hit lands on its symbol: \
hits are grouped by file, under the innermost function/method/class (its id, kind, lines and \
signature, once) and control-flow block holding them, as `L<line>: <text>`; hits outside any \
symbol are under (module level). Literal by default; regex, case (sensitive, insensitive, \
smart), whole words and path globs (`*.py`, `!tests/**`) on request. Cut to max_tokens \
(default 2000) with a note of what was left out. context_lines=N (at most 20) shows N lines \
before and after each hit, within its symbol, as `L<line>- <text>`, indented relative to each \
other: often enough to answer without reading further. Then read_symbol(id) the symbol you need.";

const READ_LINES: &str = "\
Read a line range of a file (1-based, inclusive), at most 300 lines by default; the header \
says which symbols the range is inside (and where it starts and ends). Prefer read_symbol \
for a whole symbol or part.";

const FIND_SYMBOL: &str = "\
Find symbols by name across the tree (or under a path) and get their ids, to read with \
read_symbol. The pattern is case-insensitive: a substring of the qualified name (`total`, \
`Cart.`) or a glob with * and ? matching the whole name or qualified name (`get_*`, `Cart.*`). \
With path (a file) and line instead of pattern: the symbols and control-flow blocks holding \
that line, outermost first, with ids, lines and the branch (`elif`, `else`, a match arm) it is in.";

/// What the cross-file tools' descriptions end with.
macro_rules! cross_file {
    () => {
        " Answered from the cross-file index of the root \
(ROOT/.ast-outline/index.sqlite), refreshed before every answer so it matches the files on \
disk; the first call builds it (seconds on a small project, a minute or more on a very large \
one)."
    };
}

/// What the descriptions of the tools that list references end with.
macro_rules! resolution {
    () => {
        " Each result line says whether the reference is resolved, only a candidate, or \
dynamic (made at run time: getattr(obj, \"name\"), import_module, a dispatch table; a run \
confirms it; or a Rust item a macro_rules! of the project makes, the macro as target). Static source only: a symbol registered at run time is not seen."
    };
}

const FIND_REFERENCES: &str = concat!(
    "Find every reference to a definition across the tree (calls, type uses, inheritance, imports, \
attribute accesses, instantiations), grouped by file with line:column, role, the enclosing \
definition, and how it was resolved. target: a symbol id from get_file_outline or \
find_symbol, PATH:QUALNAME, or PATH:LINE:COL of a use. Python, TypeScript/JavaScript, Rust.",
    cross_file!(),
    resolution!()
);

const GET_CALLERS: &str = concat!(
    "The call hierarchy of a function or method: with direction=incoming (default), the calls to it \
and, with depth N, the callers of those callers; with direction=outgoing, the calls it makes \
and what each resolves to. Use before changing a signature.",
    cross_file!(),
    resolution!()
);

const GET_TYPE_HIERARCHY: &str = concat!(
    "The supertypes and subtypes of a class, interface, struct, enum or trait, transitively, nearest \
first (Python bases, TypeScript extends/implements, Rust impl Trait for Type and supertraits).",
    cross_file!()
);

const GET_CONTEXT: &str = concat!(
    "The code an assistant needs about the symbol at a position, ranked and cut to max_tokens: its \
definition, then (kind) the lines around its references, its callers' code, or its supertypes' \
and subtypes' code. Each block names the qualname, path, lines and relation; the result says \
what was left out. kind=siblings instead gives its signature and the symbols shaped like it in \
its file and directory (same kind, shared base classes or traits, decorators, name prefix or \
suffix, parameters), ranked, each with why, the first two with their first lines: read it \
before adding a new handler, service or test, to write it like the code next to it. target: \
PATH:LINE:COL of a use or definition, PATH:LINE, an id, or PATH:QUALNAME. References cover \
the static source only; one made at run time is marked dynamic.",
    cross_file!()
);

const FIND_TESTS: &str = concat!(
    "The tests that reach a function, method or class through the reverse call graph: pytest and \
unittest tests, Rust #[test] functions, it/test cases (and describe/hook bodies) of \
TypeScript/JavaScript, each with its call path to the target, nearest first. Use to pick the \
tests to run after changing it; a test reaching it only through calls made at run time \
with no literal name (getattr(obj, attr), obj[key]()) is not seen.",
    cross_file!()
);

const GET_IMPACT: &str = concat!(
    "What a change touches: from git's diff of the working tree against HEAD (or base, or a \
unified diff given), the definitions whose lines changed (modified, added, removed; by id), \
each with its direct callers and the tests that reach it, and the list of tests to run.",
    cross_file!()
);

/// The tools' names, in the order they are listed.
const TOOL_ORDER: [&str; 11] = [
    "search_code",
    "get_file_outline",
    "read_symbol",
    "find_symbol",
    "read_lines",
    "find_references",
    "get_callers",
    "get_type_hierarchy",
    "get_context",
    "find_tests",
    "get_impact",
];

/// The MCP server of one root directory.
#[derive(Debug, Clone)]
pub struct OutlineServer {
    workspace: Arc<Workspace>,
    tool_router: ToolRouter<Self>,
}

impl OutlineServer {
    /// A server answering from `workspace`.
    pub fn new(workspace: Workspace) -> OutlineServer {
        OutlineServer {
            workspace: Arc::new(workspace),
            tool_router: Self::tool_router(),
        }
    }

    /// The definitions (name, description, JSON Schema of the arguments) of
    /// the server's tools, as `tools/list` gives them.
    /// The order is the workflow's: outline, read a symbol, find, read lines.
    pub fn tool_definitions() -> Vec<Tool> {
        let mut tools = Self::tool_router().list_all();
        tools.sort_by_key(|tool| TOOL_ORDER.iter().position(|name| *name == tool.name));
        tools
    }
}

impl OutlineServer {
    /// [`answer`] after the settings note ([`Workspace::settings_note`]):
    /// an answer (or error) starts with it in parentheses.
    fn answer(&self, work: impl FnOnce() -> Result<String, String>) -> CallToolResult {
        match self.workspace.settings_note() {
            Some(note) => answer(|| {
                work()
                    .map(|text| format!("({note})\n{text}"))
                    .map_err(|text| format!("({note})\n{text}"))
            }),
            None => answer(work),
        }
    }
}

/// A tool's text result with its token count, or its error as an MCP tool
/// error (`isError: true`); no work is started once the client left. A
/// panic in the work (a bug) is that call's error, not a request left
/// without an answer (a new user's trial: the client waited forever).
fn answer(work: impl FnOnce() -> Result<String, String>) -> CallToolResult {
    if super::stdio::client_gone() {
        return reply(Err(
            "the client closed the connection; nothing was done".to_owned()
        ));
    }
    let result =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(format!(
                "internal error (a bug in ast-outline: {what}); the server goes on — \
             please report the call that caused it"
            ))
        });
    reply(result)
}

fn reply(result: Result<String, String>) -> CallToolResult {
    match result {
        Ok(text) => CallToolResult::success(vec![ContentBlock::text(tokens::with_footer(text))]),
        Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
    }
}

#[tool_router]
impl OutlineServer {
    #[tool(description = OUTLINE, annotations(read_only_hint = true, open_world_hint = false))]
    fn get_file_outline(
        &self,
        Parameters(Checked(args)): Parameters<Checked<FileOutlineArgs>>,
    ) -> CallToolResult {
        self.answer(|| self.workspace.file_outline(&args))
    }

    #[tool(description = SEARCH_CODE, annotations(read_only_hint = true, open_world_hint = false))]
    fn search_code(
        &self,
        Parameters(Checked(args)): Parameters<Checked<SearchCodeArgs>>,
    ) -> CallToolResult {
        self.answer(|| self.workspace.search_code(&args))
    }

    #[tool(description = READ_SYMBOL, annotations(read_only_hint = true, open_world_hint = false))]
    fn read_symbol(
        &self,
        Parameters(Checked(args)): Parameters<Checked<ReadSymbolArgs>>,
    ) -> CallToolResult {
        self.answer(|| self.workspace.read_symbol(&args))
    }

    #[tool(description = READ_LINES, annotations(read_only_hint = true, open_world_hint = false))]
    fn read_lines(
        &self,
        Parameters(Checked(args)): Parameters<Checked<ReadLinesArgs>>,
    ) -> CallToolResult {
        self.answer(|| self.workspace.read_lines(&args))
    }

    #[tool(description = FIND_SYMBOL, annotations(read_only_hint = true, open_world_hint = false))]
    fn find_symbol(
        &self,
        Parameters(Checked(args)): Parameters<Checked<FindSymbolArgs>>,
    ) -> CallToolResult {
        self.answer(|| self.workspace.find_symbol(&args))
    }

    #[tool(description = FIND_REFERENCES, annotations(read_only_hint = true, open_world_hint = false))]
    fn find_references(
        &self,
        Parameters(Checked(args)): Parameters<Checked<FindReferencesArgs>>,
    ) -> CallToolResult {
        self.answer(|| self.workspace.find_references(&args))
    }

    #[tool(description = GET_CALLERS, annotations(read_only_hint = true, open_world_hint = false))]
    fn get_callers(
        &self,
        Parameters(Checked(args)): Parameters<Checked<GetCallersArgs>>,
    ) -> CallToolResult {
        self.answer(|| self.workspace.get_callers(&args))
    }

    #[tool(description = GET_TYPE_HIERARCHY, annotations(read_only_hint = true, open_world_hint = false))]
    fn get_type_hierarchy(
        &self,
        Parameters(Checked(args)): Parameters<Checked<TypeHierarchyArgs>>,
    ) -> CallToolResult {
        self.answer(|| self.workspace.get_type_hierarchy(&args))
    }

    #[tool(description = FIND_TESTS, annotations(read_only_hint = true, open_world_hint = false))]
    fn find_tests(
        &self,
        Parameters(Checked(args)): Parameters<Checked<FindTestsArgs>>,
    ) -> CallToolResult {
        self.answer(|| self.workspace.find_tests(&args))
    }

    #[tool(description = GET_IMPACT, annotations(read_only_hint = true, open_world_hint = false))]
    fn get_impact(
        &self,
        Parameters(Checked(args)): Parameters<Checked<GetImpactArgs>>,
    ) -> CallToolResult {
        self.answer(|| self.workspace.get_impact(&args))
    }

    #[tool(description = GET_CONTEXT, annotations(read_only_hint = true, open_world_hint = false))]
    fn get_context(
        &self,
        Parameters(Checked(args)): Parameters<Checked<GetContextArgs>>,
    ) -> CallToolResult {
        self.answer(|| self.workspace.get_context(&args))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for OutlineServer {
    fn get_info(&self) -> ServerConfig {
        let mut server = Implementation::from_build_env();
        server.name = "ast-outline".to_owned();
        server.version = env!("CARGO_PKG_VERSION").to_owned();
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(server)
            .with_instructions(INSTRUCTIONS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The instructions and the descriptions of the tools that list
    /// references say that they cover the static source only and that a
    /// reference made at run time is labelled dynamic.
    #[test]
    fn the_texts_say_references_are_static_and_dynamic_ones_are_labelled() {
        assert!(
            INSTRUCTIONS.contains("static source only"),
            "{INSTRUCTIONS}"
        );
        assert!(INSTRUCTIONS.contains("confirm those with a run (logs, a stack trace)"));
        for description in [FIND_REFERENCES, GET_CALLERS] {
            assert!(
                description.contains("dynamic (made at run time")
                    && description.contains("Static source only"),
                "{description}"
            );
        }
        assert!(GET_CONTEXT.contains("marked dynamic"), "{GET_CONTEXT}");
    }
}
