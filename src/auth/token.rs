use std::path::Path;

use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use rand::RngCore;
use serde::{Deserialize, Serialize};

use super::AuthUser;
use crate::error::ApiError;

#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    /// The account id.
    sub: String,
    name: String,
    /// The account's token generation when the token was issued.
    #[serde(default)]
    gen: i32,
    iat: u64,
    exp: u64,
}

/// A token whose signature and expiry are good; whether its account still exists and has
/// not revoked it is for the database to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedToken {
    pub user: AuthUser,
    pub generation: i32,
}

/// Signs and checks HS256 bearer tokens.
pub struct TokenKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    ttl_seconds: u64,
}

pub struct IssuedToken {
    pub token: String,
    /// Unix seconds.
    pub expires_at: u64,
}

impl TokenKeys {
    pub fn new(secret: &[u8], ttl_seconds: u64) -> Self {
        TokenKeys {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            ttl_seconds,
        }
    }

    pub fn issue(
        &self,
        user: &AuthUser,
        generation: i32,
        now_seconds: u64,
    ) -> Result<IssuedToken, ApiError> {
        let expires_at = now_seconds + self.ttl_seconds;
        let claims = Claims {
            sub: user.account_id.clone(),
            name: user.name.clone(),
            gen: generation,
            iat: now_seconds,
            exp: expires_at,
        };
        let token = encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .map_err(|error| ApiError::Internal(format!("token signing failed: {error}")))?;
        Ok(IssuedToken { token, expires_at })
    }

    pub fn verify(&self, token: &str) -> Result<SignedToken, ApiError> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        validation.set_required_spec_claims(&["exp", "sub"]);
        match decode::<Claims>(token, &self.decoding, &validation) {
            Ok(data) => Ok(SignedToken {
                user: AuthUser {
                    account_id: data.claims.sub,
                    name: data.claims.name,
                },
                generation: data.claims.gen,
            }),
            Err(error)
                if matches!(
                    error.kind(),
                    jsonwebtoken::errors::ErrorKind::ExpiredSignature
                ) =>
            {
                Err(ApiError::unauthorized(
                    "token_expired",
                    "the token has expired; get a new one",
                ))
            }
            Err(_) => Err(ApiError::unauthorized(
                "invalid_token",
                "the token is not valid",
            )),
        }
    }
}

/// The configured secret, or the one kept in `<data_dir>/jwt-secret`, created on first use.
/// The server never signs with a built-in constant.
pub fn load_or_create_secret(
    configured: Option<&str>,
    data_dir: &Path,
) -> std::io::Result<Vec<u8>> {
    if let Some(secret) = configured.filter(|secret| !secret.is_empty()) {
        return Ok(secret.as_bytes().to_vec());
    }
    let path = data_dir.join("jwt-secret");
    match std::fs::read_to_string(&path) {
        Ok(existing) if !existing.trim().is_empty() => {
            return Ok(existing.trim().as_bytes().to_vec())
        }
        Ok(_) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(error),
    }
    std::fs::create_dir_all(data_dir)?;
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let secret: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    write_private(&path, &secret)?;
    Ok(secret.into_bytes())
}

#[cfg(unix)]
fn write_private(path: &Path, contents: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(contents.as_bytes())
}

#[cfg(not(unix))]
fn write_private(path: &Path, contents: &str) -> std::io::Result<()> {
    std::fs::write(path, contents)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user() -> AuthUser {
        AuthUser {
            account_id: "a1".into(),
            name: "alice".into(),
        }
    }

    fn now() -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs()
    }

    #[test]
    fn an_issued_token_verifies_with_the_same_secret_only() {
        let keys = TokenKeys::new(b"secret one", 60);
        let issued = keys.issue(&user(), 3, now()).unwrap();
        let signed = keys.verify(&issued.token).unwrap();
        assert_eq!(signed.user, user());
        assert_eq!(signed.generation, 3);
        let other = TokenKeys::new(b"secret two", 60);
        assert!(matches!(
            other.verify(&issued.token),
            Err(ApiError::Unauthorized {
                code: "invalid_token",
                ..
            })
        ));
    }

    #[test]
    fn an_expired_token_is_refused_as_expired() {
        let keys = TokenKeys::new(b"secret", 10);
        let issued = keys.issue(&user(), 0, now() - 100).unwrap();
        assert!(matches!(
            keys.verify(&issued.token),
            Err(ApiError::Unauthorized {
                code: "token_expired",
                ..
            })
        ));
    }

    #[test]
    fn the_generated_secret_is_kept_and_reused() {
        let dir = tempfile::tempdir().unwrap();
        let first = load_or_create_secret(None, dir.path()).unwrap();
        let second = load_or_create_secret(None, dir.path()).unwrap();
        assert_eq!(first, second);
        assert_eq!(first.len(), 64);
        assert_eq!(
            load_or_create_secret(Some("given"), dir.path()).unwrap(),
            b"given"
        );
    }
}
