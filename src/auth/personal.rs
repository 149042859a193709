//! Personal tokens as text: `tpat_<id>_<secret>`, where the id names the stored token and
//! the secret is 32 random bytes in hex. They are opaque, not JWTs: the server keeps only
//! the SHA-256 of the secret, so a leaked database does not leak usable tokens, and a token
//! is revoked by deleting its row.

use rand::RngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::ApiError;

/// How every personal token begins; sign-in tokens (JWTs) never do.
pub const PREFIX: &str = "tpat_";
/// Characters of a token's id (from [`crate::service::random_id`]'s alphabet).
pub const ID_LENGTH: usize = 16;
const SECRET_BYTES: usize = 32;

/// A personal token as a request presents it: which token it claims to be, and the hash of
/// the secret it carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresentedToken {
    pub id: String,
    /// Hex SHA-256 of the secret part.
    pub secret_hash: String,
}

impl PresentedToken {
    /// Reads `tpat_<id>_<secret>`; anything else is 401 `invalid_token`.
    pub fn parse(token: &str) -> Result<PresentedToken, ApiError> {
        let invalid = || {
            ApiError::unauthorized(
                "invalid_token",
                "a personal token reads `tpat_<id>_<secret>`; this one does not",
            )
        };
        let (id, secret) = token
            .strip_prefix(PREFIX)
            .and_then(|rest| rest.split_once('_'))
            .ok_or_else(invalid)?;
        let id_ok = id.len() == ID_LENGTH && id.bytes().all(|b| b.is_ascii_alphanumeric());
        let secret_ok =
            secret.len() == SECRET_BYTES * 2 && secret.bytes().all(|b| b.is_ascii_hexdigit());
        if !(id_ok && secret_ok) {
            return Err(invalid());
        }
        Ok(PresentedToken {
            id: id.to_owned(),
            secret_hash: hash_secret(&secret.to_ascii_lowercase()),
        })
    }

    /// Whether this token names the stored token `id`, compared in constant time.
    pub fn is_named(&self, id: &str) -> bool {
        self.id.as_bytes().ct_eq(id.as_bytes()).into()
    }

    /// Whether this token's secret is the one `stored_hash` was made from, compared in
    /// constant time so the answer's timing tells nothing about the stored hash.
    pub fn matches(&self, stored_hash: &str) -> bool {
        self.secret_hash
            .as_bytes()
            .ct_eq(stored_hash.as_bytes())
            .into()
    }
}

/// A token just made: the text to hand out once, and what to store.
pub struct GeneratedToken {
    pub id: String,
    /// `tpat_<id>_<secret>`: shown to its owner once, never stored.
    pub token: String,
    /// Hex SHA-256 of the secret: all the database keeps.
    pub secret_hash: String,
}

/// A new personal token with a fresh id and a secret from the operating system's RNG.
pub fn generate() -> GeneratedToken {
    let id = crate::service::random_id(ID_LENGTH);
    let mut bytes = [0u8; SECRET_BYTES];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let secret = hex(&bytes);
    GeneratedToken {
        token: format!("{PREFIX}{id}_{secret}"),
        secret_hash: hash_secret(&secret),
        id,
    }
}

fn hash_secret(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_token_parses_to_its_id_and_stored_hash() {
        let generated = generate();
        assert!(generated.token.starts_with(PREFIX));
        assert_eq!(generated.token.len(), PREFIX.len() + ID_LENGTH + 1 + 64);
        assert!(!generated.token.contains(&generated.secret_hash));
        let presented = PresentedToken::parse(&generated.token).unwrap();
        assert_eq!(presented.id, generated.id);
        assert!(presented.matches(&generated.secret_hash));
        assert!(!presented.matches(&generate().secret_hash));
        assert!(!presented.matches(""));
    }

    #[test]
    fn malformed_tokens_are_invalid() {
        let good = generate().token;
        let id = &good[PREFIX.len()..PREFIX.len() + ID_LENGTH];
        for bad in [
            "tpat_".to_owned(),
            format!("tpat_{id}"),
            format!("tpat_{id}_"),
            format!("tpat_{id}_{}", "z".repeat(64)),
            format!("tpat_{id}_{}", "a".repeat(63)),
            format!("tpat_short_{}", "a".repeat(64)),
            format!("tpat_{id}x_{}", "a".repeat(64)),
            good.replacen("tpat_", "tpak_", 1),
        ] {
            assert!(
                matches!(
                    PresentedToken::parse(&bad),
                    Err(ApiError::Unauthorized {
                        code: "invalid_token",
                        ..
                    })
                ),
                "{bad}"
            );
        }
    }
}
