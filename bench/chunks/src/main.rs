//! BM25 retrieval benchmark: `ast-outline chunks` symbol chunks vs fixed line windows.
//!
//! See README.md for what is measured and the rules both chunkings follow.

mod tokenize;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Parser;
use serde::{Deserialize, Serialize};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions};
use tantivy::{Index, IndexWriter, TantivyDocument, Term};

/// Largest k for which ranks are looked at (recall@1, @5, @10).
const KS: [usize; 3] = [1, 5, 10];

#[derive(Parser)]
#[command(about = "BM25 recall of ast-outline symbol chunks vs fixed line windows")]
struct Args {
    /// questions.json (array of {id, corpus, question, answers: [{path, start_line, end_line}]}).
    #[arg(long, default_value = "questions.json")]
    questions: PathBuf,
    /// Folder holding one folder per corpus (paths of chunks and answers are relative to it).
    #[arg(long)]
    work: PathBuf,
    /// Folder holding `<corpus>.jsonl`, the output of `ast-outline chunks` run in the corpus folder.
    #[arg(long)]
    chunks: PathBuf,
    /// Lines per fixed window (consecutive, no overlap).
    #[arg(long, default_value_t = 200)]
    fixed_lines: usize,
    /// Only these corpora (repeatable); default: every corpus of the questions.
    #[arg(long)]
    corpus: Vec<String>,
    /// Write per-question results (top hits of both chunkings) as JSON Lines here.
    #[arg(long)]
    details: Option<PathBuf>,
    /// Write the summary as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
}

#[derive(Deserialize, Serialize, Clone, Debug)]
struct Answer {
    path: String,
    start_line: usize,
    end_line: usize,
}

#[derive(Deserialize, Clone, Debug)]
struct Question {
    id: String,
    corpus: String,
    question: String,
    answers: Vec<Answer>,
}

/// One line of `ast-outline chunks` (only the fields used here).
#[derive(Deserialize)]
struct SymbolChunkLine {
    id: String,
    path: String,
    start_line: usize,
    end_line: usize,
    #[serde(default)]
    kind: String,
    #[serde(default)]
    context: Vec<String>,
    text: String,
    #[serde(default)]
    tokens: Option<u64>,
}

/// A chunk of either chunking, as indexed.
#[derive(Clone, Debug)]
struct Chunk {
    id: String,
    path: String,
    start_line: usize,
    end_line: usize,
    kind: String,
    /// The text given to the index.
    indexed: String,
    /// The chunk's own text (the file's lines start..end).
    text: String,
    /// The chunker's own token count (symbol chunks only).
    tokens: Option<u64>,
}

impl Chunk {
    fn holds(&self, a: &Answer) -> bool {
        self.path == a.path && self.start_line <= a.start_line && a.end_line <= self.end_line
    }
    fn lines(&self) -> usize {
        self.end_line + 1 - self.start_line.min(self.end_line + 1)
    }
}

fn norm_path(p: &str) -> String {
    let mut s = p.replace('\\', "/");
    while let Some(rest) = s.strip_prefix("./") {
        s = rest.to_string();
    }
    s
}

fn file_lines(path: &Path) -> Result<Vec<String>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(String::from_utf8_lossy(&bytes)
        .lines()
        .map(str::to_string)
        .collect())
}

fn load_symbol_chunks(path: &Path) -> Result<Vec<Chunk>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let c: SymbolChunkLine = serde_json::from_str(line)
            .map_err(|e| format!("{}:{}: not a chunk: {e}", path.display(), n + 1))?;
        let indexed = if c.context.is_empty() {
            c.text.clone()
        } else {
            format!("{}\n{}", c.context.join("\n"), c.text)
        };
        out.push(Chunk {
            id: c.id,
            path: norm_path(&c.path),
            start_line: c.start_line,
            end_line: c.end_line,
            kind: c.kind,
            indexed,
            text: c.text,
            tokens: c.tokens,
        });
    }
    Ok(out)
}

/// Consecutive `n`-line windows of every file, in path order.
fn fixed_chunks(files: &BTreeMap<String, Vec<String>>, n: usize) -> Vec<Chunk> {
    let mut out = Vec::new();
    for (path, lines) in files {
        let mut start = 0;
        while start < lines.len() {
            let end = (start + n).min(lines.len());
            out.push(Chunk {
                id: format!("{path}:{}-{}", start + 1, end),
                path: path.clone(),
                start_line: start + 1,
                end_line: end,
                kind: "window".into(),
                indexed: lines[start..end].join("\n"),
                text: String::new(),
                tokens: None,
            });
            start = end;
        }
    }
    out
}

/// One BM25 index (in RAM) over one chunking of one corpus.
struct Bm25 {
    body: tantivy::schema::Field,
    reader: tantivy::IndexReader,
}

impl Bm25 {
    fn build(chunks: &[Chunk]) -> tantivy::Result<Bm25> {
        let mut sb = Schema::builder();
        let body_opts = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(tokenize::ANALYZER)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        let body = sb.add_text_field("body", body_opts);
        let ord = sb.add_u64_field("ord", NumericOptions::default().set_stored().set_fast());
        let index = Index::create_in_ram(sb.build());
        index
            .tokenizers()
            .register(tokenize::ANALYZER, tokenize::index_analyzer());
        // One thread, one commit: one segment, documents in chunk order.
        let mut w: IndexWriter = index.writer_with_num_threads(1, 200_000_000)?;
        for (i, c) in chunks.iter().enumerate() {
            let mut d = TantivyDocument::default();
            d.add_text(body, &c.indexed);
            d.add_u64(ord, i as u64);
            w.add_document(d)?;
        }
        w.commit()?;
        let reader = index.reader()?;
        Ok(Bm25 { body, reader })
    }

    /// Chunk ordinals of the top `k` chunks for the (already analysed) query terms.
    fn search(&self, terms: &[String], k: usize) -> tantivy::Result<Vec<(f32, usize)>> {
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let clauses: Vec<(Occur, Box<dyn Query>)> = terms
            .iter()
            .map(|t| {
                let q: Box<dyn Query> = Box::new(TermQuery::new(
                    Term::from_field_text(self.body, t),
                    IndexRecordOption::WithFreqs,
                ));
                (Occur::Should, q)
            })
            .collect();
        let query = BooleanQuery::new(clauses);
        let searcher = self.reader.searcher();
        let top = searcher.search(&query, &TopDocs::with_limit(k).order_by_score())?;
        let mut out = Vec::new();
        for (score, addr) in top {
            let ords = searcher
                .segment_reader(addr.segment_ord)
                .fast_fields()
                .u64("ord")?;
            let o = ords.first(addr.doc_id).unwrap_or(u64::MAX) as usize;
            out.push((score, o));
        }
        // Ties: higher score first, then chunk order (path, line) — the same rule for both chunkings.
        out.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        Ok(out)
    }
}

#[derive(Default, Serialize, Clone)]
struct Dist {
    n: usize,
    mean: f64,
    median: f64,
    max: u64,
}

fn dist(mut v: Vec<u64>) -> Dist {
    if v.is_empty() {
        return Dist::default();
    }
    v.sort_unstable();
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2] as f64
    } else {
        (v[n / 2 - 1] + v[n / 2]) as f64 / 2.0
    };
    Dist {
        n,
        mean: v.iter().sum::<u64>() as f64 / n as f64,
        median,
        max: v[n - 1],
    }
}

#[derive(Serialize, Default, Clone)]
struct ChunkingResult {
    chunks: usize,
    lines: Dist,
    /// Terms the shared analyzer yields for the indexed text (same measure for both).
    index_terms: Dist,
    /// The chunker's own `tokens` (symbol chunking only).
    chunker_tokens: Option<Dist>,
    /// hits[i] = questions with a holding chunk in the top KS[i].
    hits: Vec<usize>,
    /// Answers held by no chunk of this chunking.
    answers_unheld: usize,
    /// Questions none of whose answers is held by any chunk (can never be a hit).
    questions_unreachable: usize,
    /// Sum over questions of the lines of the top 5 chunks (what a reader of the top 5 reads).
    top5_lines: usize,
    /// Questions with a holding chunk among the top chunks read in rank order while their
    /// lines add up to at most 5 × the fixed window (what the fixed top 5 costs to read).
    hits_same_lines: usize,
}

#[derive(Serialize, Default, Clone)]
struct CorpusResult {
    corpus: String,
    questions: usize,
    answers: usize,
    files: usize,
    /// Answers whose file is not among the chunked files.
    answers_file_missing: usize,
    /// Symbol chunks whose text differs from the file's lines start..end.
    symbol_text_mismatches: usize,
    symbol: ChunkingResult,
    fixed: ChunkingResult,
}

#[derive(Serialize)]
struct Detail<'a> {
    id: &'a str,
    corpus: &'a str,
    query_terms: &'a [String],
    answers: &'a [Answer],
    symbol_rank: Option<usize>,
    fixed_rank: Option<usize>,
    symbol_top: Vec<String>,
    fixed_top: Vec<String>,
}

/// 1-based rank of the first top chunk that holds an answer.
fn first_hit(top: &[(f32, usize)], chunks: &[Chunk], answers: &[Answer]) -> Option<usize> {
    top.iter()
        .position(|&(_, o)| answers.iter().any(|a| chunks[o].holds(a)))
        .map(|r| r + 1)
}

fn summarize(
    chunks: &[Chunk],
    questions: &[&Question],
    ranks: &[Option<usize>],
    symbol: bool,
) -> ChunkingResult {
    let mut an = tokenize::index_analyzer();
    let held = |a: &Answer| chunks.iter().any(|c| c.holds(a));
    ChunkingResult {
        chunks: chunks.len(),
        lines: dist(chunks.iter().map(|c| c.lines() as u64).collect()),
        index_terms: dist(
            chunks
                .iter()
                .map(|c| tokenize::terms(&mut an, &c.indexed).len() as u64)
                .collect(),
        ),
        chunker_tokens: symbol.then(|| dist(chunks.iter().filter_map(|c| c.tokens).collect())),
        hits: KS
            .iter()
            .map(|&k| ranks.iter().filter(|r| r.is_some_and(|r| r <= k)).count())
            .collect(),
        answers_unheld: questions
            .iter()
            .flat_map(|q| &q.answers)
            .filter(|a| !held(a))
            .count(),
        questions_unreachable: questions
            .iter()
            .filter(|q| !q.answers.iter().any(held))
            .count(),
        top5_lines: 0,
        hits_same_lines: 0,
    }
}

/// Whether an answer is held by a chunk read before `budget` lines are read (chunks in rank
/// order, each read whole while the total stays within the budget).
fn hit_within_lines(
    top: &[(f32, usize)],
    chunks: &[Chunk],
    answers: &[Answer],
    budget: usize,
) -> bool {
    let mut read = 0;
    for &(_, o) in top {
        read += chunks[o].lines();
        if read > budget {
            return false;
        }
        if answers.iter().any(|a| chunks[o].holds(a)) {
            return true;
        }
    }
    false
}

fn run_corpus(
    args: &Args,
    corpus: &str,
    questions: &[&Question],
    details: &mut Vec<String>,
) -> Result<(CorpusResult, Vec<Chunk>, Vec<Chunk>), String> {
    let root = args.work.join(corpus);
    let jsonl = args.chunks.join(format!("{corpus}.jsonl"));
    let symbol = load_symbol_chunks(&jsonl)?;
    if symbol.is_empty() {
        return Err(format!("{}: no chunks", jsonl.display()));
    }
    // The fixed chunking covers exactly the files of the symbol chunking.
    let mut files = BTreeMap::new();
    for p in symbol
        .iter()
        .map(|c| c.path.clone())
        .collect::<BTreeSet<_>>()
    {
        let lines = file_lines(&root.join(&p))?;
        files.insert(p, lines);
    }
    let mut mismatches = 0;
    let mut first_mismatch = None;
    for c in &symbol {
        let lines = &files[&c.path];
        let ok = c.start_line >= 1
            && c.start_line <= c.end_line
            && c.end_line <= lines.len()
            && c.text.lines().eq(lines[c.start_line - 1..c.end_line]
                .iter()
                .map(String::as_str));
        if !ok {
            mismatches += 1;
            first_mismatch.get_or_insert_with(|| c.id.clone());
        }
    }
    if let Some(id) = first_mismatch {
        eprintln!(
            "warning: {corpus}: {mismatches} symbol chunk(s) whose text is not the file's lines start..end (first: {id})"
        );
    }
    let fixed = fixed_chunks(&files, args.fixed_lines);

    let sym_idx = Bm25::build(&symbol).map_err(|e| e.to_string())?;
    let fix_idx = Bm25::build(&fixed).map_err(|e| e.to_string())?;
    let mut qa = tokenize::query_analyzer();
    let kmax = *KS.iter().max().unwrap_or(&10);
    let (mut sr, mut fr) = (Vec::new(), Vec::new());
    let (mut s_read, mut f_read) = (0, 0);
    let (mut s_same, mut f_same) = (0, 0);
    let budget = 5 * args.fixed_lines;
    let top5_lines = |top: &[(f32, usize)], ch: &[Chunk]| -> usize {
        top.iter().take(5).map(|&(_, o)| ch[o].lines()).sum()
    };
    for q in questions {
        let mut terms = tokenize::terms(&mut qa, &q.question);
        let mut seen = BTreeSet::new();
        terms.retain(|t| seen.insert(t.clone()));
        let answers: Vec<Answer> = q
            .answers
            .iter()
            .map(|a| Answer {
                path: norm_path(&a.path),
                ..a.clone()
            })
            .collect();
        let st = sym_idx.search(&terms, kmax).map_err(|e| e.to_string())?;
        let ft = fix_idx.search(&terms, kmax).map_err(|e| e.to_string())?;
        let (s_rank, f_rank) = (
            first_hit(&st, &symbol, &answers),
            first_hit(&ft, &fixed, &answers),
        );
        let deep = sym_idx.search(&terms, 1000).map_err(|e| e.to_string())?;
        s_same += usize::from(hit_within_lines(&deep, &symbol, &answers, budget));
        f_same += usize::from(hit_within_lines(&ft, &fixed, &answers, budget));
        s_read += top5_lines(&st, &symbol);
        f_read += top5_lines(&ft, &fixed);
        sr.push(s_rank);
        fr.push(f_rank);
        let show = |top: &[(f32, usize)], ch: &[Chunk]| {
            top.iter()
                .map(|&(s, o)| {
                    let c = &ch[o];
                    format!(
                        "{:.2} {}:{}-{} {}",
                        s, c.path, c.start_line, c.end_line, c.kind
                    )
                })
                .collect()
        };
        details.push(
            serde_json::to_string(&Detail {
                id: &q.id,
                corpus,
                query_terms: &terms,
                answers: &answers,
                symbol_rank: s_rank,
                fixed_rank: f_rank,
                symbol_top: show(&st, &symbol),
                fixed_top: show(&ft, &fixed),
            })
            .map_err(|e| e.to_string())?,
        );
    }
    let normed: Vec<Question> = questions
        .iter()
        .map(|q| Question {
            answers: q
                .answers
                .iter()
                .map(|a| Answer {
                    path: norm_path(&a.path),
                    ..a.clone()
                })
                .collect(),
            ..(*q).clone()
        })
        .collect();
    let nq: Vec<&Question> = normed.iter().collect();
    let mut result = CorpusResult {
        corpus: corpus.to_string(),
        questions: questions.len(),
        answers: nq.iter().map(|q| q.answers.len()).sum(),
        files: files.len(),
        answers_file_missing: nq
            .iter()
            .flat_map(|q| &q.answers)
            .filter(|a| !files.contains_key(&a.path))
            .count(),
        symbol_text_mismatches: mismatches,
        symbol: summarize(&symbol, &nq, &sr, true),
        fixed: summarize(&fixed, &nq, &fr, false),
    };
    result.symbol.top5_lines = s_read;
    result.symbol.hits_same_lines = s_same;
    result.fixed.hits_same_lines = f_same;
    result.fixed.top5_lines = f_read;
    Ok((result, symbol, fixed))
}

fn pct(h: usize, n: usize) -> String {
    if n == 0 {
        "-".into()
    } else {
        format!("{:5.1}% ({h}/{n})", 100.0 * h as f64 / n as f64)
    }
}

fn add(a: &mut ChunkingResult, b: &ChunkingResult) {
    a.chunks += b.chunks;
    if a.hits.is_empty() {
        a.hits = vec![0; KS.len()];
    }
    for (x, y) in a.hits.iter_mut().zip(&b.hits) {
        *x += y;
    }
    a.answers_unheld += b.answers_unheld;
    a.questions_unreachable += b.questions_unreachable;
    a.top5_lines += b.top5_lines;
    a.hits_same_lines += b.hits_same_lines;
}

fn render(
    results: &[CorpusResult],
    total: &CorpusResult,
    all_sizes: &(ChunkingResult, ChunkingResult),
    fixed_lines: usize,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "BM25 recall: symbol = ast-outline chunks (context + text), fixed = {fixed_lines}-line windows"
    );
    let _ = writeln!(
        s,
        "{:<14} {:>4} {:<7} {:>16} {:>16} {:>16} {:>9} {:>11} {:>9} {:>16}",
        "corpus",
        "q",
        "chunks",
        "recall@1",
        "recall@5",
        "recall@10",
        "unheld-a",
        "unreach-q",
        "lines@5",
        format!("recall@{}lines", 5 * fixed_lines)
    );
    let mut rows: Vec<&CorpusResult> = results.iter().collect();
    rows.push(total);
    for r in rows {
        for (name, c) in [("symbol", &r.symbol), ("fixed", &r.fixed)] {
            let _ = writeln!(
                s,
                "{:<14} {:>4} {:<7} {:>16} {:>16} {:>16} {:>9} {:>11} {:>9.0} {:>16}",
                if name == "symbol" {
                    r.corpus.as_str()
                } else {
                    ""
                },
                if name == "symbol" {
                    r.questions.to_string()
                } else {
                    String::new()
                },
                name,
                pct(c.hits[0], r.questions),
                pct(c.hits[1], r.questions),
                pct(c.hits[2], r.questions),
                format!("{}/{}", c.answers_unheld, r.answers),
                format!("{}/{}", c.questions_unreachable, r.questions),
                c.top5_lines as f64 / r.questions.max(1) as f64,
                pct(c.hits_same_lines, r.questions),
            );
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "{:<14} {:<7} {:>7} {:>22} {:>22} {:>22}",
        "corpus",
        "chunks",
        "count",
        "lines mean/med/max",
        "terms mean/med/max",
        "tokens mean/med/max"
    );
    let fmt = |d: &Dist| format!("{:.0}/{:.0}/{}", d.mean, d.median, d.max);
    let mut rows: Vec<(&str, &ChunkingResult, &ChunkingResult)> = results
        .iter()
        .map(|r| (r.corpus.as_str(), &r.symbol, &r.fixed))
        .collect();
    rows.push(("all", &all_sizes.0, &all_sizes.1));
    for (name, sy, fx) in rows {
        for (label, c) in [("symbol", sy), ("fixed", fx)] {
            let _ = writeln!(
                s,
                "{:<14} {:<7} {:>7} {:>22} {:>22} {:>22}",
                if label == "symbol" { name } else { "" },
                label,
                c.chunks,
                fmt(&c.lines),
                fmt(&c.index_terms),
                c.chunker_tokens.as_ref().map_or("-".to_string(), fmt),
            );
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "unheld-a: answers held by no chunk (cut across a chunk boundary, or file not chunked);"
    );
    let _ = writeln!(
        s,
        "unreach-q: questions none of whose answers any chunk holds (never a hit)."
    );
    let _ = writeln!(
        s,
        "lines@5: mean lines per question in the top 5 chunks (what reading the top 5 costs)."
    );
    let _ = writeln!(
        s,
        "recall@Nlines: a holding chunk among the top chunks read whole, in rank order, within N lines"
    );
    let _ = writeln!(
        s,
        "  (N = 5 fixed windows: the same reading cost for both chunkings)."
    );
    let _ = writeln!(
        s,
        "terms: terms of the shared analyzer in the indexed text; tokens: the chunker's own count (o200k)."
    );
    for r in results {
        if r.answers_file_missing > 0 {
            let _ = writeln!(
                s,
                "note: {}: {} answer(s) in files the chunker did not output",
                r.corpus, r.answers_file_missing
            );
        }
        if r.symbol_text_mismatches > 0 {
            let _ = writeln!(
                s,
                "note: {}: {} symbol chunk(s) whose text differs from the file",
                r.corpus, r.symbol_text_mismatches
            );
        }
    }
    s
}

fn run(args: &Args) -> Result<(), String> {
    let qtext = std::fs::read_to_string(&args.questions)
        .map_err(|e| format!("{}: {e}", args.questions.display()))?;
    let questions: Vec<Question> =
        serde_json::from_str(&qtext).map_err(|e| format!("{}: {e}", args.questions.display()))?;
    if args.fixed_lines == 0 {
        return Err("--fixed-lines must be at least 1".into());
    }
    let mut corpora: Vec<String> = Vec::new();
    for q in &questions {
        if !corpora.contains(&q.corpus) {
            corpora.push(q.corpus.clone());
        }
    }
    if !args.corpus.is_empty() {
        corpora.retain(|c| args.corpus.contains(c));
        for c in &args.corpus {
            if !corpora.contains(c) {
                return Err(format!("no question for corpus {c}"));
            }
        }
    }
    let mut results = Vec::new();
    let mut details = Vec::new();
    let mut all_sym: Vec<Chunk> = Vec::new();
    let mut all_fix: Vec<Chunk> = Vec::new();
    for corpus in &corpora {
        let qs: Vec<&Question> = questions.iter().filter(|q| &q.corpus == corpus).collect();
        let (r, sym, fix) = run_corpus(args, corpus, &qs, &mut details)?;
        results.push(r);
        all_sym.extend(sym);
        all_fix.extend(fix);
    }
    let mut total = CorpusResult {
        corpus: "all".into(),
        ..Default::default()
    };
    for r in &results {
        total.questions += r.questions;
        total.answers += r.answers;
        total.files += r.files;
        total.answers_file_missing += r.answers_file_missing;
        total.symbol_text_mismatches += r.symbol_text_mismatches;
        add(&mut total.symbol, &r.symbol);
        add(&mut total.fixed, &r.fixed);
    }
    let sizes = (
        summarize(&all_sym, &[], &[], true),
        summarize(&all_fix, &[], &[], false),
    );
    total.symbol.lines = sizes.0.lines.clone();
    total.symbol.index_terms = sizes.0.index_terms.clone();
    total.symbol.chunker_tokens = sizes.0.chunker_tokens.clone();
    total.fixed.lines = sizes.1.lines.clone();
    total.fixed.index_terms = sizes.1.index_terms.clone();
    print!("{}", render(&results, &total, &sizes, args.fixed_lines));
    if let Some(p) = &args.details {
        std::fs::write(p, details.join("\n") + "\n")
            .map_err(|e| format!("{}: {e}", p.display()))?;
    }
    if let Some(p) = &args.json {
        let v = serde_json::json!({
            "fixed_lines": args.fixed_lines,
            "ks": KS,
            "corpora": results,
            "all": total,
        });
        std::fs::write(
            p,
            serde_json::to_string_pretty(&v).unwrap_or_default() + "\n",
        )
        .map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(())
}

fn main() {
    let args = Args::parse();
    if let Err(e) = run(&args) {
        eprintln!("chunks-bench: {e}");
        std::process::exit(1);
    }
}
