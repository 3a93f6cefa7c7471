//! The kernel's five sockets, served on a thread of their own so that the heartbeat,
//! interrupts and shutdown answer while a cell runs. Shell requests go to the
//! interpreter thread over a channel; everything the kernel sends goes through one
//! writer task, so messages leave in the order they were made. The control channel
//! (interrupt, shutdown, kernel info) is answered here.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
use zeromq::{PubSocket, RepSocket, RouterSocket, Socket, SocketRecv, SocketSend, ZmqMessage};

use super::connection::Connection;
use super::header::Author;
use super::kernel_info::kernel_info;
use super::sign::Signer;
use super::wire::{self, Message};
use crate::kernels::interrupt;

/// How long the writer waits for queued messages to leave before the process exits.
const EXIT_GRACE: Duration = Duration::from_millis(100);
/// How long stream text may wait to be joined with more before it is sent.
const STREAM_DELAY: Duration = Duration::from_millis(50);
/// Stream text sent at once however soon more may come.
const STREAM_MAX: usize = 1 << 20;
/// How often the kernel checks that the process that started it is still there.
const PARENT_CHECK: Duration = Duration::from_secs(1);

/// What the interpreter thread hands the writer.
pub enum Outgoing {
    /// A reply on the shell channel.
    Shell(Message),
    /// Output or status on the iopub channel.
    IoPub(Message),
    /// A piece of `stdout` or `stderr` text written while running `parent`.
    Stream {
        name: &'static str,
        text: String,
        parent: Arc<Message>,
    },
    /// Ends the process with this code once everything before it was sent.
    Exit(i32),
}

/// A verified shell request and when it arrived.
pub struct Request {
    pub received: Instant,
    pub msg: Message,
}

/// The interpreter thread's ends of the network thread.
pub struct Link {
    /// Verified shell requests, in arrival order.
    pub requests: std::sync::mpsc::Receiver<Request>,
    pub out: UnboundedSender<Outgoing>,
}

/// Binds the sockets and starts serving them; an error names what could not be bound.
pub fn start(conn: &Connection, signer: Signer, author: Arc<Author>) -> Result<Link, String> {
    let (requests_tx, requests) = std::sync::mpsc::channel();
    let (out, out_rx) = unbounded_channel();
    let (ready_tx, ready) = std::sync::mpsc::channel();
    let conn = conn.clone();
    let out_for_control = out.clone();
    std::thread::Builder::new()
        .name("jupyter-sockets".into())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = ready_tx.send(Err(format!("cannot start the network thread: {e}")));
                    return;
                }
            };
            runtime.block_on(async move {
                let sockets = match Sockets::bind(&conn).await {
                    Ok(s) => s,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                let _ = ready_tx.send(Ok(()));
                serve(
                    sockets,
                    signer,
                    author,
                    requests_tx,
                    out_for_control,
                    out_rx,
                )
                .await;
            });
        })
        .map_err(|e| format!("cannot start the network thread: {e}"))?;
    match ready.recv() {
        Ok(Ok(())) => Ok(Link { requests, out }),
        Ok(Err(e)) => Err(e),
        Err(_) => Err("the network thread stopped before binding its sockets".into()),
    }
}

struct Sockets {
    shell: RouterSocket,
    control: RouterSocket,
    iopub: PubSocket,
    stdin: RouterSocket,
    heartbeat: RepSocket,
}

impl Sockets {
    async fn bind(conn: &Connection) -> Result<Sockets, String> {
        async fn bound<S: Socket>(
            mut socket: S,
            conn: &Connection,
            port: u16,
            name: &str,
        ) -> Result<S, String> {
            let endpoint = conn.endpoint(port);
            socket
                .bind(&endpoint)
                .await
                .map_err(|e| format!("cannot bind the {name} socket to {endpoint}: {e}"))?;
            Ok(socket)
        }
        Ok(Sockets {
            shell: bound(RouterSocket::new(), conn, conn.shell_port, "shell").await?,
            control: bound(RouterSocket::new(), conn, conn.control_port, "control").await?,
            iopub: bound(PubSocket::new(), conn, conn.iopub_port, "iopub").await?,
            stdin: bound(RouterSocket::new(), conn, conn.stdin_port, "stdin").await?,
            heartbeat: bound(RepSocket::new(), conn, conn.hb_port, "heartbeat").await?,
        })
    }
}

/// Runs every task until the process exits.
async fn serve(
    sockets: Sockets,
    signer: Signer,
    author: Arc<Author>,
    requests: std::sync::mpsc::Sender<Request>,
    out: UnboundedSender<Outgoing>,
    out_rx: UnboundedReceiver<Outgoing>,
) {
    let Sockets {
        shell,
        control,
        iopub,
        stdin,
        heartbeat,
    } = sockets;
    let (shell_send, mut shell_recv) = shell.split();
    // tsr never asks for input (allow_stdin is not used), but the socket stays bound
    // so that clients connect as they expect.
    let _stdin = stdin;
    let receive_shell = {
        let signer = signer.clone();
        async move {
            loop {
                let Ok(frames) = shell_recv.recv().await else {
                    continue;
                };
                match wire::decode(frames.into_vec(), &signer) {
                    Ok(msg) => {
                        let received = Instant::now();
                        if requests.send(Request { received, msg }).is_err() {
                            return;
                        }
                    }
                    Err(e) => eprintln!("tsr kernel: dropped a shell message: {e}"),
                }
            }
        }
    };
    tokio::join!(
        echo_heartbeat(heartbeat),
        receive_shell,
        answer_control(control, signer.clone(), author.clone(), out),
        write(shell_send, iopub, signer, author, out_rx),
        watch_parent(),
    );
}

async fn echo_heartbeat(mut socket: RepSocket) {
    loop {
        if let Ok(ping) = socket.recv().await {
            let _ = socket.send(ping).await;
        }
    }
}

/// Interrupts, shutdown and kernel info, answered while a cell may be running.
async fn answer_control(
    control: RouterSocket,
    signer: Signer,
    author: Arc<Author>,
    iopub: UnboundedSender<Outgoing>,
) {
    let (mut send, mut recv) = control.split();
    loop {
        let Ok(frames) = recv.recv().await else {
            continue;
        };
        let msg = match wire::decode(frames.into_vec(), &signer) {
            Ok(msg) => msg,
            Err(e) => {
                eprintln!("tsr kernel: dropped a control message: {e}");
                continue;
            }
        };
        let status = |state: &str| {
            Outgoing::IoPub(author.broadcast(
                "status",
                json!({ "execution_state": state }),
                Some(&msg),
            ))
        };
        let (reply_type, content, exit) = match msg.msg_type() {
            "interrupt_request" => {
                interrupt::flag().store(true, Ordering::SeqCst);
                ("interrupt_reply", json!({ "status": "ok" }), false)
            }
            "shutdown_request" => {
                let restart = msg.bool_field("restart", false);
                (
                    "shutdown_reply",
                    json!({ "status": "ok", "restart": restart }),
                    true,
                )
            }
            "kernel_info_request" => ("kernel_info_reply", kernel_info(), false),
            other => {
                eprintln!("tsr kernel: no handler for control message {other}");
                continue;
            }
        };
        let _ = iopub.send(status("busy"));
        let reply = author.message(reply_type, content, Some(&msg));
        if let Ok(frames) = ZmqMessage::try_from(wire::encode(&reply, &signer)) {
            let _ = send.send(frames).await;
        }
        let _ = iopub.send(status("idle"));
        if exit {
            let _ = iopub.send(Outgoing::Exit(0));
        }
    }
}

/// Sends what the kernel made, in order; ends the process on [`Outgoing::Exit`].
/// Consecutive stream pieces of one name and request are sent as one message, at
/// most [`STREAM_DELAY`] after the first, or before any other message.
async fn write(
    shell: zeromq::RouterSendHalf,
    iopub: PubSocket,
    signer: Signer,
    author: Arc<Author>,
    mut queue: UnboundedReceiver<Outgoing>,
) {
    let mut sender = Sender {
        shell,
        iopub,
        signer,
    };
    let mut pending: Option<(&'static str, String, Arc<Message>)> = None;
    let mut deadline = tokio::time::Instant::now();
    loop {
        let item = tokio::select! {
            item = queue.recv() => item,
            () = tokio::time::sleep_until(deadline), if pending.is_some() => {
                flush_stream(&mut pending, &author, &mut sender).await;
                continue;
            }
        };
        let Some(item) = item else { return };
        match item {
            Outgoing::Stream { name, text, parent } => {
                match &mut pending {
                    Some((n, joined, p)) if *n == name && Arc::ptr_eq(p, &parent) => {
                        joined.push_str(&text);
                    }
                    _ => {
                        flush_stream(&mut pending, &author, &mut sender).await;
                        deadline = tokio::time::Instant::now() + STREAM_DELAY;
                        pending = Some((name, text, parent));
                    }
                }
                if pending
                    .as_ref()
                    .is_some_and(|(_, t, _)| t.len() >= STREAM_MAX)
                {
                    flush_stream(&mut pending, &author, &mut sender).await;
                }
            }
            Outgoing::Shell(msg) => {
                flush_stream(&mut pending, &author, &mut sender).await;
                sender.send(&msg, true).await;
            }
            Outgoing::IoPub(msg) => {
                flush_stream(&mut pending, &author, &mut sender).await;
                sender.send(&msg, false).await;
            }
            Outgoing::Exit(code) => {
                flush_stream(&mut pending, &author, &mut sender).await;
                tokio::time::sleep(EXIT_GRACE).await;
                std::process::exit(code);
            }
        }
    }
}

/// Sends the joined stream text, if any.
async fn flush_stream(
    pending: &mut Option<(&'static str, String, Arc<Message>)>,
    author: &Author,
    sender: &mut Sender,
) {
    if let Some((name, text, parent)) = pending.take() {
        let msg = author.broadcast(
            "stream",
            json!({ "name": name, "text": text }),
            Some(&parent),
        );
        sender.send(&msg, false).await;
    }
}

/// The two sockets the writer sends on.
struct Sender {
    shell: zeromq::RouterSendHalf,
    iopub: PubSocket,
    signer: Signer,
}

impl Sender {
    async fn send(&mut self, msg: &Message, to_shell: bool) {
        let Ok(frames) = ZmqMessage::try_from(wire::encode(msg, &self.signer)) else {
            return;
        };
        let sent = if to_shell {
            self.shell.send(frames).await
        } else {
            self.iopub.send(frames).await
        };
        if let Err(e) = sent {
            eprintln!("tsr kernel: could not send {}: {e}", msg.msg_type());
        }
    }
}

/// Exits when the process that started the kernel is gone (the kernel was handed
/// to another parent), so that a killed notebook server leaves no kernel behind.
async fn watch_parent() {
    #[cfg(unix)]
    {
        let parent = std::os::unix::process::parent_id();
        loop {
            tokio::time::sleep(PARENT_CHECK).await;
            if std::os::unix::process::parent_id() != parent {
                eprintln!("tsr kernel: the process that started it is gone; exiting");
                std::process::exit(0);
            }
        }
    }
    #[cfg(not(unix))]
    std::future::pending::<()>().await
}
