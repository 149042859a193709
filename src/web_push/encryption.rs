//! Message encryption for Web Push (RFC 8291): the `aes128gcm` content coding of RFC 8188
//! in one record, keyed by an ECDH agreement between a fresh key pair of the server's and
//! the subscription's P-256 key (`keys.p256dh`), mixed with its authentication secret
//! (`keys.auth`). Only the browser that subscribed can read a message; the push service
//! carries it without seeing its text.

use hkdf::Hkdf;
use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::{PublicKey, SecretKey};
use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_128_GCM};
use sha2::Sha256;

/// The record size written in the header: a push message is one record, and push services
/// take bodies of at least 4,096 bytes (RFC 8291 section 4).
const RECORD_SIZE: u32 = 4096;
const SALT_BYTES: usize = 16;
const KEY_BYTES: usize = 65;
/// Salt, record size, key id length and the server's public key.
const HEADER_BYTES: usize = SALT_BYTES + 4 + 1 + KEY_BYTES;
const TAG_BYTES: usize = 16;
/// The longest payload one 4,096-byte body carries: less the header, the tag and the
/// delimiter of the last record.
pub const MOST_PAYLOAD_BYTES: usize = RECORD_SIZE as usize - HEADER_BYTES - TAG_BYTES - 1;

/// Where a message goes: a subscription's keys, as `PushSubscription` gives them.
#[derive(Debug, Clone)]
pub struct Recipient {
    /// `keys.p256dh`: an uncompressed P-256 point.
    pub public_key: PublicKey,
    /// `keys.auth`: 16 bytes.
    pub auth: [u8; 16],
}

/// Why a subscription's keys are not ones a message can be encrypted to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum KeyProblem {
    #[error("`keys.p256dh` is not an uncompressed P-256 point (65 bytes, base64url)")]
    PublicKey,
    #[error("`keys.auth` is not 16 bytes (base64url)")]
    Auth,
}

impl Recipient {
    /// The keys of a `PushSubscription` (base64url, with or without padding).
    pub fn from_base64url(p256dh: &str, auth: &str) -> Result<Recipient, KeyProblem> {
        let point = decode_base64url(p256dh)
            .filter(|bytes| bytes.len() == KEY_BYTES && bytes[0] == 4)
            .ok_or(KeyProblem::PublicKey)?;
        let public_key = PublicKey::from_sec1_bytes(&point).map_err(|_| KeyProblem::PublicKey)?;
        let auth = decode_base64url(auth)
            .and_then(|bytes| <[u8; 16]>::try_from(bytes).ok())
            .ok_or(KeyProblem::Auth)?;
        Ok(Recipient { public_key, auth })
    }
}

/// Base64url without padding, as Web Push writes keys.
pub fn encode_base64url(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Base64url with or without padding.
pub fn decode_base64url(text: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text.trim_end_matches('='))
        .ok()
}

/// `payload` encrypted for `recipient` with a fresh key pair and salt: the body of the
/// push request. `None` when the payload is longer than [`MOST_PAYLOAD_BYTES`].
pub fn encrypt(payload: &[u8], recipient: &Recipient) -> Option<Vec<u8>> {
    use rand::RngCore;
    let sender = SecretKey::random(&mut rand::rngs::OsRng);
    let mut salt = [0u8; SALT_BYTES];
    rand::rngs::OsRng.fill_bytes(&mut salt);
    encrypt_with(payload, recipient, &sender, salt)
}

/// [`encrypt`] with the server's key pair and the salt given (RFC 8291's example fixes
/// both).
pub fn encrypt_with(
    payload: &[u8],
    recipient: &Recipient,
    sender: &SecretKey,
    salt: [u8; SALT_BYTES],
) -> Option<Vec<u8>> {
    if payload.len() > MOST_PAYLOAD_BYTES {
        return None;
    }
    let sender_public = sender.public_key().to_encoded_point(false);
    let shared =
        p256::ecdh::diffie_hellman(sender.to_nonzero_scalar(), recipient.public_key.as_affine());
    let recipient_public = recipient.public_key.to_encoded_point(false);
    let (key, nonce) = content_keys(
        shared.raw_secret_bytes(),
        &recipient.auth,
        recipient_public.as_bytes(),
        sender_public.as_bytes(),
        &salt,
    );
    let mut body = Vec::with_capacity(HEADER_BYTES + payload.len() + 1 + TAG_BYTES);
    body.extend_from_slice(&salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(KEY_BYTES as u8);
    body.extend_from_slice(sender_public.as_bytes());
    let mut record = Vec::with_capacity(payload.len() + 1 + TAG_BYTES);
    record.extend_from_slice(payload);
    // The last (and only) record's delimiter, with no padding after it.
    record.push(2);
    key.seal_in_place_append_tag(nonce, Aad::empty(), &mut record)
        .ok()?;
    body.extend_from_slice(&record);
    Some(body)
}

/// What a browser does with a message: decrypts `body` with the subscription's private
/// key and authentication secret. The server never needs it; its tests and the push
/// service double in the integration tests do.
pub fn decrypt(body: &[u8], recipient_secret: &SecretKey, auth: &[u8; 16]) -> Option<Vec<u8>> {
    if body.len() < HEADER_BYTES + TAG_BYTES + 1 || body[SALT_BYTES + 4] as usize != KEY_BYTES {
        return None;
    }
    let salt: [u8; SALT_BYTES] = body[..SALT_BYTES].try_into().ok()?;
    let sender_public = &body[SALT_BYTES + 5..HEADER_BYTES];
    let sender = PublicKey::from_sec1_bytes(sender_public).ok()?;
    let shared =
        p256::ecdh::diffie_hellman(recipient_secret.to_nonzero_scalar(), sender.as_affine());
    let recipient_public = recipient_secret.public_key().to_encoded_point(false);
    let (key, nonce) = content_keys(
        shared.raw_secret_bytes(),
        auth,
        recipient_public.as_bytes(),
        sender_public,
        &salt,
    );
    let mut record = body[HEADER_BYTES..].to_vec();
    let plain = key.open_in_place(nonce, Aad::empty(), &mut record).ok()?;
    // Padding (zeros) after the delimiter; the last record's delimiter is 2.
    let end = plain.iter().rposition(|byte| *byte != 0)?;
    (plain[end] == 2).then(|| plain[..end].to_vec())
}

/// The content-encryption key and nonce (RFC 8291 section 3.4, RFC 8188 section 2.2).
fn content_keys(
    shared_secret: &[u8],
    auth: &[u8; 16],
    recipient_public: &[u8],
    sender_public: &[u8],
    salt: &[u8; SALT_BYTES],
) -> (LessSafeKey, Nonce) {
    let mut key_info = Vec::with_capacity(14 + 2 * KEY_BYTES);
    key_info.extend_from_slice(b"WebPush: info\0");
    key_info.extend_from_slice(recipient_public);
    key_info.extend_from_slice(sender_public);
    let mut input_key = [0u8; 32];
    Hkdf::<Sha256>::new(Some(auth), shared_secret)
        .expand(&key_info, &mut input_key)
        .expect("32 bytes is a valid HKDF-SHA-256 length");
    let derived = Hkdf::<Sha256>::new(Some(salt), &input_key);
    let mut key = [0u8; 16];
    derived
        .expand(b"Content-Encoding: aes128gcm\0", &mut key)
        .expect("16 bytes is a valid HKDF-SHA-256 length");
    let mut nonce = [0u8; 12];
    derived
        .expand(b"Content-Encoding: nonce\0", &mut nonce)
        .expect("12 bytes is a valid HKDF-SHA-256 length");
    let key = UnboundKey::new(&AES_128_GCM, &key).expect("an AES-128 key is 16 bytes");
    (LessSafeKey::new(key), Nonce::assume_unique_for_key(nonce))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8291, Appendix A.
    const PLAINTEXT: &str = "When I grow up, I want to be a watermelon";
    const SENDER_PRIVATE: &str = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";
    const SENDER_PUBLIC: &str =
        "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8";
    const RECIPIENT_PRIVATE: &str = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94";
    const RECIPIENT_PUBLIC: &str =
        "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
    const AUTH: &str = "BTBZMqHH6r4Tts7J_aSIgg";
    const SALT: &str = "DGv6ra1nlYgDCS1FRnbzlw";
    const BODY: &str = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN";

    fn secret(text: &str) -> SecretKey {
        SecretKey::from_slice(&decode_base64url(text).unwrap()).unwrap()
    }

    #[test]
    fn the_rfc_8291_example_encrypts_to_its_exact_bytes() {
        let recipient = Recipient::from_base64url(RECIPIENT_PUBLIC, AUTH).unwrap();
        let sender = secret(SENDER_PRIVATE);
        assert_eq!(
            encode_base64url(sender.public_key().to_encoded_point(false).as_bytes()),
            SENDER_PUBLIC
        );
        let salt: [u8; 16] = decode_base64url(SALT).unwrap().try_into().unwrap();
        let body = encrypt_with(PLAINTEXT.as_bytes(), &recipient, &sender, salt).unwrap();
        assert_eq!(encode_base64url(&body), BODY);
    }

    #[test]
    fn the_browser_reads_the_rfc_example_and_a_fresh_message_and_nothing_altered() {
        let recipient_secret = secret(RECIPIENT_PRIVATE);
        let auth: [u8; 16] = decode_base64url(AUTH).unwrap().try_into().unwrap();
        let read = decrypt(&decode_base64url(BODY).unwrap(), &recipient_secret, &auth);
        assert_eq!(read.as_deref(), Some(PLAINTEXT.as_bytes()));

        let recipient = Recipient::from_base64url(RECIPIENT_PUBLIC, AUTH).unwrap();
        let message = br#"{"title":"Your turn"}"#;
        let body = encrypt(message, &recipient).unwrap();
        assert_eq!(
            decrypt(&body, &recipient_secret, &auth).as_deref(),
            Some(&message[..])
        );
        // Every message has its own key pair and salt.
        assert_ne!(encrypt(message, &recipient).unwrap(), body);
        let mut altered = body.clone();
        let last = altered.len() - 1;
        altered[last] ^= 1;
        assert_eq!(decrypt(&altered, &recipient_secret, &auth), None);
        let other_auth = [7u8; 16];
        assert_eq!(decrypt(&body, &recipient_secret, &other_auth), None);
    }

    #[test]
    fn a_payload_fills_at_most_one_4096_byte_body() {
        let recipient = Recipient::from_base64url(RECIPIENT_PUBLIC, AUTH).unwrap();
        let largest = vec![b'x'; MOST_PAYLOAD_BYTES];
        assert_eq!(encrypt(&largest, &recipient).unwrap().len(), 4096);
        assert_eq!(encrypt(&[b'x'; MOST_PAYLOAD_BYTES + 1], &recipient), None);
    }

    #[test]
    fn keys_that_are_not_a_subscriptions_are_refused() {
        assert_eq!(
            Recipient::from_base64url("AAAA", AUTH).unwrap_err(),
            KeyProblem::PublicKey
        );
        // A point not on the curve.
        let mut off = decode_base64url(RECIPIENT_PUBLIC).unwrap();
        off[64] ^= 1;
        assert_eq!(
            Recipient::from_base64url(&encode_base64url(&off), AUTH).unwrap_err(),
            KeyProblem::PublicKey
        );
        assert_eq!(
            Recipient::from_base64url(RECIPIENT_PUBLIC, "c2hvcnQ").unwrap_err(),
            KeyProblem::Auth
        );
        // Padding is fine.
        assert!(Recipient::from_base64url(RECIPIENT_PUBLIC, "BTBZMqHH6r4Tts7J_aSIgg==").is_ok());
    }
}
