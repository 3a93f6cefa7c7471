//! `tsr kernel`: a Jupyter kernel (messaging protocol 5.3) running one tsr session,
//! and `tsr jupyter install`, which tells Jupyter where to find it.
//!
//! Two threads: the interpreter's (this one: `session`, which owns the
//! interpreter) and the network thread (`sockets`: heartbeat, control, and the
//! one writer of every message). Requests are verified ([`sign`], [`wire`]) before
//! anything reads them; a message with a bad signature is dropped with a line on
//! stderr.

pub mod assist;
pub mod connection;
mod header;
mod install;
mod kernel_info;
mod rich;
mod session;
pub mod sign;
mod sockets;
mod streams;
pub mod wire;

use std::path::Path;
use std::sync::Arc;

use crate::kernels::interrupt;

pub use install::{install, Target};

/// Runs the kernel described by `connection_file` until it is shut down; returns
/// the process exit code (2 when it cannot start).
pub fn run_kernel(connection_file: &Path) -> u8 {
    let started = connection::Connection::read(connection_file).and_then(|conn| {
        let signer = sign::Signer::new(&conn.signature_scheme, conn.key.as_bytes())?;
        let author = Arc::new(header::Author::new());
        let link = sockets::start(&conn, signer, author.clone())?;
        Ok((link, author))
    });
    let (link, author) = match started {
        Ok(started) => started,
        Err(e) => {
            eprintln!("tsr kernel: {e}");
            return 2;
        }
    };
    // Jupyter interrupts a kernel with SIGINT (interrupt_mode "signal"): it stops
    // the running cell, as Ctrl-C does in the REPL.
    if let Err(e) = signal_hook::flag::register(signal_hook::consts::SIGINT, interrupt::flag()) {
        eprintln!("tsr kernel: interrupts will end the kernel: {e}");
    }
    session::serve(link, author);
    0
}
