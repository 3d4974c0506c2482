//! The JSON Schema of the `--format json` output: one [`FileOutline`] object per
//! line. The published copy lives at `schema/file-outline.schema.json` in the
//! repository; a test keeps it equal to [`file_outline_schema`].

use crate::model::FileOutline;

/// The JSON Schema (draft 2020-12) of one line of JSON output.
pub fn file_outline_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(FileOutline)).unwrap_or_default()
}

/// [`file_outline_schema`] pretty-printed, with a trailing newline.
pub fn file_outline_schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&file_outline_schema()).unwrap_or_default();
    text.push('\n');
    text
}
