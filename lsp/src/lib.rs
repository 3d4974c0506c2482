//! # ast-outline-lsp
//!
//! `ast-outline lsp`: a Language Server Protocol server on stdio, on the
//! `lsp-server` and `lsp-types` crates, answering from the live index
//! ([`ast_outline_live`]): `textDocument/documentSymbol` (the outline of the
//! buffer, hierarchical, `detail` = signature; control-flow blocks left
//! out), `workspace/symbol`, `textDocument/definition`, `references`,
//! `prepareCallHierarchy` + `callHierarchy/incomingCalls`/`outgoingCalls`,
//! `prepareTypeHierarchy` + `typeHierarchy/supertypes`/`subtypes`, and
//! `hover` (signature and first doc line). Open documents are indexed from
//! their text (`didOpen`, `didChange` with full or incremental sync), not
//! the disk; the tree is watched for the other files.
//!
//! Positions use the encoding the client offers first among UTF-32 (our
//! columns are characters), UTF-8 and UTF-16 (LSP 3.17 `positionEncoding`;
//! UTF-16 when the client says nothing).

mod convert;
mod handlers;
mod stdio;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use lsp_server::{Message, Notification, Request, Response};
use serde_json::{Value, json};

use ast_outline_live::{Live, LiveOptions};
use convert::Encoding;

/// What `ast-outline lsp` serves.
#[derive(Debug, Clone, Default)]
pub struct LspOptions {
    /// The project root (default: the client's workspace folder or root
    /// URI, else the current directory).
    pub root: Option<PathBuf>,
    /// The database (default `ROOT/.ast-outline/index.sqlite`).
    pub db: Option<PathBuf>,
    /// How the index follows changes.
    pub live: LiveOptions,
}

/// An error answer: the JSON-RPC code and message.
type Failure = (i32, String);

/// JSON-RPC's "invalid params".
const INVALID_PARAMS: i32 = -32602;
/// JSON-RPC's "internal error".
const INTERNAL_ERROR: i32 = -32603;
/// JSON-RPC's "method not found".
const METHOD_NOT_FOUND: i32 = -32601;
/// LSP's `RequestFailed`: a valid request the server could not carry out
/// (the message says why).
const REQUEST_FAILED: i32 = -32803;

/// The server's state between messages.
struct Server {
    live: Arc<Live>,
    encoding: Encoding,
    /// Open documents' text by absolute path (under the root's canonical
    /// path).
    documents: HashMap<PathBuf, String>,
}

/// Serves LSP on standard input and output until `exit` or the end of
/// input: status 0 when `exit` came after `shutdown`, 1 otherwise (LSP's
/// rule) or when the server cannot start (the message on standard error).
pub fn run(args: &LspOptions) -> ExitCode {
    match serve(args) {
        Ok(true) => ExitCode::SUCCESS,
        // `exit` without `shutdown`, or the input ended (LSP: status 1).
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("ast-outline: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The capabilities the server announces.
fn capabilities(encoding: Encoding) -> Value {
    json!({
        "positionEncoding": encoding.kind(),
        "textDocumentSync": { "openClose": true, "change": 2, "save": false },
        "documentSymbolProvider": true,
        "workspaceSymbolProvider": true,
        "definitionProvider": true,
        "referencesProvider": true,
        "callHierarchyProvider": true,
        "typeHierarchyProvider": true,
        "hoverProvider": true,
    })
}

/// The root the client names: its first workspace folder, else its root
/// URI, else its root path.
fn client_root(params: &Value) -> Option<PathBuf> {
    let folder = params
        .pointer("/workspaceFolders/0/uri")
        .or_else(|| params.get("rootUri"))
        .and_then(Value::as_str)
        .and_then(|uri| uri.parse::<lsp_types::Uri>().ok())
        .and_then(|uri| convert::uri_path(&uri));
    folder.or_else(|| {
        params
            .get("rootPath")
            .and_then(Value::as_str)
            .map(PathBuf::from)
    })
}

/// JSON-RPC's "invalid request" (a request after `shutdown`).
const INVALID_REQUEST: i32 = -32600;
/// LSP's "server not initialized" (a request before `initialize`).
const SERVER_NOT_INITIALIZED: i32 = -32002;

/// Sends `response`; `false` when the client is gone.
/// Whether a note of the live index is about the settings file
/// ([`index::open::settings`]: reloaded, kept out, or bad at start).
fn is_settings_note(note: &str) -> bool {
    note.starts_with("settings reloaded")
        || note.ends_with("; keeping the last good settings")
        || note.ends_with("; using the default settings until it is fixed")
}

/// Tells the user `note` (`window/showMessage`): a warning when it is an
/// error, else information.
fn show_message(sender: &crossbeam_channel::Sender<Message>, note: &str) {
    let error = !note.starts_with("settings reloaded");
    let params = json!({
        "type": if error { 2 } else { 3 },
        "message": format!("ast-outline: {note}"),
    });
    let _ = sender.send(Message::Notification(Notification::new(
        "window/showMessage".to_owned(),
        params,
    )));
}

fn send(connection: &lsp_server::Connection, response: Response) -> bool {
    connection.sender.send(Message::Response(response)).is_ok()
}

/// Serves until `exit` or the end of input: `Ok(true)` when `exit` came
/// after `shutdown` (exit status 0, LSP's rule), `Ok(false)` otherwise.
fn serve(args: &LspOptions) -> Result<bool, String> {
    let (connection, io_threads) = stdio::connection();
    // Before `initialize`: requests are refused with "server not
    // initialized", notifications dropped, `exit` ends the server.
    let (id, params) = loop {
        match connection.receiver.recv() {
            Ok(Message::Request(request)) if request.method == "initialize" => {
                break (request.id, request.params);
            }
            Ok(Message::Request(request)) => {
                let refused = Response::new_err(
                    request.id,
                    SERVER_NOT_INITIALIZED,
                    format!("{}: the server is not initialized yet", request.method),
                );
                if !send(&connection, refused) {
                    return Ok(false);
                }
            }
            Ok(Message::Notification(n)) if n.method == "exit" => return Ok(false),
            Ok(_) => {}
            Err(_) => return Ok(false),
        }
    };
    let root = args
        .root
        .clone()
        .or_else(|| client_root(&params))
        .unwrap_or_else(|| PathBuf::from("."));
    let offered: Option<Vec<lsp_types::PositionEncodingKind>> = params
        .pointer("/capabilities/general/positionEncodings")
        .and_then(|v| serde_json::from_value(v.clone()).ok());
    let encoding = Encoding::choose(offered.as_deref());
    // The updates' sender to the editor, taken back at the end (the
    // writer thread ends only when every sender is gone).
    let notices = Arc::new(std::sync::Mutex::new(Some(connection.sender.clone())));
    let sender = Arc::clone(&notices);
    let started = if root.is_dir() {
        Live::start(
            &root,
            args.db.as_ref(),
            args.live,
            Box::new(move |update| {
                for note in update.notes.iter().filter(|n| n.starts_with("error")) {
                    eprintln!("ast-outline lsp: {note}");
                }
                // A changed settings file: the user sees what took effect
                // or what was kept out.
                let sender = sender
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if let Some(sender) = sender.as_ref() {
                    for note in update.notes.iter().filter(|n| is_settings_note(n)) {
                        show_message(sender, note);
                    }
                }
            }),
        )
    } else {
        Err(format!(
            "{}: not a directory: the project root is --root DIR, else the client's \
             workspace folder or root URI",
            root.display()
        ))
    };
    let live = match started {
        Ok(live) => live,
        Err(message) => {
            // The answer to `initialize` says why; then, as before
            // `initialize`, requests are refused until `exit` or the end
            // of input, and the writer is given the time to write it all
            // (the process ending at once lost the answer).
            if send(
                &connection,
                Response::new_err(id, INTERNAL_ERROR, message.clone()),
            ) {
                refuse_until_exit(&connection);
            }
            notices
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take();
            drop(connection);
            for thread in io_threads {
                let _ = thread.join();
            }
            return Err(message);
        }
    };
    if let Some(why) = live.not_watching() {
        eprintln!(
            "ast-outline lsp: cannot watch {} ({why}); polling instead",
            live.root().display()
        );
    }
    let result = json!({
        "capabilities": capabilities(encoding),
        "serverInfo": { "name": "ast-outline", "version": env!("CARGO_PKG_VERSION") },
    });
    let mut server = Server {
        live,
        encoding,
        documents: HashMap::new(),
    };
    let mut shut_down = false;
    if send(&connection, Response::new_ok(id, result)) {
        // A settings file bad at start: the defaults are in force; say so.
        if let Err(message) = index::open::check_settings(server.live.root()) {
            show_message(
                &connection.sender,
                &format!("{message}; using the default settings until it is fixed"),
            );
        }
        for message in &connection.receiver {
            match message {
                Message::Request(request) => {
                    let id = request.id.clone();
                    let response = if shut_down {
                        Response::new_err(
                            id,
                            INVALID_REQUEST,
                            format!("{}: the server is shutting down", request.method),
                        )
                    } else if request.method == "shutdown" {
                        shut_down = true;
                        Response::new_ok(id, Value::Null)
                    } else {
                        match server.request(request) {
                            Ok(result) => Response::new_ok(id, result),
                            Err((code, message)) => Response::new_err(id, code, message),
                        }
                    };
                    if !send(&connection, response) {
                        break;
                    }
                }
                Message::Notification(n) if n.method == "exit" => break,
                Message::Notification(_) if shut_down => {}
                Message::Notification(notification) => server.notification(notification),
                Message::Response(_) => {}
            }
        }
    }
    // The index outlives the server: leave it as the disk is.
    server.live.drop_buffers();
    server.live.stop();
    notices
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    drop(connection);
    // The reader ends with the input (after `exit`); the writer once the
    // connection is dropped.
    for thread in io_threads {
        let _ = thread.join();
    }
    Ok(shut_down)
}

/// Refuses every request with "server not initialized" until `exit` or the
/// end of input (after a failed `initialize`).
fn refuse_until_exit(connection: &lsp_server::Connection) {
    while let Ok(message) = connection.receiver.recv() {
        match message {
            Message::Request(request) => {
                let refused = Response::new_err(
                    request.id,
                    SERVER_NOT_INITIALIZED,
                    format!(
                        "{}: the server could not start (see the answer to initialize)",
                        request.method
                    ),
                );
                if !send(connection, refused) {
                    return;
                }
            }
            Message::Notification(n) if n.method == "exit" => return,
            _ => {}
        }
    }
}

/// The params of `request`, or "invalid params".
fn params<P: serde::de::DeserializeOwned>(value: Value) -> Result<P, Failure> {
    serde_json::from_value(value).map_err(|e| (INVALID_PARAMS, format!("invalid params: {e}")))
}

impl Server {
    /// The absolute path of `uri` as the live index names files (under the
    /// root's canonical path, through links in the client's spelling).
    fn path(&self, uri: &lsp_types::Uri) -> Option<PathBuf> {
        let path = convert::uri_path(uri)?;
        if path.starts_with(self.live.root()) {
            return Some(path);
        }
        let name = path.file_name()?;
        let parent = path.parent()?.canonicalize().ok()?;
        Some(parent.join(name))
    }

    /// The display path (relative to the root) of `path`.
    fn display(&self, path: &Path) -> Option<String> {
        ast_outline_live::paths::display(self.live.root(), path)
    }

    /// The text of the file at `path`: the open document's, else the disk's.
    /// A file with NUL bytes is binary, as the walk and the index take it:
    /// no text.
    fn text(&self, path: &Path) -> Option<String> {
        let text = match self.documents.get(path) {
            Some(text) => text.clone(),
            None => std::fs::read(path)
                .ok()
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())?,
        };
        (!text.contains('\0')).then_some(text)
    }

    fn request(&mut self, request: Request) -> Result<Value, Failure> {
        let Request {
            method, params: p, ..
        } = request;
        match method.as_str() {
            "textDocument/documentSymbol" => self.document_symbol(params(p)?),
            "workspace/symbol" => self.workspace_symbol(params(p)?),
            "textDocument/definition" => self.definition(params(p)?),
            "textDocument/references" => self.references(params(p)?),
            "textDocument/hover" => self.hover(params(p)?),
            "textDocument/prepareCallHierarchy" => self.prepare(params(p)?, false),
            "textDocument/prepareTypeHierarchy" => self.prepare(params(p)?, true),
            "callHierarchy/incomingCalls" => self.incoming_calls(params(p)?),
            "callHierarchy/outgoingCalls" => self.outgoing_calls(params(p)?),
            "typeHierarchy/supertypes" => self.related_types(params(p)?, true),
            "typeHierarchy/subtypes" => self.related_types(params(p)?, false),
            _ => Err((METHOD_NOT_FOUND, format!("{method}: not supported"))),
        }
    }

    fn notification(&mut self, notification: Notification) {
        use lsp_types::{
            DidChangeTextDocumentParams, DidChangeWatchedFilesParams, DidCloseTextDocumentParams,
            DidOpenTextDocumentParams,
        };
        let Notification { method, params: p } = notification;
        match method.as_str() {
            "textDocument/didOpen" => {
                if let Ok(open) = params::<DidOpenTextDocumentParams>(p)
                    && let Some(path) = self.path(&open.text_document.uri)
                {
                    self.set_document(path, open.text_document.text);
                }
            }
            "textDocument/didChange" => {
                if let Ok(change) = params::<DidChangeTextDocumentParams>(p)
                    && let Some(path) = self.path(&change.text_document.uri)
                {
                    // A change to a document never opened has nothing to
                    // apply to: ignored (LSP requires `didOpen` first).
                    let Some(mut text) = self.documents.remove(&path) else {
                        eprintln!(
                            "ast-outline lsp: didChange of {} before didOpen: ignored",
                            path.display()
                        );
                        return;
                    };
                    for edit in change.content_changes {
                        match edit.range {
                            None => text = edit.text,
                            Some(range) => {
                                let start = convert::offset(&text, range.start, self.encoding);
                                let end =
                                    convert::offset(&text, range.end, self.encoding).max(start);
                                text.replace_range(start..end, &edit.text);
                            }
                        }
                    }
                    self.set_document(path, text);
                }
            }
            "textDocument/didClose" => {
                if let Ok(close) = params::<DidCloseTextDocumentParams>(p)
                    && let Some(path) = self.path(&close.text_document.uri)
                {
                    self.documents.remove(&path);
                    self.live.set_buffer(&path, None);
                }
            }
            "workspace/didChangeWatchedFiles" => {
                if let Ok(changes) = params::<DidChangeWatchedFilesParams>(p) {
                    let paths: Vec<PathBuf> = changes
                        .changes
                        .iter()
                        .filter_map(|c| self.path(&c.uri))
                        .collect();
                    self.live.changed(paths);
                }
            }
            _ => {}
        }
    }

    /// Records an open document's text and gives it to the index.
    fn set_document(&mut self, path: PathBuf, text: String) {
        let bytes: Arc<[u8]> = text.as_bytes().into();
        self.documents.insert(path.clone(), text);
        self.live.set_buffer(&path, Some(bytes));
    }
}
