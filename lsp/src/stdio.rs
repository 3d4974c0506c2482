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

/// `text` with every `\uXXXX` escape of a lone UTF-16 surrogate (a
/// high one not followed by a low one, or a low one alone) replaced by
/// `\uFFFD`, which JSON parsers reject otherwise (a client may send a
/// buffer cut inside a surrogate pair); `None` when there is none.
fn without_lone_surrogates(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let surrogate = |at: usize| -> Option<u16> {
        let hex = text.get(at + 2..at + 6)?;
        let value = u16::from_str_radix(hex, 16).ok()?;
        (bytes.get(at + 1) == Some(&b'u') && (0xD800..=0xDFFF).contains(&value)).then_some(value)
    };
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut i = 0;
    let mut last = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        match surrogate(i) {
            Some(high @ 0xD800..=0xDBFF)
                if bytes.get(i + 6) == Some(&b'\\')
                    && surrogate(i + 6).is_some_and(|low| low >= 0xDC00) =>
            {
                let _ = high;
                i += 12;
            }
            Some(_) => {
                out.push_str(&text[last..i]);
                out.push_str("\\uFFFD");
                changed = true;
                i += 6;
                last = i;
            }
            // Any other escape: its second character is never a backslash
            // that starts another escape.
            None => i += 2,
        }
    }
    out.push_str(&text[last..]);
    changed.then_some(out)
}

/// The message in `body`, its invalid UTF-8 and lone surrogates replaced;
/// else why not, with the id of a request that was not understood (so it
/// can be answered rather than left waiting).
fn parse(body: &[u8]) -> Result<Message, (Option<lsp_server::RequestId>, String)> {
    let text = String::from_utf8_lossy(body);
    let text = match without_lone_surrogates(&text) {
        Some(fixed) => std::borrow::Cow::Owned(fixed),
        None => text,
    };
    serde_json::from_str(&text).map_err(|e| {
        let id = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v.get("id").cloned())
            .and_then(|id| serde_json::from_value(id).ok());
        (id, format!("not a JSON-RPC message ({e})"))
    })
}

/// JSON-RPC's "invalid request".
const INVALID_REQUEST: i32 = -32600;

/// Reads messages from `input` into `to` until the input ends, an `exit`
/// notification, or the receiver is gone. A message that is not
/// understood but has an id is answered on `reply` with "invalid request";
/// one without is skipped with a note on stderr.
fn read_loop(mut input: impl BufRead, to: &Sender<Message>, reply: &Sender<Message>) {
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
            Err((Some(id), message)) => {
                let answer = lsp_server::Response::new_err(id, INVALID_REQUEST, message);
                if reply.send(Message::Response(answer)).is_err() {
                    return;
                }
            }
            Err((None, message)) => eprintln!("ast-outline lsp: {message}; skipped"),
        }
    }
}

/// A connection over stdin/stdout and its two threads (reader, writer),
/// which end when the input ends and the connection is dropped.
pub fn connection() -> (Connection, [JoinHandle<()>; 2]) {
    let (to_server, from_client): (Sender<Message>, Receiver<Message>) = bounded(0);
    let (to_client, from_server): (Sender<Message>, Receiver<Message>) = bounded(0);
    let reply = to_client.clone();
    let reader = std::thread::spawn(move || read_loop(std::io::stdin().lock(), &to_server, &reply));
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
        let (reply, _) = crossbeam_channel::unbounded();
        read_loop(std::io::Cursor::new(input), &to, &reply);
        let methods: Vec<String> = from
            .try_iter()
            .map(|m| match m {
                Message::Notification(n) => format!("{} {}", n.method, n.params),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(methods, ["m {\"text\":\"\u{fffd}\"}", "exit null"]);
    }

    #[test]
    fn lone_surrogates_are_replaced_and_pairs_kept() {
        let text = r#"{"q":"\ud800a","p":"\ud83d\ude00","l":"\udc00","e":"\\ud800"}"#;
        assert_eq!(
            without_lone_surrogates(text).as_deref(),
            Some(r#"{"q":"\uFFFDa","p":"\ud83d\ude00","l":"\uFFFD","e":"\\ud800"}"#)
        );
        assert_eq!(without_lone_surrogates(r#"{"p":"\ud83d\ude00"}"#), None);
    }

    #[test]
    fn a_request_that_is_not_understood_is_answered_with_its_id() {
        let mut input = framed(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":5}");
        input.extend(framed(
            b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"workspace/symbol\",\"params\":{\"query\":\"\\ud800x\"}}",
        ));
        let (to, from) = crossbeam_channel::unbounded();
        let (reply, replies) = crossbeam_channel::unbounded();
        read_loop(std::io::Cursor::new(input), &to, &reply);
        let answered: Vec<String> = replies
            .try_iter()
            .map(|m| match m {
                Message::Response(r) => {
                    format!("{} {:?}", r.id, r.response_result.err().map(|e| e.code))
                }
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(answered, ["7 Some(-32600)"]);
        let passed: Vec<String> = from
            .try_iter()
            .map(|m| match m {
                Message::Request(r) => format!("{} {}", r.method, r.params),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(passed, ["workspace/symbol {\"query\":\"\u{fffd}x\"}"]);
    }
}
