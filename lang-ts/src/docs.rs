//! JSDoc: the `/** … */` comment right before a declaration (before its
//! decorators and modifiers), as the TypeScript compiler attaches it
//! (`ts.getJSDocCommentsAndTags`).

use outline_core::text::doc_first_line;
use swc_common::BytePos;
use swc_common::comments::{CommentKind, Comments, SingleThreadedComments};

use crate::source::Source;

/// The line where the JSDoc before `start` begins, and the first line of its
/// description (leading `*` stripped; `None` when it has only tags).
pub(crate) fn jsdoc(
    source: &Source<'_>,
    comments: &SingleThreadedComments,
    start: BytePos,
) -> Option<(u32, Option<String>)> {
    let leading = comments.get_leading(start)?;
    let last = leading.last()?;
    if last.kind != CommentKind::Block
        || !last.text.starts_with('*')
        || last.text.starts_with("**") && last.text.trim_matches('*').is_empty()
    {
        return None;
    }
    let body = last.text.get(1..).unwrap_or_default();
    let cleaned: String = body
        .lines()
        .map(|line| {
            let line = line.trim_start();
            line.strip_prefix('*').unwrap_or(line).trim()
        })
        .take_while(|line| !line.starts_with('@'))
        .collect::<Vec<_>>()
        .join("\n");
    Some((source.line(last.span.lo), doc_first_line(&cleaned)))
}
