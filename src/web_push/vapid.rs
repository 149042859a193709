//! The server's identity towards push services (VAPID, RFC 8292): a P-256 key pair made
//! once, whose public half browsers subscribe with (`applicationServerKey`), and a short
//! ES256 token per request that proves the request comes from the holder of the private
//! half. A push service refuses messages for a subscription signed by another key, so
//! every instance of one deployment must share the key: it is generated into the data
//! directory on first start (0600), or given to every instance by flag or environment.

use std::path::Path;

use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::SecretKey;

use super::encryption::{decode_base64url, encode_base64url};

/// How long a request's token is valid: at most 24 hours (RFC 8292 section 2).
const TOKEN_SECONDS: i64 = 12 * 3600;
/// The file in the data directory that keeps a generated key.
pub const KEY_FILE: &str = "vapid-private-key";

#[derive(Clone)]
pub struct VapidKey {
    secret: SecretKey,
    /// The uncompressed public point, base64url: what `PushManager.subscribe` takes.
    public: String,
}

impl std::fmt::Debug for VapidKey {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("VapidKey")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

impl VapidKey {
    pub fn generate() -> VapidKey {
        VapidKey::of(SecretKey::random(&mut rand::rngs::OsRng))
    }

    fn of(secret: SecretKey) -> VapidKey {
        let public = encode_base64url(secret.public_key().to_encoded_point(false).as_bytes());
        VapidKey { secret, public }
    }

    /// A private key as web-push tools write it: the 32-byte scalar, base64url.
    pub fn from_base64url(text: &str) -> Result<VapidKey, String> {
        let bytes = decode_base64url(text.trim())
            .filter(|bytes| bytes.len() == 32)
            .ok_or("not 32 bytes of base64url")?;
        SecretKey::from_slice(&bytes)
            .map(VapidKey::of)
            .map_err(|_| "not a P-256 private key".to_owned())
    }

    pub fn to_base64url(&self) -> String {
        encode_base64url(&self.secret.to_bytes())
    }

    /// The public key, base64url of the uncompressed point.
    pub fn public_key(&self) -> &str {
        &self.public
    }

    /// The `Authorization` header of a request to `endpoint` at `now_seconds`: `vapid t=`
    /// an ES256 token for the endpoint's origin with `contact` as its subject, `k=` the
    /// public key.
    pub fn authorization(&self, endpoint: &url::Url, contact: &str, now_seconds: i64) -> String {
        let header = encode_base64url(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims = serde_json::json!({
            "aud": endpoint.origin().ascii_serialization(),
            "exp": now_seconds + TOKEN_SECONDS,
            "sub": contact,
        });
        let signed = format!(
            "{header}.{}",
            encode_base64url(claims.to_string().as_bytes())
        );
        let signature: Signature = SigningKey::from(&self.secret).sign(signed.as_bytes());
        format!(
            "vapid t={signed}.{}, k={}",
            encode_base64url(&signature.to_bytes()),
            self.public
        )
    }
}

/// The key given (`--vapid-private-key`), or the one kept in the data directory, made
/// there on first start.
pub fn load_or_create(configured: Option<&str>, data_dir: &Path) -> Result<VapidKey, String> {
    if let Some(text) = configured {
        return VapidKey::from_base64url(text).map_err(|problem| {
            format!(
                "the configured VAPID key (TURNPOST_VAPID_PRIVATE_KEY or --vapid-private-key) \
                 is {problem}: give the private key as 32 bytes of base64url, or leave it \
                 unset to have one generated in the data directory"
            )
        });
    }
    let path = data_dir.join(KEY_FILE);
    let cannot =
        |what: &str, error: std::io::Error| format!("cannot {what} {}: {error}", path.display());
    match std::fs::read_to_string(&path) {
        Ok(existing) => {
            return VapidKey::from_base64url(&existing)
                .map_err(|problem| format!("{} is {problem}", path.display()))
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(cannot("read", error)),
    }
    crate::private_files::create_dir(data_dir)
        .map_err(|error| cannot("create the directory of", error))?;
    let key = VapidKey::generate();
    crate::private_files::replace(&path, key.to_base64url().as_bytes())
        .map_err(|error| cannot("write", error))?;
    tracing::info!(path = %path.display(), "generated the Web Push (VAPID) key");
    Ok(key)
}

#[cfg(test)]
mod tests {
    use p256::ecdsa::signature::Verifier;
    use p256::ecdsa::VerifyingKey;

    use super::*;

    #[test]
    fn a_token_is_signed_for_the_endpoints_origin_and_verifies_with_the_published_key() {
        let key = VapidKey::generate();
        let endpoint = url::Url::parse("https://push.example.net:8443/wpush/v2/abc?x=1").unwrap();
        let header = key.authorization(&endpoint, "mailto:ops@example.org", 1_000);
        let (token, public) = header
            .strip_prefix("vapid t=")
            .and_then(|rest| rest.split_once(", k="))
            .unwrap();
        assert_eq!(public, key.public_key());
        let parts: Vec<&str> = token.split('.').collect();
        assert_eq!(parts.len(), 3);
        let claims: serde_json::Value =
            serde_json::from_slice(&decode_base64url(parts[1]).unwrap()).unwrap();
        assert_eq!(
            claims,
            serde_json::json!({"aud": "https://push.example.net:8443", "exp": 1_000 + 43_200,
                               "sub": "mailto:ops@example.org"})
        );
        let verifying = VerifyingKey::from_sec1_bytes(&decode_base64url(public).unwrap()).unwrap();
        let signature = Signature::from_slice(&decode_base64url(parts[2]).unwrap()).unwrap();
        let signed = format!("{}.{}", parts[0], parts[1]);
        assert!(verifying.verify(signed.as_bytes(), &signature).is_ok());
        assert!(verifying.verify(b"something else", &signature).is_err());
    }

    #[test]
    fn a_key_is_made_once_into_the_data_directory_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let made = load_or_create(None, dir.path()).unwrap();
        let again = load_or_create(None, dir.path()).unwrap();
        assert_eq!(made.public_key(), again.public_key());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(KEY_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let given = load_or_create(
            Some(&made.to_base64url()),
            tempfile::tempdir().unwrap().path(),
        )
        .unwrap();
        assert_eq!(given.public_key(), made.public_key());
        assert!(load_or_create(Some("short"), dir.path()).is_err());
    }
}
