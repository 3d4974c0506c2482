//! The LSP base protocol on stdin/stdout (`Content-Length` framing), in
//! front of `lsp-server`'s [`Connection`]: unlike its own transport, a
//! message that is not UTF-8 is read with replacement characters (an
//! editor buffer may hold any bytes), and one that is not a JSON-RPC message
//! is skipped with a note on stderr, so one bad message never ends the
//! session.

use std::io::{BufRead, Write};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender, bounded};
use lsp_server::{Connection, Message};

/// Largest message body read, in bytes (a buffer's whole text can come in
/// one message).
const MOST_BODY_BYTES: usize = 256 << 20;

/// One message's body, `Ok(None)` at the end of input.
///
/// # Errors
/// A message when the input ends inside a message or a header is malformed
/// beyond recovery (no `Content-Length`, or over [`MOST_BODY_BYTES`]).
fn read_body(input: &mut impl BufRead) -> Result<Option<Vec<u8>>, String> {
    let mut length: Option<usize> = None;
    let mut any = false;
    loop {
        let mut line = Vec::new();
        if input
            .read_until(b'\n', &mut line)
            .map_err(|e| e.to_string())?
            == 0
        {
            return if any {
                Err("the input ended inside a header".to_owned())
            } else {
                Ok(None)
            };
        }
        any = true;
        let line = String::from_utf8_lossy(&line);
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok();
        }
    }
    let length = length.ok_or("a message without a valid Content-Length header")?;
    if length > MOST_BODY_BYTES {
        return Err(format!(
            "a message of {length} bytes, over the {MOST_BODY_BYTES} read"
        ));
    }
    let mut body = vec![0; length];
    input
        .read_exact(&mut body)
        .map_err(|e| format!("the input ended inside a message: {e}"))?;
    Ok(Some(body))
}

/// The message in `body`, its invalid UTF-8 replaced.
fn parse(body: &[u8]) -> Result<Message, String> {
    let text = String::from_utf8_lossy(body);
    serde_json::from_str(&text).map_err(|e| format!("not a JSON-RPC message ({e}); skipped"))
}

/// Reads messages from `input` into `to` until the input ends, an `exit`
/// notification, or the receiver is gone.
fn read_loop(mut input: impl BufRead, to: &Sender<Message>) {
    loop {
        let body = match read_body(&mut input) {
            Ok(Some(body)) => body,
            Ok(None) => return,
            Err(message) => {
                eprintln!("ast-outline lsp: {message}");
                return;
            }
        };
        match parse(&body) {
            Ok(message) => {
                let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                if to.send(message).is_err() || exit {
                    return;
                }
            }
            Err(message) => eprintln!("ast-outline lsp: {message}"),
        }
    }
}

/// A connection over stdin/stdout and its two threads (reader, writer),
/// which end when the input ends and the connection is dropped.
pub fn connection() -> (Connection, [JoinHandle<()>; 2]) {
    let (to_server, from_client): (Sender<Message>, Receiver<Message>) = bounded(0);
    let (to_client, from_server): (Sender<Message>, Receiver<Message>) = bounded(0);
    let reader = std::thread::spawn(move || read_loop(std::io::stdin().lock(), &to_server));
    let writer = std::thread::spawn(move || {
        let mut out = std::io::stdout().lock();
        for message in from_server {
            if message.write(&mut out).and_then(|()| out.flush()).is_err() {
                return;
            }
        }
    });
    (
        Connection {
            sender: to_client,
            receiver: from_client,
        },
        [reader, writer],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(body: &[u8]) -> Vec<u8> {
        let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        out.extend_from_slice(body);
        out
    }

    #[test]
    fn bad_bytes_and_bad_json_do_not_end_the_session() {
        let mut input = Vec::new();
        // Invalid UTF-8 inside a string: read with a replacement character.
        input.extend(framed(
            b"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"text\":\"\xf0\x9d\"}}",
        ));
        input.extend(framed(b"{not json"));
        input.extend(framed(b"{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}"));
        input.extend(framed(b"{\"jsonrpc\":\"2.0\",\"method\":\"after\"}"));
        let (to, from) = crossbeam_channel::unbounded();
        read_loop(std::io::Cursor::new(input), &to);
        let methods: Vec<String> = from
            .try_iter()
            .map(|m| match m {
                Message::Notification(n) => format!("{} {}", n.method, n.params),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(methods, ["m {\"text\":\"\u{fffd}\"}", "exit null"]);
    }
}
