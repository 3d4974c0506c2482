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

/// Whether `text` is at most `budget` tokens (also when the encoding did not
/// load: then nothing can be counted and nothing is cut).
pub fn fits(text: &str, budget: usize) -> bool {
    count(text).is_none_or(|n| n <= budget)
}

/// The longest run of `text`'s first whole lines that, followed by
/// `note(kept_lines, total_lines)`, fits in `budget` tokens; `None` when not
/// even the first line does.
pub fn keep_lines(
    text: &str,
    budget: usize,
    note: impl Fn(usize, usize) -> String,
) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len();
    let joined = |n: usize| {
        let mut kept = String::new();
        for line in lines.iter().take(n) {
            kept.push_str(line);
            kept.push('\n');
        }
        kept + &note(n, total)
    };
    // Fitting is monotone in the number of lines kept (more lines, more
    // tokens): search for the largest count that fits.
    let (mut low, mut high) = (0usize, total);
    while low < high {
        let middle = (low + high).div_ceil(2);
        if fits(&joined(middle), budget) {
            low = middle;
        } else {
            high = middle - 1;
        }
    }
    (low > 0).then(|| joined(low))
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
