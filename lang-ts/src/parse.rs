//! Choosing swc's syntax from the file's language and parsing a text (or a
//! piece of it, during recovery) with its comments.

use outline_core::Language;
use swc_common::comments::SingleThreadedComments;
use swc_common::{BytePos, Span};
use swc_ecma_ast::{EsVersion, ModuleItem, Program};
use swc_ecma_parser::error::{Error, SyntaxError};
use swc_ecma_parser::lexer::Lexer;
use swc_ecma_parser::{EsSyntax, Parser, StringInput, Syntax, TsSyntax};

use crate::source::BASE;

/// The syntax for a language: TypeScript (with JSX for `.tsx`), or ECMAScript
/// with JSX for the JavaScript extensions; decorators on in both. With `dts`
/// (a declaration file, `.d.ts`), TypeScript in an ambient context, where
/// `export const a: T;` needs no initializer.
pub(crate) fn syntax(language: Language, dts: bool) -> Syntax {
    match language {
        Language::Javascript | Language::Jsx => Syntax::Es(EsSyntax {
            jsx: true,
            decorators: true,
            decorators_before_export: true,
            allow_return_outside_function: true,
            auto_accessors: true,
            explicit_resource_management: true,
            import_attributes: true,
            ..EsSyntax::default()
        }),
        _ => Syntax::Typescript(TsSyntax {
            tsx: language == Language::Tsx,
            decorators: true,
            dts,
            ..TsSyntax::default()
        }),
    }
}

/// Whether `path` names a declaration file, by TypeScript's rule
/// (`isDeclarationFileName`): a name ending in `.d.ts`, `.d.mts` or
/// `.d.cts`, or in `.d.EXT.ts` for one more extension (`styles.d.css.ts`).
pub(crate) fn is_declaration_file(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    name.ends_with(".d.ts")
        || name.ends_with(".d.mts")
        || name.ends_with(".d.cts")
        || name
            .strip_suffix(".ts")
            .and_then(|stem| stem.rsplit_once(".d."))
            .is_some_and(|(_, ext)| !ext.is_empty() && !ext.contains('.'))
}

/// What parsing one text gave.
pub(crate) struct Parsed {
    /// The items, or the fatal error that stopped the parser.
    pub items: Result<Vec<ModuleItem>, Error>,
    /// Errors the parser recovered from.
    pub recovered: Vec<Error>,
}

/// Parses `text`, whose first byte is at byte offset `offset` of the file,
/// recording comments in `comments`.
pub(crate) fn parse(
    text: &str,
    offset: usize,
    syntax: Syntax,
    comments: &SingleThreadedComments,
) -> Parsed {
    let start = u32::try_from(offset)
        .unwrap_or(u32::MAX / 2)
        .saturating_add(BASE);
    let len = u32::try_from(text.len()).unwrap_or(u32::MAX / 2);
    // swc has internal assertions (`debug_assert!`, checked in debug builds)
    // that some broken inputs trip: such a text counts as failed, so that
    // recovery still outlines the rest of the file.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let input = StringInput::new(text, BytePos(start), BytePos(start.saturating_add(len)));
        let lexer = Lexer::new(syntax, EsVersion::latest(), input, Some(comments));
        let mut parser = Parser::new_from(lexer);
        let program = parser.parse_program();
        let recovered = parser.take_errors();
        let items = program.map(|program| match program {
            Program::Module(module) => module.body,
            Program::Script(script) => script.body.into_iter().map(ModuleItem::Stmt).collect(),
        });
        Parsed { items, recovered }
    }))
    .unwrap_or_else(|_| Parsed {
        items: Err(Error::new(
            Span::new(BytePos(start), BytePos(start)),
            SyntaxError::Expected(
                "valid syntax".to_owned(),
                "input the parser failed on".to_owned(),
            ),
        )),
        recovered: Vec::new(),
    })
}
