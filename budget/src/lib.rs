//! # ast-outline-budget
//!
//! Token accounting with a real tokenizer: OpenAI's `o200k_base` encoding
//! (GPT-4o and later), through `tiktoken-rs`. Other models' tokenizers differ
//! by some percent; the count tells an agent what a result costs. The cuts
//! that keep an answer within a budget ([`fits`], [`keep_lines`]) and the
//! repo map of `outline --max-tokens` ([`repo_map`]) are here, so the lean
//! library (`ast-outline`) needs no tokenizer.
//!
//! ```
//! let text = "def f():\n    return 1\n";
//! assert!(ast_outline_budget::fits(text, 100));
//! assert_eq!(ast_outline_budget::count("hello world"), Some(2));
//! ```

pub mod repo_map;

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
///
/// Every `o200k_base` token stands for at least one byte of UTF-8, so a text
/// of at most `budget` bytes fits without counting: the encoding (about
/// 200 ms to load) is only loaded for a longer text.
pub fn fits(text: &str, budget: usize) -> bool {
    text.len() <= budget || count(text).is_none_or(|n| n <= budget)
}

/// The longest run of `text`'s first whole lines that, followed by
/// `note(kept_lines, total_lines)`, fits in `budget` tokens; `None` when not
/// even the first line does.
///
/// Lines are counted one at a time (only as many as can fit), the run is
/// chosen by their summed counts, then the joined text is counted exactly
/// and trimmed (or grown) by whole lines until it fits: never over `budget`.
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
    let Some(bpe) = encoder() else {
        return Some(joined(total));
    };
    let exact = |text: &str| bpe.encode_ordinary(text).len();
    let room = budget.saturating_sub(exact(&note(total, total)));
    // Counts of the lines that may fit, one line at a time.
    let mut costs: Vec<usize> = Vec::new();
    let mut used = 0usize;
    for line in &lines {
        let cost = line_tokens(bpe, line);
        costs.push(cost);
        used += cost;
        if used > room {
            break;
        }
    }
    let mut kept = prefix_within(&costs, room);
    loop {
        if kept == 0 {
            // The estimate may be a little high: try the first line exactly.
            let first = joined(1.min(total));
            return (total > 0 && exact(&first) <= budget).then_some(first);
        }
        let candidate = joined(kept);
        let tokens = exact(&candidate);
        if tokens <= budget {
            // Estimates run high: fill what is left once, by the same sums.
            let spare = budget - tokens;
            let mut more = 0usize;
            let mut used = 0usize;
            for line in &lines[kept..] {
                used += line_tokens(bpe, line);
                if used > spare {
                    break;
                }
                more += 1;
            }
            if more > 0 {
                let bigger = joined(kept + more);
                if exact(&bigger) <= budget {
                    return Some(bigger);
                }
            }
            return Some(candidate);
        }
        // Over by `tokens - budget`: drop whole lines from the end worth at least that.
        let over = tokens - budget;
        let mut dropped = 0usize;
        while kept > 0 && dropped < over {
            kept -= 1;
            dropped += costs.get(kept).copied().unwrap_or(1);
        }
    }
}

/// The tokens of one line followed by its `\n`, counted alone.
fn line_tokens(bpe: &CoreBPE, line: &str) -> usize {
    bpe.encode_ordinary(line).len() + 1
}

/// An estimate of the tokens of `lines` (each followed by `\n`): each line is
/// counted alone and the counts summed, stopping with `None` as soon as the
/// sum passes `limit` (so a huge text costs no more than `limit` tokens of
/// counting). Summing is linear, where counting a growing text again and
/// again is quadratic; the sum is usually a little above the exact count of
/// the joined text (a newline and the next line's indentation can be one
/// token), so a text chosen by estimates is checked exactly once at the end.
/// `Some(0)` when the encoding did not load (nothing can be counted).
pub fn estimate_within<'a>(
    lines: impl IntoIterator<Item = &'a str>,
    limit: usize,
) -> Option<usize> {
    let Some(bpe) = encoder() else {
        return Some(0);
    };
    let mut sum = 0usize;
    for line in lines {
        sum += line_tokens(bpe, line);
        if sum > limit {
            return None;
        }
    }
    Some(sum)
}

/// How many of `costs` (in order) fit in `room`, summed.
fn prefix_within(costs: &[usize], room: usize) -> usize {
    let mut used = 0usize;
    costs
        .iter()
        .take_while(|cost| {
            used += **cost;
            used <= room
        })
        .count()
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

    #[test]
    fn a_text_of_at_most_budget_bytes_fits_and_longer_ones_are_counted() {
        // At most one token per byte: short texts fit without counting.
        let text = "hello world, hello world";
        let tokens = count(text).unwrap_or(0);
        assert!(tokens > 0 && tokens < text.len(), "{tokens}");
        assert!(fits(text, text.len()));
        // Longer than the budget in bytes: the exact count decides.
        assert!(fits(text, tokens));
        assert!(!fits(text, tokens - 1));
    }

    #[test]
    fn kept_lines_never_pass_the_budget_and_leave_little_unused() {
        let text: String = (0..400)
            .map(|i| {
                format!(
                    "{}L{i}-{} def f_{i}(x: int) -> str id=a.py:{i}:f_{i}\n",
                    "  ".repeat(i % 3),
                    i + 2
                )
            })
            .collect();
        let note = |kept: usize, total: usize| format!("(cut after {kept} of {total} lines)\n");
        let lines: Vec<&str> = text.lines().collect();
        let exact_kept = |budget: usize| {
            // The most lines that fit, counted exactly (the slow way).
            (0..=lines.len())
                .rev()
                .find(|n| {
                    let mut joined: String = lines[..*n].iter().map(|l| format!("{l}\n")).collect();
                    joined.push_str(&note(*n, lines.len()));
                    *n == 0 || fits(&joined, budget)
                })
                .unwrap_or(0)
        };
        for budget in [12, 40, 100, 333, 1000, 2500, 4000] {
            let kept = keep_lines(&text, budget, note);
            let best = exact_kept(budget);
            match kept {
                None => assert_eq!(best, 0, "{budget}"),
                Some(kept) => {
                    assert!(fits(&kept, budget), "{budget}: {:?}", count(&kept));
                    let n = kept.lines().count() - 1;
                    assert!(
                        n <= best && n + 2 >= best,
                        "{budget}: kept {n}, could keep {best}"
                    );
                }
            }
        }
    }
}
