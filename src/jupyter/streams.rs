//! `print` and `eprint` in a notebook: what the interpreter writes becomes iopub
//! `stream` messages of the request being run. Each write is handed to the network
//! thread at once, which joins consecutive pieces into one message (see
//! `sockets::write`), so a loop of prints costs a channel send per line, not a message.

use std::cell::RefCell;
use std::io::{self, Write};
use std::rc::Rc;
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use super::sockets::Outgoing;
use super::wire::Message;

/// The request whose output is being written (shared by the sinks and the session).
pub type Current = Rc<RefCell<Option<Arc<Message>>>>;

/// One of the two streams, `stdout` or `stderr`.
pub struct StreamSink {
    name: &'static str,
    current: Current,
    out: UnboundedSender<Outgoing>,
    /// The start of a UTF-8 character whose other bytes come with the next write.
    partial: Vec<u8>,
}

impl StreamSink {
    pub fn new(name: &'static str, current: Current, out: UnboundedSender<Outgoing>) -> StreamSink {
        StreamSink {
            name,
            current,
            out,
            partial: Vec::new(),
        }
    }
}

impl Write for StreamSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.partial.extend_from_slice(buf);
        let complete = match std::str::from_utf8(&self.partial) {
            Ok(_) => self.partial.len(),
            // Bytes that may still become a character wait; invalid ones are replaced.
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => self.partial.len(),
        };
        let text = String::from_utf8_lossy(&self.partial[..complete]).into_owned();
        self.partial.drain(..complete);
        if let (false, Some(parent)) = (text.is_empty(), self.current.borrow().clone()) {
            let _ = self.out.send(Outgoing::Stream {
                name: self.name,
                text,
                parent,
            });
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jupyter::header::Author;
    use serde_json::json;

    #[test]
    fn writes_become_stream_pieces_split_only_between_characters() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let request = Author::new().message("execute_request", json!({}), None);
        let current: Current = Rc::new(RefCell::new(Some(Arc::new(request))));
        let mut sink = StreamSink::new("stdout", current, tx);
        let check = "✓".as_bytes();
        sink.write_all(b"ok ").unwrap();
        sink.write_all(&check[..1]).unwrap();
        sink.write_all(&check[1..]).unwrap();
        let mut texts = Vec::new();
        while let Ok(Outgoing::Stream { name, text, .. }) = rx.try_recv() {
            assert_eq!(name, "stdout");
            texts.push(text);
        }
        assert_eq!(texts, vec!["ok ", "✓"]);
    }
}
