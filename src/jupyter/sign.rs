//! Message signatures: HMAC-SHA256 over a message's four JSON frames, with the key
//! from the connection file, written as lowercase hex. An empty key means the
//! client signs nothing and checks nothing (the protocol's "no authentication").

use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The session key, or none when the connection file's key is empty.
#[derive(Clone)]
pub struct Signer {
    key: Option<HmacSha256>,
}

impl Signer {
    /// A signer for `scheme` (only `hmac-sha256` exists in the protocol) and `key`.
    pub fn new(scheme: &str, key: &[u8]) -> Result<Signer, String> {
        if key.is_empty() {
            return Ok(Signer { key: None });
        }
        if scheme != "hmac-sha256" {
            return Err(format!(
                "signature scheme \"{scheme}\" is not supported (only hmac-sha256)"
            ));
        }
        let mac = HmacSha256::new_from_slice(key)
            .map_err(|e| format!("the connection file's key cannot be used: {e}"))?;
        Ok(Signer { key: Some(mac) })
    }

    /// The hex signature of the frames (empty when unsigned).
    pub fn sign(&self, frames: [&[u8]; 4]) -> String {
        let Some(mac) = &self.key else {
            return String::new();
        };
        let mut mac = mac.clone();
        for frame in frames {
            mac.update(frame);
        }
        mac.finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// Whether `signature` (hex, as sent) is the frames' signature; compared in
    /// constant time. Always true without a key.
    pub fn verify(&self, signature: &[u8], frames: [&[u8]; 4]) -> bool {
        let Some(mac) = &self.key else {
            return true;
        };
        let Some(expected) = from_hex(signature) else {
            return false;
        };
        let mut mac = mac.clone();
        for frame in frames {
            mac.update(frame);
        }
        mac.verify_slice(&expected).is_ok()
    }
}

/// Bytes from lowercase or uppercase hex; none for odd lengths or other characters.
fn from_hex(text: &[u8]) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16);
    text.chunks(2)
        .map(|pair| Some((digit(pair[0])? * 16 + digit(pair[1])?) as u8))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_match_the_rfc_4231_vector() {
        // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?",
        // split across the four frames.
        let signer = Signer::new("hmac-sha256", b"Jefe").unwrap();
        let frames: [&[u8]; 4] = [b"what do ya", b" want ", b"for nothing", b"?"];
        let sig = signer.sign(frames);
        assert_eq!(
            sig,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert!(signer.verify(sig.as_bytes(), frames));
        assert!(signer.verify(sig.to_uppercase().as_bytes(), frames));
        assert!(!signer.verify(b"5bdc", frames));
        assert!(!signer.verify(b"zz", frames));
        let forged = Signer::new("hmac-sha256", b"other").unwrap().sign(frames);
        assert!(!signer.verify(forged.as_bytes(), frames));
    }

    #[test]
    fn an_empty_key_signs_nothing_and_accepts_anything() {
        let signer = Signer::new("whatever", b"").unwrap();
        assert_eq!(signer.sign([b"a", b"b", b"c", b"d"]), "");
        assert!(signer.verify(b"", [b"a", b"b", b"c", b"d"]));
        assert!(Signer::new("hmac-md5", b"k").is_err());
    }
}
