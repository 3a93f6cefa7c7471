//! New messages: a header with a unique id, this kernel's session id and the time,
//! and the parent header of the request they answer.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

use super::wire::Message;

/// The protocol version this kernel speaks.
pub const PROTOCOL_VERSION: &str = "5.3";

/// Makes the messages of one kernel run.
pub struct Author {
    session: String,
    sent: AtomicU64,
}

impl Author {
    pub fn new() -> Author {
        Author {
            session: session_id(),
            sent: AtomicU64::new(0),
        }
    }

    /// A message of `msg_type` with `content`, answering `parent` (its identities
    /// route a reply back to the sender), or a message of its own.
    pub fn message(&self, msg_type: &str, content: Value, parent: Option<&Message>) -> Message {
        let n = self.sent.fetch_add(1, Ordering::Relaxed);
        let header = json!({
            "msg_id": format!("{}-{n}", self.session),
            "session": self.session,
            "username": "tsr",
            "date": iso_8601(SystemTime::now()),
            "msg_type": msg_type,
            "version": PROTOCOL_VERSION,
        });
        Message {
            identities: parent.map(|p| p.identities.clone()).unwrap_or_default(),
            header: into_map(header),
            parent_header: parent.map(|p| p.header.clone()).unwrap_or_default(),
            metadata: Map::new(),
            content: into_map(content),
            buffers: Vec::new(),
        }
    }

    /// A message for the iopub channel: no identities, the topic is its type.
    pub fn broadcast(&self, msg_type: &str, content: Value, parent: Option<&Message>) -> Message {
        let mut msg = self.message(msg_type, content, parent);
        msg.identities = vec![bytes::Bytes::from(msg_type.to_string())];
        msg
    }
}

fn into_map(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// 32 hex digits, different for every run: the clock, the process id and the
/// randomly keyed hasher std seeds per process.
fn session_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut words = [0u64; 2];
    for (i, word) in words.iter_mut().enumerate() {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(nanos);
        h.write_u32(std::process::id());
        h.write_usize(i);
        *word = h.finish();
    }
    format!("{:016x}{:016x}", words[0], words[1])
}

/// `2026-11-28T15:04:05.123456Z`.
fn iso_8601(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, day) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:06}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        d.subsec_micros()
    )
}

/// The proleptic Gregorian date of a day count from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_are_iso_8601_in_utc() {
        assert_eq!(iso_8601(UNIX_EPOCH), "1970-01-01T00:00:00.000000Z");
        let t = UNIX_EPOCH + Duration::from_micros(1_795_827_845_123_456);
        assert_eq!(iso_8601(t), "2026-11-28T01:04:05.123456Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
        assert_eq!(&iso_8601(leap)[..10], "2000-02-29");
    }

    #[test]
    fn replies_carry_their_parent_and_unique_ids() {
        let author = Author::new();
        let request = author.message("execute_request", json!({"code": "1"}), None);
        let a = author.message("execute_reply", json!({"status": "ok"}), Some(&request));
        let b = author.broadcast("status", json!({"execution_state": "idle"}), Some(&request));
        assert_eq!(a.parent_header, request.header);
        assert_ne!(a.header["msg_id"], b.header["msg_id"]);
        assert_eq!(b.identities[0].as_ref(), b"status");
        assert_eq!(a.header["session"].as_str().unwrap().len(), 32);
    }
}
