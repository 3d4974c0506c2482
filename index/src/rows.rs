//! Multi-row inserts: [`ROWS_PER_INSERT`] rows per `INSERT` statement. One
//! statement per row spends most of its time outside the B-tree (binding,
//! stepping, resetting); a first build of the standard library inserts
//! about four million rows.

use rusqlite::{Connection, ToSql};

use crate::Error;

/// Rows per statement (at most 15 values each: far below SQLite's limit of
/// 32,766 parameters).
pub(crate) const ROWS_PER_INSERT: usize = 64;

/// Inserts `rows` with the statement head `head` (`INSERT INTO t(a, b)`,
/// `INSERT OR IGNORE INTO …`, naming `N` columns): whole chunks of
/// [`ROWS_PER_INSERT`] rows one statement each, the rest one statement per
/// row. Both statements are prepared once per connection (SQLite's
/// statement cache).
///
/// # Errors
/// [`Error::Sqlite`].
pub(crate) fn insert_rows<const N: usize>(
    conn: &Connection,
    head: &str,
    rows: &[[&dyn ToSql; N]],
) -> Result<(), Error> {
    let values = |count: usize| {
        let row = format!("({})", vec!["?"; N].join(", "));
        vec![row; count].join(", ")
    };
    let mut chunks = rows.chunks_exact(ROWS_PER_INSERT);
    if chunks.len() > 0 {
        let mut statement =
            conn.prepare_cached(&format!("{head} VALUES {}", values(ROWS_PER_INSERT)))?;
        for chunk in &mut chunks {
            let params: Vec<&dyn ToSql> = chunk.iter().flatten().copied().collect();
            statement.execute(params.as_slice())?;
        }
    }
    if !chunks.remainder().is_empty() {
        let mut statement = conn.prepare_cached(&format!("{head} VALUES {}", values(1)))?;
        for row in chunks.remainder() {
            statement.execute(row.as_slice())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row goes in, in whole chunks and in the rest, with its values
    /// in its columns.
    #[test]
    fn chunks_and_the_rest_are_all_inserted() {
        let conn = Connection::open_in_memory().expect("database");
        conn.execute_batch("CREATE TABLE t(a INTEGER, b TEXT)")
            .expect("table");
        let values: Vec<(i64, String)> = (0..150).map(|i| (i, format!("v{i}"))).collect();
        let rows: Vec<[&dyn ToSql; 2]> = values.iter().map(|(a, b)| [a as _, b as _]).collect();
        insert_rows(&conn, "INSERT INTO t(a, b)", &rows).expect("inserted");
        let mut statement = conn
            .prepare("SELECT a, b FROM t ORDER BY a")
            .expect("query");
        let read: Vec<(i64, String)> = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("rows");
        assert_eq!(read, values);
    }
}
