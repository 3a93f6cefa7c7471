//! What the kernel says of itself in `kernel_info_reply`.

use serde_json::{json, Value};

use super::header::PROTOCOL_VERSION;

/// The content of a `kernel_info_reply`.
pub fn kernel_info() -> Value {
    json!({
        "status": "ok",
        "protocol_version": PROTOCOL_VERSION,
        "implementation": "tsr",
        "implementation_version": env!("CARGO_PKG_VERSION"),
        "language_info": {
            "name": "tsr",
            "version": env!("CARGO_PKG_VERSION"),
            "mimetype": "text/x-tsr",
            "file_extension": ".tsr",
            "pygments_lexer": "text",
            "codemirror_mode": "null",
        },
        "banner": format!("tsr {} — a tensor REPL and scripting language", env!("CARGO_PKG_VERSION")),
        "help_links": [],
    })
}
