//! Token accounting with a real tokenizer: OpenAI's `o200k_base` encoding
//! (GPT-4o and later), through `tiktoken-rs`. Other models' tokenizers differ
//! by some percent; the count tells an agent what a result costs.

use std::sync::OnceLock;

use tiktoken_rs::CoreBPE;

/// The name of the encoding counted with.
pub const ENCODING: &str = "o200k_base";

fn encoder() -> Option<&'static CoreBPE> {
    static ENCODER: OnceLock<Option<CoreBPE>> = OnceLock::new();
    ENCODER
        .get_or_init(|| tiktoken_rs::o200k_base().ok())
        .as_ref()
}

/// The number of `o200k_base` tokens in `text` (special tokens counted as
/// ordinary text); `None` if the encoding could not be loaded.
pub fn count(text: &str) -> Option<usize> {
    encoder().map(|bpe| bpe.encode_ordinary(text).len())
}

/// `text` followed by its token count, as `[412 tokens, o200k_base]` on a line
/// of its own (the count is of `text`, without that line).
pub fn with_footer(mut text: String) -> String {
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let footer = match count(&text) {
        Some(1) => format!("[1 token, {ENCODING}]"),
        Some(tokens) => format!("[{tokens} tokens, {ENCODING}]"),
        None => format!("[token count unavailable: the {ENCODING} encoding did not load]"),
    };
    text.push_str(&footer);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_real_tokens() {
        // "hello world" is two tokens in o200k_base.
        assert_eq!(count("hello world"), Some(2));
        assert_eq!(count(""), Some(0));
        assert_eq!(
            with_footer("hello world".into()),
            "hello world\n[3 tokens, o200k_base]"
        );
    }
}
