use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use rand::RngCore;
use serde::{Deserialize, Serialize};

use super::user::{AuthUser, Credential};
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
    /// Tokens whose signature checked, by their exact text, until they expire: a client
    /// sends the same token with every request, and decoding and checking it again each
    /// time was a few percent of a move's CPU. Only tokens that passed go in, so the map
    /// holds no more than sign-ins made (which are rate-limited), and at most
    /// [`MOST_VERIFIED`] of those.
    verified: Mutex<HashMap<String, VerifiedToken>>,
}

/// Verified tokens kept at most: past it, the expired ones are dropped, then all.
const MOST_VERIFIED: usize = 10_000;

struct VerifiedToken {
    signed: SignedToken,
    /// Unix seconds, as the token's `exp` says.
    expires_at: u64,
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
            verified: Mutex::new(HashMap::new()),
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

    /// The token's signed claims when its signature is good and it has not expired.
    pub fn verify(&self, token: &str) -> Result<SignedToken, ApiError> {
        let now = (crate::service::now_millis() / 1000) as u64;
        // Strictly before `exp`, where the decoding below still accepts `exp` itself: a
        // token in its last second is decoded again, and refused in the next.
        if let Some(known) = self
            .lock_verified()
            .get(token)
            .filter(|known| now < known.expires_at)
        {
            return Ok(known.signed.clone());
        }
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        validation.set_required_spec_claims(&["exp", "sub"]);
        match decode::<Claims>(token, &self.decoding, &validation) {
            Ok(data) => {
                let signed = SignedToken {
                    user: AuthUser {
                        account_id: data.claims.sub,
                        name: data.claims.name,
                        token_generation: data.claims.gen,
                        credential: Credential::SignIn,
                    },
                    generation: data.claims.gen,
                };
                let mut verified = self.lock_verified();
                if verified.len() >= MOST_VERIFIED {
                    verified.retain(|_, known| now < known.expires_at);
                    if verified.len() >= MOST_VERIFIED {
                        verified.clear();
                    }
                }
                verified.insert(
                    token.to_owned(),
                    VerifiedToken {
                        signed: signed.clone(),
                        expires_at: data.claims.exp,
                    },
                );
                Ok(signed)
            }
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

    /// A poisoned lock only means a thread panicked while holding it; the map stays whole.
    fn lock_verified(&self) -> std::sync::MutexGuard<'_, HashMap<String, VerifiedToken>> {
        self.verified
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Shorter secrets can be guessed offline from any one token (HS256 keys want 256 bits).
pub const MIN_SECRET_BYTES: usize = 32;

/// Why `secret` is no signing key, if it is not: too short, or so repetitive (all one
/// character, or only a few distinct ones, or only whitespace) that its length says
/// nothing of how hard it is to guess.
pub fn secret_weakness(secret: &[u8]) -> Option<String> {
    if secret.len() < MIN_SECRET_BYTES {
        return Some(format!(
            "it has {} bytes and needs at least {MIN_SECRET_BYTES}",
            secret.len()
        ));
    }
    if secret.iter().all(u8::is_ascii_whitespace) {
        return Some("it is only whitespace".into());
    }
    let distinct = secret
        .iter()
        .collect::<std::collections::HashSet<_>>()
        .len();
    if distinct < MIN_DISTINCT_SECRET_BYTES {
        return Some(format!(
            "it repeats {distinct} different characters; a random one has far more"
        ));
    }
    None
}

/// A random secret of 32 bytes written as hex has 16 different characters in all but one
/// case in millions; a human-made pattern often has very few.
const MIN_DISTINCT_SECRET_BYTES: usize = 8;

/// The configured secret, or the one kept in `<data_dir>/jwt-secret`, created on first use
/// and created again when that file is empty or weak (always owner-only: written to a new
/// file and moved over the old one, whatever the old one's mode). The server never signs
/// with a built-in constant, and refuses a configured secret that is weak.
pub fn load_or_create_secret(configured: Option<&str>, data_dir: &Path) -> Result<Vec<u8>, String> {
    if let Some(secret) = configured {
        if let Some(weakness) = secret_weakness(secret.as_bytes()) {
            return Err(format!(
                "the configured secret (TURNPOST_JWT_SECRET or --jwt-secret) is too weak: \
                 {weakness}. Use at least {MIN_SECRET_BYTES} random bytes (e.g. `openssl rand \
                 -hex 32`), or leave it unset to have one generated in the data directory"
            ));
        }
        return Ok(secret.as_bytes().to_vec());
    }
    let path = data_dir.join("jwt-secret");
    let cannot =
        |what: &str, error: std::io::Error| format!("cannot {what} {}: {error}", path.display());
    match std::fs::read_to_string(&path) {
        Ok(existing) => match secret_weakness(existing.trim().as_bytes()) {
            None => {
                warn_if_others_may_read(&path);
                return Ok(existing.trim().as_bytes().to_vec());
            }
            Some(weakness) => tracing::warn!(
                path = %path.display(),
                %weakness,
                "the secret file is weak; generating a new secret (tokens issued before are \
                 no longer valid)"
            ),
        },
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(cannot("read", error)),
    }
    crate::private_files::create_dir(data_dir)
        .map_err(|error| cannot("create the directory of", error))?;
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let secret: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    crate::private_files::replace(&path, secret.as_bytes())
        .map_err(|error| cannot("write", error))?;
    Ok(secret.into_bytes())
}

/// The operator chose the mode of a secret file they kept; they are told when others can
/// read or change it.
fn warn_if_others_may_read(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(metadata) = std::fs::metadata(path) {
            let mode = metadata.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                tracing::warn!(
                    path = %path.display(),
                    mode = format!("{mode:o}"),
                    "the token signing secret can be read or changed by other users; `chmod \
                     600` it"
                );
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user() -> AuthUser {
        AuthUser {
            account_id: "a1".into(),
            name: "alice".into(),
            token_generation: 0,
            credential: Credential::SignIn,
        }
    }

    /// The code of the `Unauthorized` problem `keys` refuses `token` with, if they do.
    fn refusal(keys: &TokenKeys, token: &str) -> Option<&'static str> {
        match keys.verify(token) {
            Err(ApiError::Unauthorized { code, .. }) => Some(code),
            _ => None,
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
        assert_eq!(
            signed.user,
            AuthUser {
                token_generation: 3,
                ..user()
            }
        );
        assert_eq!(signed.generation, 3);
        let other = TokenKeys::new(b"secret two", 60);
        assert_eq!(refusal(&other, &issued.token), Some("invalid_token"));
    }

    #[test]
    fn an_expired_token_is_refused_as_expired() {
        let keys = TokenKeys::new(b"secret", 10);
        let issued = keys.issue(&user(), 0, now() - 100).unwrap();
        assert_eq!(refusal(&keys, &issued.token), Some("token_expired"));
    }

    #[test]
    fn a_verified_token_is_answered_again_only_while_it_lasts() {
        let keys = TokenKeys::new(b"secret", 2);
        let issued = keys.issue(&user(), 1, now()).unwrap();
        let first = keys.verify(&issued.token).unwrap();
        assert_eq!(keys.verify(&issued.token).unwrap(), first);
        assert_eq!(keys.lock_verified().len(), 1);
        // One character of the signature off is another text: checked, and refused.
        let mut tampered = issued.token.clone().into_bytes();
        let inside_the_signature = tampered.len() - 10;
        tampered[inside_the_signature] = match tampered[inside_the_signature] {
            b'A' => b'B',
            _ => b'A',
        };
        let tampered = String::from_utf8(tampered).unwrap();
        assert_eq!(refusal(&keys, &tampered), Some("invalid_token"));
        while now() <= issued.expires_at {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        assert_eq!(refusal(&keys, &issued.token), Some("token_expired"));
    }

    #[test]
    fn verified_tokens_kept_are_bounded() {
        let keys = TokenKeys::new(b"secret", 600);
        for n in 0..=MOST_VERIFIED {
            let user = AuthUser {
                name: format!("player{n}"),
                ..user()
            };
            let issued = keys.issue(&user, 0, now()).unwrap();
            keys.verify(&issued.token).unwrap();
        }
        let kept = keys.lock_verified().len();
        assert!((1..=MOST_VERIFIED).contains(&kept), "{kept}");
    }

    #[test]
    fn the_generated_secret_is_kept_and_reused() {
        let dir = tempfile::tempdir().unwrap();
        let first = load_or_create_secret(None, dir.path()).unwrap();
        let second = load_or_create_secret(None, dir.path()).unwrap();
        assert_eq!(first, second);
        assert_eq!(first.len(), 64);
        let given = "0123456789abcdefghijklmnopqrstuv".to_owned();
        assert_eq!(
            load_or_create_secret(Some(&given), dir.path()).unwrap(),
            given.as_bytes()
        );
    }

    #[test]
    fn an_empty_or_short_generated_secret_is_generated_again() {
        let dir = tempfile::tempdir().unwrap();
        for stale in ["", "\n", "short"] {
            std::fs::write(dir.path().join("jwt-secret"), stale).unwrap();
            let secret = load_or_create_secret(None, dir.path()).unwrap();
            assert_eq!(secret.len(), 64);
            assert_eq!(
                std::fs::read(dir.path().join("jwt-secret")).unwrap(),
                secret
            );
        }
    }

    #[test]
    fn a_configured_secret_that_is_empty_or_short_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        for short in ["", "x", &"x".repeat(MIN_SECRET_BYTES - 1)] {
            let error = load_or_create_secret(Some(short), dir.path()).unwrap_err();
            assert!(error.contains("at least 32"), "{error}");
        }
        assert!(!dir.path().join("jwt-secret").exists());
    }

    #[test]
    fn weak_secrets_are_told_apart_from_random_ones() {
        for weak in [
            "".to_owned(),
            " ".repeat(32),
            "a".repeat(64),
            "abababababababababababababababab".to_owned(),
            "0123456".repeat(6),
            "\t \n".repeat(20),
        ] {
            assert!(secret_weakness(weak.as_bytes()).is_some(), "{weak:?}");
        }
        let random: String = (0..32)
            .map(|_| format!("{:02x}", rand::random::<u8>()))
            .collect();
        assert_eq!(secret_weakness(random.as_bytes()), None);
        assert_eq!(secret_weakness(b"correct horse battery staple 2026!"), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_regenerated_secret_file_is_owner_only_whatever_it_was() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("jwt-secret");
        for (content, mode) in [(" ".repeat(32), 0o644), ("x".repeat(40), 0o666)] {
            std::fs::write(&path, content).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            let secret = load_or_create_secret(None, dir.path()).unwrap();
            assert_eq!(secret_weakness(&secret), None);
            let written = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(written, 0o600);
            assert_eq!(std::fs::read(&path).unwrap(), secret);
        }
        // A good file is kept as it is.
        let kept = load_or_create_secret(None, dir.path()).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), kept);
    }
}
