//! JSON Lines: one [`FileOutline`] object per line (see `CONTRACT.md` and the JSON
//! Schema from [`crate::schema`]).

use crate::model::FileOutline;

/// The outline as one line of JSON, without the trailing newline.
///
/// # Errors
/// Only if serialisation itself fails, which the model's types never cause.
pub fn json_line(outline: &FileOutline) -> serde_json::Result<String> {
    serde_json::to_string(outline)
}
