//! The Jupyter wire format. A message is a list of ZeroMQ frames:
//! `[identities…, "<IDS|MSG>", signature, header, parent_header, metadata, content,
//! buffers…]`. [`decode`] checks the signature before it parses any JSON and refuses
//! anything malformed with a reason; [`encode`] signs a message for sending.

use bytes::Bytes;
use serde_json::{Map, Value};

use super::sign::Signer;

/// The frame between the routing identities and the signed part.
pub const DELIMITER: &[u8] = b"<IDS|MSG>";
/// Routing identities and binary buffers a message may carry; more is refused.
const MAX_EXTRA_FRAMES: usize = 64;

/// A decoded message. The header and the content are JSON objects.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// ROUTER identities of the sender, echoed on the reply.
    pub identities: Vec<Bytes>,
    pub header: Map<String, Value>,
    pub parent_header: Map<String, Value>,
    pub metadata: Map<String, Value>,
    pub content: Map<String, Value>,
    pub buffers: Vec<Bytes>,
}

/// Why a list of frames is not a message.
#[derive(Debug, PartialEq, Eq)]
pub enum WireError {
    NoDelimiter,
    MissingFrames(usize),
    TooManyFrames(usize),
    BadSignature,
    NotJson(&'static str, String),
    NotAnObject(&'static str),
    NoMsgType,
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::NoDelimiter => write!(f, "no <IDS|MSG> delimiter frame"),
            WireError::MissingFrames(n) => {
                write!(f, "{n} frames after the delimiter, at least 5 are needed")
            }
            WireError::TooManyFrames(n) => {
                write!(f, "{n} frames, more than {MAX_EXTRA_FRAMES} extra")
            }
            WireError::BadSignature => write!(f, "the signature does not verify"),
            WireError::NotJson(part, e) => write!(f, "the {part} is not JSON: {e}"),
            WireError::NotAnObject(part) => write!(f, "the {part} is not a JSON object"),
            WireError::NoMsgType => write!(f, "the header has no msg_type string"),
        }
    }
}

impl Message {
    /// The header's `msg_type` (checked to be a string by [`decode`]).
    pub fn msg_type(&self) -> &str {
        self.header
            .get("msg_type")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// A string field of the content, if it is one.
    pub fn str_field(&self, name: &str) -> Option<&str> {
        self.content.get(name).and_then(Value::as_str)
    }

    /// A boolean field of the content, or `default`.
    pub fn bool_field(&self, name: &str, default: bool) -> bool {
        self.content
            .get(name)
            .and_then(Value::as_bool)
            .unwrap_or(default)
    }
}

/// Decodes `frames` as one message signed with `signer`.
pub fn decode(frames: Vec<Bytes>, signer: &Signer) -> Result<Message, WireError> {
    let Some(at) = frames.iter().position(|f| f.as_ref() == DELIMITER) else {
        return Err(WireError::NoDelimiter);
    };
    let after = frames.len() - at - 1;
    if after < 5 {
        return Err(WireError::MissingFrames(after));
    }
    if frames.len() - 6 > MAX_EXTRA_FRAMES {
        return Err(WireError::TooManyFrames(frames.len()));
    }
    let mut frames = frames.into_iter();
    let identities: Vec<Bytes> = frames.by_ref().take(at).collect();
    let mut signed: Vec<Bytes> = frames.by_ref().skip(1).take(5).collect();
    let buffers: Vec<Bytes> = frames.collect();
    let [signature, header, parent, metadata, content] =
        std::array::from_fn(|i| std::mem::take(&mut signed[i]));
    if !signer.verify(&signature, [&header, &parent, &metadata, &content]) {
        return Err(WireError::BadSignature);
    }
    let header = object(&header, "header")?;
    if !header.get("msg_type").is_some_and(Value::is_string) {
        return Err(WireError::NoMsgType);
    }
    Ok(Message {
        identities,
        header,
        parent_header: object(&parent, "parent header")?,
        metadata: object(&metadata, "metadata")?,
        content: object(&content, "content")?,
        buffers,
    })
}

/// A JSON object from a frame.
fn object(frame: &[u8], part: &'static str) -> Result<Map<String, Value>, WireError> {
    match serde_json::from_slice::<Value>(frame) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(WireError::NotAnObject(part)),
        Err(e) => Err(WireError::NotJson(part, e.to_string())),
    }
}

/// The frames of `msg`, signed with `signer`.
pub fn encode(msg: &Message, signer: &Signer) -> Vec<Bytes> {
    let json = |map: &Map<String, Value>| {
        // A map of JSON values always serializes.
        Bytes::from(serde_json::to_vec(map).unwrap_or_else(|_| b"{}".to_vec()))
    };
    let header = json(&msg.header);
    let parent = json(&msg.parent_header);
    let metadata = json(&msg.metadata);
    let content = json(&msg.content);
    let signature = signer.sign([&header, &parent, &metadata, &content]);
    let mut frames = msg.identities.clone();
    frames.push(Bytes::from_static(DELIMITER));
    frames.push(Bytes::from(signature));
    frames.extend([header, parent, metadata, content]);
    frames.extend(msg.buffers.iter().cloned());
    frames
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message() -> Message {
        let obj = |v: Value| v.as_object().cloned().unwrap();
        Message {
            identities: vec![Bytes::from_static(b"client-7")],
            header: obj(json!({"msg_id": "1", "msg_type": "execute_request"})),
            parent_header: Map::new(),
            metadata: Map::new(),
            content: obj(json!({"code": "1 + 1", "silent": false})),
            buffers: vec![Bytes::from_static(b"\x00\x01")],
        }
    }

    #[test]
    fn messages_round_trip_with_their_signature() {
        let signer = Signer::new("hmac-sha256", b"secret").unwrap();
        let frames = encode(&message(), &signer);
        assert_eq!(frames[1].as_ref(), DELIMITER);
        let back = decode(frames, &signer).unwrap();
        assert_eq!(back, message());
        assert_eq!(back.msg_type(), "execute_request");
        assert_eq!(back.str_field("code"), Some("1 + 1"));
        assert!(!back.bool_field("silent", true));
    }

    #[test]
    fn long_numbers_survive_decoding_and_encoding() {
        // 51 digits: a parse that is not correctly rounded gives a float whose
        // shortest text reads back as another (the fuzz target found one).
        let none = Signer::new("hmac-sha256", b"").unwrap();
        let content = format!("{{\"x\": -2{}0}}", "1".repeat(49));
        let frames: Vec<Bytes> = [
            DELIMITER,
            b"",
            br#"{"msg_type": "t"}"#,
            b"{}",
            b"{}",
            content.as_bytes(),
        ]
        .iter()
        .map(|p| Bytes::copy_from_slice(p))
        .collect();
        let msg = decode(frames, &none).unwrap();
        assert_eq!(decode(encode(&msg, &none), &none).unwrap(), msg);
        assert_eq!(msg.content["x"].as_f64(), Some(-2.111111111111111e50));
    }

    #[test]
    fn a_changed_frame_or_another_key_is_refused() {
        let signer = Signer::new("hmac-sha256", b"secret").unwrap();
        let mut frames = encode(&message(), &signer);
        frames[6] = Bytes::from_static(br#"{"code": "forged"}"#);
        assert_eq!(decode(frames, &signer), Err(WireError::BadSignature));
        let other = Signer::new("hmac-sha256", b"guess").unwrap();
        let frames = encode(&message(), &other);
        assert_eq!(decode(frames, &signer), Err(WireError::BadSignature));
    }

    #[test]
    fn malformed_frames_are_named() {
        let none = Signer::new("hmac-sha256", b"").unwrap();
        let f = |parts: &[&'static [u8]]| parts.iter().map(|p| Bytes::from_static(p)).collect();
        assert_eq!(decode(f(&[b"x"]), &none), Err(WireError::NoDelimiter));
        assert_eq!(
            decode(f(&[DELIMITER, b"", b"{}"]), &none),
            Err(WireError::MissingFrames(2))
        );
        assert_eq!(
            decode(f(&[DELIMITER, b"", b"[]", b"{}", b"{}", b"{}"]), &none),
            Err(WireError::NotAnObject("header"))
        );
        assert_eq!(
            decode(f(&[DELIMITER, b"", b"{}", b"{}", b"{}", b"{}"]), &none),
            Err(WireError::NoMsgType)
        );
        let bad = decode(
            f(&[DELIMITER, b"", br#"{"msg_type":"x"}"#, b"{", b"{}", b"{}"]),
            &none,
        );
        assert!(
            matches!(bad, Err(WireError::NotJson("parent header", _))),
            "{bad:?}"
        );
        let many = vec![Bytes::new(); 100];
        let mut frames: Vec<Bytes> = many;
        frames.extend(f(&[DELIMITER, b"", b"{}", b"{}", b"{}", b"{}"]));
        assert_eq!(decode(frames, &none), Err(WireError::TooManyFrames(106)));
    }
}
