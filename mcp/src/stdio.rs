//! The line reader in front of rmcp's transport: standard input is read here,
//! one JSON-RPC message a line, so that every malformed line gets an answer
//! (rmcp drops them silently and the client would wait forever):
//!
//! - a line that is not JSON (or nested deeper than serde_json's limit of 128)
//!   gets `-32700 Parse error` with `"id": null`;
//! - a line longer than [`MAX_REQUEST_BYTES`] gets `-32700` too, saying so,
//!   without being kept in memory;
//! - JSON that is not a JSON-RPC message gets `-32600 Invalid Request`,
//!   echoing its `id` when it has one (a malformed notification, without an
//!   id, gets no answer);
//! - blank lines are ignored; every other line goes to rmcp through an
//!   in-memory pipe.
//!
//! Everything written to standard output (rmcp's messages and these errors)
//! goes through one writer, a whole line at a time. When standard input
//! closes, [`client_gone`] turns true (tools stop starting work) and the
//! process exits after [`GRACE`] if the server has not stopped by then.

use std::io::BufRead;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

/// Largest request read, in bytes (16 MiB); a longer line is answered with a
/// parse error and skipped.
pub const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

/// How long the server may keep running after standard input closed.
pub const GRACE: Duration = Duration::from_secs(2);

static CLIENT_GONE: AtomicBool = AtomicBool::new(false);

/// Whether standard input closed: the client left, so no new work is started.
pub fn client_gone() -> bool {
    CLIENT_GONE.load(Ordering::Relaxed)
}

/// One line read from standard input.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// A line (without its `\n`).
    Text(Vec<u8>),
    /// A line longer than the limit, skipped.
    TooLong,
    /// End of input.
    End,
}

/// Reads one line of at most `max` bytes; a longer one is read to its end
/// and dropped.
fn read_line(reader: &mut impl BufRead, max: usize) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let buffer = match reader.fill_buf() {
            Ok(buffer) => buffer,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if buffer.is_empty() {
            return Ok(match (too_long, line.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::End,
                (false, false) => Line::Text(line),
            });
        }
        let (chunk, done) = match buffer.iter().position(|b| *b == b'\n') {
            Some(at) => (&buffer[..at], Some(at + 1)),
            None => (buffer, None),
        };
        if !too_long && line.len() + chunk.len() <= max {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line = Vec::new();
        }
        let used = done.unwrap_or(chunk.len());
        reader.consume(used);
        if done.is_some() {
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Text(line)
            });
        }
    }
}

/// What to do with one line: pass it on to rmcp, answer it, or ignore it.
#[derive(Debug, PartialEq)]
enum Verdict {
    Pass,
    Answer(Value),
    Ignore,
}

fn error_reply(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn judge(line: &[u8]) -> Verdict {
    // rmcp strips a UTF-8 byte order mark (and a `\r` before the `\n`).
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Ignore;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(error) => {
            return Verdict::Answer(error_reply(
                Value::Null,
                -32700,
                format!(
                    "Parse error: not a JSON message ({error}); send one JSON-RPC message a line"
                ),
            ));
        }
    };
    let id = value
        .get("id")
        .filter(|id| id.is_string() || id.is_number())
        .cloned()
        .unwrap_or(Value::Null);
    // A notification (a method without an id) is never answered, not even
    // when it is malformed (JSON-RPC 2.0, section 4.1).
    let notification =
        value.get("method").is_some_and(Value::is_string) && value.get("id").is_none();
    match serde_json::from_value::<rmcp::model::ClientJsonRpcMessage>(value) {
        Ok(_) => Verdict::Pass,
        Err(_) if notification => Verdict::Ignore,
        Err(error) => Verdict::Answer(error_reply(
            id,
            -32600,
            format!(
                "Invalid Request: not a JSON-RPC 2.0 request, notification or response ({error})"
            ),
        )),
    }
}

fn too_long_reply() -> Value {
    error_reply(
        Value::Null,
        -32700,
        format!(
            "Parse error: request longer than {MAX_REQUEST_BYTES} bytes (16 MiB, the most this \
             server reads); it was skipped"
        ),
    )
}

/// Serves `server` over standard input and output through the line reader.
///
/// # Errors
/// A message when the connection fails or the server stops with an error.
pub async fn serve<S>(server: S) -> Result<(), String>
where
    S: rmcp::ServerHandler,
{
    use rmcp::ServiceExt;

    let (to_stdout, mut lines_out) = mpsc::unbounded_channel::<Vec<u8>>();
    let (to_server, mut lines_in) = mpsc::unbounded_channel::<Vec<u8>>();
    // Standard input on its own thread: a blocking read never holds up the
    // server, and the end of input is noticed even during a long call.
    let answers = to_stdout.clone();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut reader = std::io::BufReader::with_capacity(1 << 16, stdin.lock());
        loop {
            let verdict = match read_line(&mut reader, MAX_REQUEST_BYTES) {
                Ok(Line::Text(mut line)) => match judge(&line) {
                    Verdict::Pass => {
                        line.push(b'\n');
                        if to_server.send(line).is_err() {
                            break;
                        }
                        continue;
                    }
                    other => other,
                },
                Ok(Line::TooLong) => Verdict::Answer(too_long_reply()),
                Ok(Line::End) | Err(_) => break,
            };
            if let Verdict::Answer(reply) = verdict {
                let _ = answers.send(format!("{reply}\n").into_bytes());
            }
        }
        CLIENT_GONE.store(true, Ordering::Relaxed);
        drop(to_server);
        drop(answers);
        std::thread::sleep(GRACE);
        std::process::exit(0);
    });

    let (server_side, front) = tokio::io::duplex(1 << 16);
    let (front_read, mut front_write) = tokio::io::split(front);
    let pump_in = async move {
        while let Some(line) = lines_in.recv().await {
            if front_write.write_all(&line).await.is_err() {
                break;
            }
        }
        let _ = front_write.shutdown().await;
    };
    let pump_out = async move {
        let mut reader = tokio::io::BufReader::new(front_read);
        loop {
            let mut line = Vec::new();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if to_stdout.send(line).is_err() {
                        break;
                    }
                }
            }
        }
    };
    let writer = async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = lines_out.recv().await {
            if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    };
    let serving = async move {
        let (read, write) = tokio::io::split(server_side);
        let running = server
            .serve((read, write))
            .await
            .map_err(|e| format!("MCP connection failed: {e}"))?;
        running
            .waiting()
            .await
            .map_err(|e| format!("MCP server stopped: {e}"))?;
        Ok::<(), String>(())
    };
    let (result, (), (), ()) = tokio::join!(serving, pump_in, pump_out, writer);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<Line> {
        let mut reader = std::io::BufReader::with_capacity(4, input);
        let mut out = Vec::new();
        loop {
            let line = read_line(&mut reader, max).expect("read");
            if line == Line::End {
                return out;
            }
            out.push(line);
        }
    }

    #[test]
    fn lines_longer_than_the_limit_are_skipped_whole() {
        assert_eq!(
            lines(b"ab\n0123456789\ncd", 5),
            [
                Line::Text(b"ab".to_vec()),
                Line::TooLong,
                Line::Text(b"cd".to_vec())
            ]
        );
    }

    #[test]
    fn malformed_lines_are_answered() {
        assert_eq!(judge(b"  "), Verdict::Ignore);
        let Verdict::Answer(reply) = judge(b"{not json") else {
            panic!("answered")
        };
        assert_eq!(reply["error"]["code"], -32700);
        assert_eq!(reply["id"], Value::Null);
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let Verdict::Answer(reply) = judge(deep.as_bytes()) else {
            panic!("answered")
        };
        assert_eq!(reply["error"]["code"], -32700);
        let Verdict::Answer(reply) = judge(br#"{"jsonrpc":"2.0","id":7}"#) else {
            panic!("answered")
        };
        assert_eq!(reply["error"]["code"], -32600);
        assert_eq!(reply["id"], 7);
        assert_eq!(
            judge(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            Verdict::Pass
        );
        assert_eq!(
            judge(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\r"),
            Verdict::Pass
        );
        assert_eq!(
            judge(br#"{"jsonrpc":"2.0","method":"notifications/x","params":7}"#),
            Verdict::Ignore
        );
    }
}
