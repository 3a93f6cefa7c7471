//! The interpreter side of the kernel: one tsr session answering shell requests in
//! order. Every request is bracketed by `busy` and `idle` on iopub; a cell's output
//! goes out as it is written, its value as `execute_result`, its error as `error`.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value as Json};

use super::assist::{completeness, completions, inspection};
use super::header::Author;
use super::kernel_info::kernel_info;
use super::rich::{display_data, tensor_html};
use super::sockets::{Link, Outgoing, Request};
use super::streams::{Current, StreamSink};
use super::wire::Message;
use crate::interp::Interp;
use crate::kernels::interrupt;
use crate::repl::commands::{self, Outcome};
use crate::repl::complete::Names;
use crate::repl::echo;
use crate::runtime::Value;

/// A failed cell: ename (the error's kind), evalue (its message), the traceback lines.
type Failure = (String, String, Vec<String>);

/// The kernel's session state.
struct Session {
    interp: Interp,
    author: Arc<Author>,
    out: tokio::sync::mpsc::UnboundedSender<Outgoing>,
    current: Current,
    /// The count of the last cell run with `store_history` (In [n]).
    count: u64,
    /// Colour in error tracebacks (Jupyter front ends show ANSI colours).
    color: bool,
}

/// Answers shell requests until the channel closes or the kernel exits.
pub fn serve(link: Link, author: Arc<Author>) {
    let mut session = Session::new(author, link.out.clone());
    session.status("starting", None);
    session.status("idle", None);
    let mut queued: VecDeque<Request> = VecDeque::new();
    loop {
        let request = match queued.pop_front() {
            Some(request) => request,
            None => match link.requests.recv() {
                Ok(request) => request,
                Err(_) => return,
            },
        };
        let Some(failed_at) = session.answer(request.msg) else {
            continue;
        };
        // After an error with stop_on_error, the cells that arrived before its reply
        // was sent (so were sent before the client could see it) are not run: a "run
        // all" stops at the failing cell. Later cells and other requests are answered.
        queued.extend(link.requests.try_iter());
        queued.retain(|r| {
            let abort = r.received < failed_at && r.msg.msg_type() == "execute_request";
            if abort {
                session.abort(&r.msg);
            }
            !abort
        });
    }
}

impl Session {
    fn new(author: Arc<Author>, out: tokio::sync::mpsc::UnboundedSender<Outgoing>) -> Session {
        let current: Current = Rc::new(RefCell::new(None));
        let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        Session {
            interp: new_interp(&current, &author, &out),
            author,
            out,
            current,
            count: 0,
            color,
        }
    }

    /// Answers one request; when it was a cell that failed with stop_on_error, the
    /// time just before its reply was sent.
    fn answer(&mut self, msg: Message) -> Option<Instant> {
        let msg = Arc::new(msg);
        *self.current.borrow_mut() = Some(msg.clone());
        self.status("busy", Some(&msg));
        let mut failed = None;
        let mut exit = None;
        match msg.msg_type() {
            "execute_request" => (failed, exit) = self.execute(&msg),
            "kernel_info_request" => self.reply(&msg, "kernel_info_reply", kernel_info()),
            "complete_request" => {
                let code = msg.str_field("code").unwrap_or("");
                let reply = completions(code, cursor(&msg, code), &Names::of(&self.interp));
                self.reply(&msg, "complete_reply", reply);
            }
            "inspect_request" => {
                let code = msg.str_field("code").unwrap_or("");
                let reply = inspection(code, cursor(&msg, code), &self.interp);
                self.reply(&msg, "inspect_reply", reply);
            }
            "is_complete_request" => {
                let reply = completeness(msg.str_field("code").unwrap_or(""));
                self.reply(&msg, "is_complete_reply", reply);
            }
            // The kernel keeps no history across sessions: the front end has its own.
            "history_request" => {
                self.reply(
                    &msg,
                    "history_reply",
                    json!({ "status": "ok", "history": [] }),
                );
            }
            "comm_info_request" => {
                self.reply(
                    &msg,
                    "comm_info_reply",
                    json!({ "status": "ok", "comms": {} }),
                );
            }
            // Old clients send shutdown on the shell channel.
            "shutdown_request" => {
                let restart = msg.bool_field("restart", false);
                let content = json!({ "status": "ok", "restart": restart });
                self.reply(&msg, "shutdown_reply", content);
                exit = Some(0);
            }
            other => eprintln!("tsr kernel: no handler for shell message {other}"),
        }
        self.status("idle", Some(&msg));
        *self.current.borrow_mut() = None;
        if let Some(code) = exit {
            let _ = self.out.send(Outgoing::Exit(code));
        }
        failed
    }

    /// Runs a cell; (when it failed with stop_on_error, the time before the reply
    /// was sent; the exit code if the cell ended the kernel).
    fn execute(&mut self, msg: &Message) -> (Option<Instant>, Option<i32>) {
        let code = msg.str_field("code").unwrap_or("").to_string();
        let silent = msg.bool_field("silent", false);
        if !silent && msg.bool_field("store_history", true) {
            self.count += 1;
        }
        let count = self.count;
        if !silent {
            self.send(
                msg,
                "execute_input",
                json!({ "code": code, "execution_count": count }),
            );
        }
        // A Ctrl-C that came while idle (jupyter_client interrupts the whole process
        // group) must not stop this cell.
        interrupt::take();
        let trimmed = code.trim();
        let outcome = if trimmed.starts_with(':') {
            self.command(trimmed)
        } else {
            self.run(&code, count, silent)
        };
        let mut exit = None;
        let (content, failed) = match outcome {
            Ok(code) => {
                exit = code;
                let content =
                    json!({ "status": "ok", "execution_count": count, "user_expressions": {} });
                (content, None)
            }
            Err((ename, evalue, traceback)) => {
                // Before anything of the failure leaves: see `serve`.
                let failed_at = Instant::now();
                let error = json!({ "ename": ename, "evalue": evalue, "traceback": traceback });
                self.send(msg, "error", error);
                let content = json!({
                    "status": "error",
                    "execution_count": count,
                    "ename": ename,
                    "evalue": evalue,
                    "traceback": traceback,
                });
                (
                    content,
                    msg.bool_field("stop_on_error", true).then_some(failed_at),
                )
            }
        };
        self.reply(msg, "execute_reply", content);
        (failed, exit)
    }

    /// Runs code; its value goes out as `execute_result` (unless silent). Ok holds
    /// the code of an `exit()` the cell called.
    fn run(&mut self, code: &str, count: u64, silent: bool) -> Result<Option<i32>, Failure> {
        let name = format!("<cell:{count}>");
        match self.interp.run_line(&name, code) {
            Ok(value) => {
                let exit = self.interp.exit_code().map(i32::from);
                if silent || exit.is_some() {
                    return Ok(exit);
                }
                if let Some(text) = echo(&self.interp, &value) {
                    let mut data = json!({ "text/plain": text.trim_end_matches('\n') });
                    if let Value::Tensor(t) = &value {
                        let html = tensor_html(t, &text, &self.interp.print_opts);
                        data["text/html"] = Json::String(html);
                    }
                    let current = self.current.borrow().clone();
                    if let Some(msg) = current {
                        let content =
                            json!({ "execution_count": count, "data": data, "metadata": {} });
                        self.send(&msg, "execute_result", content);
                    }
                    // `_` is the last value shown, as in the REPL.
                    self.interp.globals.define(&Rc::from("_"), value);
                }
                Ok(None)
            }
            Err(diags) => {
                let first = diags.first();
                let ename = first.map_or("error", |d| d.kind.name()).to_string();
                let evalue = first.map(|d| d.message.clone()).unwrap_or_default();
                let shown = self.interp.render(&diags, self.color);
                Err((ename, evalue, shown.lines().map(str::to_string).collect()))
            }
        }
    }

    /// A REPL command (`:vars`, `:time`, `:help`…) in a cell; `:quit` ends the kernel.
    fn command(&mut self, line: &str) -> Result<Option<i32>, Failure> {
        match commands::run(line, &mut self.interp, self.color) {
            Outcome::Show(text) => {
                self.interp.write_out(&text);
                Ok(None)
            }
            Outcome::Error(text) => {
                let text = text.trim_end().to_string();
                Err(("error".into(), text.clone(), vec![text]))
            }
            Outcome::Reset => {
                self.interp = new_interp(&self.current, &self.author, &self.out);
                Ok(None)
            }
            Outcome::Quit => Ok(Some(0)),
        }
    }

    /// Answers a queued cell that is not run after an earlier cell failed.
    fn abort(&mut self, msg: &Message) {
        let msg = Arc::new(msg.clone());
        self.status("busy", Some(&msg));
        self.reply(
            &msg,
            "execute_reply",
            json!({ "status": "aborted", "execution_count": self.count }),
        );
        self.status("idle", Some(&msg));
    }

    fn reply(&self, request: &Message, msg_type: &str, content: Json) {
        let reply = self.author.message(msg_type, content, Some(request));
        let _ = self.out.send(Outgoing::Shell(reply));
    }

    fn send(&self, parent: &Message, msg_type: &str, content: Json) {
        let msg = self.author.broadcast(msg_type, content, Some(parent));
        let _ = self.out.send(Outgoing::IoPub(msg));
    }

    fn status(&self, state: &str, parent: Option<&Message>) {
        let msg = self
            .author
            .broadcast("status", json!({ "execution_state": state }), parent);
        let _ = self.out.send(Outgoing::IoPub(msg));
    }
}

/// A session writing to the notebook: streams for print and eprint, and figures
/// and tables as display data.
fn new_interp(
    current: &Current,
    author: &Arc<Author>,
    out: &tokio::sync::mpsc::UnboundedSender<Outgoing>,
) -> Interp {
    let mut interp = Interp::new(Box::new(StreamSink::new(
        "stdout",
        current.clone(),
        out.clone(),
    )));
    interp.set_err(Box::new(StreamSink::new(
        "stderr",
        current.clone(),
        out.clone(),
    )));
    let (current, author, out) = (current.clone(), author.clone(), out.clone());
    interp.set_display(Box::new(move |item| {
        if let Some(parent) = current.borrow().as_ref() {
            let content = json!({ "data": display_data(item), "metadata": {} });
            let msg = author.broadcast("display_data", content, Some(parent));
            let _ = out.send(Outgoing::IoPub(msg));
        }
    }));
    interp
}

/// The request's `cursor_pos` (code points); the end of the code when absent.
fn cursor(msg: &Message, code: &str) -> usize {
    msg.content
        .get("cursor_pos")
        .and_then(Json::as_u64)
        .map_or(usize::MAX, |p| usize::try_from(p).unwrap_or(usize::MAX))
        .min(code.chars().count())
}
