//! The connection file Jupyter writes before it starts a kernel: where to bind the
//! five sockets and the key that signs messages.

use std::path::Path;

use serde_json::Value;

/// The largest connection file read (real ones are a few hundred bytes).
const MAX_BYTES: u64 = 64 * 1024;

#[derive(Clone, Debug, PartialEq)]
pub struct Connection {
    pub transport: String,
    pub ip: String,
    pub shell_port: u16,
    pub iopub_port: u16,
    pub stdin_port: u16,
    pub control_port: u16,
    pub hb_port: u16,
    pub signature_scheme: String,
    pub key: String,
}

impl Connection {
    pub fn read(path: &Path) -> Result<Connection, String> {
        let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        let len = std::fs::metadata(path).map_err(|e| fail(&e))?.len();
        if len > MAX_BYTES {
            return Err(fail(&format!(
                "{len} bytes is too large for a connection file"
            )));
        }
        let text = std::fs::read_to_string(path).map_err(|e| fail(&e))?;
        Connection::parse(&text).map_err(|e| fail(&e))
    }

    /// Parses the JSON text of a connection file. Only `tcp` is supported, and the
    /// address is taken as given (Jupyter writes 127.0.0.1 unless told otherwise).
    pub fn parse(text: &str) -> Result<Connection, String> {
        let json: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let text_field = |name: &str, default: &str| -> Result<String, String> {
            match json.get(name) {
                None => Ok(default.to_string()),
                Some(Value::String(s)) => Ok(s.clone()),
                Some(_) => Err(format!("\"{name}\" is not a string")),
            }
        };
        let port = |name: &str| -> Result<u16, String> {
            json.get(name)
                .and_then(Value::as_u64)
                .and_then(|p| u16::try_from(p).ok())
                .filter(|&p| p != 0)
                .ok_or_else(|| format!("\"{name}\" is not a port number"))
        };
        let transport = text_field("transport", "tcp")?;
        if transport != "tcp" {
            return Err(format!(
                "transport \"{transport}\" is not supported (only tcp)"
            ));
        }
        let ip = text_field("ip", "127.0.0.1")?;
        if ip.is_empty() || ip.contains(|c: char| c == '/' || c.is_whitespace()) {
            return Err(format!("\"ip\" {ip:?} is not an address"));
        }
        Ok(Connection {
            transport,
            ip,
            shell_port: port("shell_port")?,
            iopub_port: port("iopub_port")?,
            stdin_port: port("stdin_port")?,
            control_port: port("control_port")?,
            hb_port: port("hb_port")?,
            signature_scheme: text_field("signature_scheme", "hmac-sha256")?,
            key: text_field("key", "")?,
        })
    }

    /// The ZeroMQ endpoint of a port: `tcp://IP:PORT`.
    pub fn endpoint(&self, port: u16) -> String {
        format!("{}://{}:{port}", self.transport, self.ip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jupyter_connection_file_parses() {
        let text = r#"{"shell_port": 5001, "iopub_port": 5002, "stdin_port": 5003,
            "control_port": 5004, "hb_port": 5005, "ip": "127.0.0.1", "key": "k-1",
            "transport": "tcp", "signature_scheme": "hmac-sha256", "kernel_name": "tsr"}"#;
        let c = Connection::parse(text).unwrap();
        assert_eq!(c.endpoint(c.hb_port), "tcp://127.0.0.1:5005");
        assert_eq!(c.key, "k-1");
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        let err = |t: &str| Connection::parse(t).unwrap_err();
        assert!(err("{").contains("not JSON"));
        assert!(err(r#"{"shell_port": "x"}"#).contains("\"shell_port\" is not a port"));
        let ports = r#""shell_port":1,"iopub_port":2,"stdin_port":3,"control_port":4,"hb_port":5"#;
        assert!(err(&format!(r#"{{{ports},"transport":"ipc"}}"#)).contains("only tcp"));
        assert!(err(&format!(r#"{{{ports},"key":3}}"#)).contains("\"key\" is not a string"));
        assert!(err(&format!(r#"{{{ports},"ip":"a/b"}}"#)).contains("not an address"));
        assert!(Connection::parse(&format!("{{{ports}}}")).is_ok());
    }
}
