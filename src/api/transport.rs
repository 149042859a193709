//! What is checked of a request before any handler reads it, and added to a response after:
//! compressed bodies are refused (an inflated body could be far larger than the limit it
//! was checked against), a body must arrive within a deadline, so that a client trickling
//! bytes cannot hold a connection and a worker's attention forever, and reads get entity
//! tags for conditional requests.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::http::{header, Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::web::Bytes;
use actix_web::HttpMessage;
use futures_core::Stream;

use crate::error::ApiError;

/// How long a client has to send a request body once its head has arrived.
#[derive(Debug, Clone, Copy)]
pub struct BodyDeadline(pub Duration);

/// Refuses compressed request bodies and puts the body under its deadline.
pub async fn guard_request_body(
    mut request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let encoded = request
        .headers()
        .get(header::CONTENT_ENCODING)
        .is_some_and(|value| !value.as_bytes().eq_ignore_ascii_case(b"identity"));
    if encoded {
        let refusal = ApiError::UnsupportedMediaType {
            code: "unsupported_content_encoding",
            detail: "request bodies are accepted uncompressed only".to_owned(),
        };
        return Ok(request.error_response(refusal));
    }
    let has_body = request.headers().contains_key(header::CONTENT_LENGTH)
        || request.headers().contains_key(header::TRANSFER_ENCODING);
    if !has_body {
        return next
            .call(request)
            .await
            .map(ServiceResponse::map_into_boxed_body);
    }
    let deadline = request
        .app_data::<actix_web::web::Data<BodyDeadline>>()
        .map_or(Duration::from_secs(10), |deadline| deadline.0);
    let body = request.take_payload();
    let timed: Pin<Box<dyn Stream<Item = Result<Bytes, PayloadError>>>> = Box::pin(TimedBody {
        body,
        deadline: Box::pin(actix_web::rt::time::sleep(deadline)),
    });
    request.set_payload(Payload::from(timed));
    next.call(request)
        .await
        .map(ServiceResponse::map_into_boxed_body)
}

/// A body stream that fails with `TimedOut` once its deadline has passed.
struct TimedBody {
    body: Payload,
    deadline: Pin<Box<actix_web::rt::time::Sleep>>,
}

impl Stream for TimedBody {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.deadline.as_mut().poll(context).is_ready() {
            let late = std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the request body did not arrive in time",
            );
            return Poll::Ready(Some(Err(PayloadError::Io(late))));
        }
        Pin::new(&mut self.body).poll_next(context)
    }
}

/// The API's answer to a body that could not be read.
pub fn body_error(error: &PayloadError, limit: usize) -> ApiError {
    match error {
        PayloadError::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
            ApiError::RequestTimeout {
                detail: "the request body did not arrive in time".to_owned(),
            }
        }
        PayloadError::Overflow => ApiError::PayloadTooLarge {
            detail: format!("request bodies are limited to {limit} bytes"),
        },
        other => ApiError::bad_request("invalid_body", other.to_string()),
    }
}

/// Validators for reads: a GET or HEAD answered 200 with a body of known size gets a weak
/// `ETag` (from the body's SHA-256), and a request whose `If-None-Match` names it gets 304
/// with no body, so a client polling for changes downloads nothing while nothing changed.
pub async fn etag_for_reads(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let is_read = matches!(*request.method(), Method::GET | Method::HEAD);
    let if_none_match = request
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let response = next.call(request).await?;
    let sized = matches!(response.response().body().size(), BodySize::Sized(_));
    // A stream (whose HEAD answers with an empty body) has no entity to tag.
    let stream = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|media| {
            media.starts_with("text/event-stream") || media.starts_with("application/x-ndjson")
        });
    if !is_read || response.status() != StatusCode::OK || !sized || stream {
        return Ok(response.map_into_boxed_body());
    }
    let (request, response) = response.into_parts();
    let (mut head, body) = response.into_parts();
    let bytes = actix_web::body::to_bytes(body)
        .await
        .map_err(|_| actix_web::error::ErrorInternalServerError("the response body failed"))?;
    let tag = entity_tag(&bytes);
    if let Ok(value) = header::HeaderValue::from_str(&tag) {
        head.headers_mut().insert(header::ETAG, value);
    }
    let unchanged = if_none_match.is_some_and(|wanted| names_tag(&wanted, &tag));
    let mut response = if unchanged {
        head.set_body(BoxBody::new(()))
    } else {
        head.set_body(BoxBody::new(bytes))
    };
    if unchanged {
        *response.status_mut() = StatusCode::NOT_MODIFIED;
    }
    Ok(ServiceResponse::new(request, response))
}

/// Whether an `If-None-Match` value names the weak entity `tag` (or any, `*`).
pub fn names_tag(if_none_match: &str, tag: &str) -> bool {
    let opaque = tag.trim_start_matches("W/");
    if_none_match
        .split(',')
        .map(str::trim)
        .any(|candidate| candidate == "*" || candidate.trim_start_matches("W/") == opaque)
}

/// A weak entity tag for a body: `W/"` and 32 hex digits of its SHA-256.
fn entity_tag(body: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(body);
    let mut tag = String::with_capacity(36);
    tag.push_str("W/\"");
    for byte in &digest[..16] {
        tag.push(char::from(HEX[usize::from(byte >> 4)]));
        tag.push(char::from(HEX[usize::from(byte & 15)]));
    }
    tag.push('"');
    tag
}

/// A JSON request body read as `T`, with the API's errors (see `json_config`). A number
/// written with a fraction of zero (`3.0`, `1e2`) is an integer to JSON Schema, so it is
/// read as one wherever the body's type wants an integer.
#[derive(Debug)]
pub struct Json<T>(pub T);

impl<T> Json<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for Json<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: serde::de::DeserializeOwned + 'static> actix_web::FromRequest for Json<T> {
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(request: &actix_web::HttpRequest, payload: &mut Payload) -> Self::Future {
        let value = actix_web::web::Json::<serde_json::Value>::from_request(request, payload);
        Box::pin(async move {
            let value = value.await?.into_inner();
            Ok(Json(from_json_value(value)?))
        })
    }
}

/// `value` read as `T`, integral floats read as integers when `T` needs them.
pub fn from_json_value<T: serde::de::DeserializeOwned>(
    mut value: serde_json::Value,
) -> Result<T, ApiError> {
    match T::deserialize(&value) {
        Ok(read) => Ok(read),
        Err(error) => {
            if integral_floats_as_integers(&mut value) {
                if let Ok(read) = T::deserialize(&value) {
                    return Ok(read);
                }
            }
            Err(ApiError::unprocessable(
                "invalid_request",
                error.to_string(),
            ))
        }
    }
}

/// Rewrites every float in `value` that has no fraction (and fits an `i64` or `u64`) as an
/// integer; whether it changed anything.
pub fn integral_floats_as_integers(value: &mut serde_json::Value) -> bool {
    use serde_json::Value;
    match value {
        Value::Number(number) if number.is_f64() => {
            let float = number.as_f64().unwrap_or(f64::NAN);
            let integer = if float.fract() != 0.0 || !float.is_finite() {
                None
            } else if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&float) {
                Some(serde_json::Number::from(float as i64))
            } else if (0.0..1.844_674_407_370_955_2e19).contains(&float) {
                Some(serde_json::Number::from(float as u64))
            } else {
                None
            };
            match integer {
                Some(integer) => {
                    *number = integer;
                    true
                }
                None => false,
            }
        }
        Value::Array(items) => {
            let mut changed = false;
            for item in items {
                changed |= integral_floats_as_integers(item);
            }
            changed
        }
        Value::Object(fields) => {
            let mut changed = false;
            for field in fields.values_mut() {
                changed |= integral_floats_as_integers(field);
            }
            changed
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_entity_tag_is_weak_and_names_the_first_half_of_the_body_s_sha_256() {
        // SHA-256 of "abc" is ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad.
        assert_eq!(entity_tag(b"abc"), "W/\"ba7816bf8f01cfea414140de5dae2223\"");
        assert_eq!(entity_tag(b""), "W/\"e3b0c44298fc1c149afbf4c8996fb924\"");
    }

    #[test]
    fn integral_floats_become_integers_and_others_stay() {
        let mut value = json!({"seq": 111.0, "list": [1e2, 2.5, -3.0], "big": 1e300, "s": "4.0"});
        assert!(integral_floats_as_integers(&mut value));
        assert_eq!(
            value,
            json!({"seq": 111, "list": [100, 2.5, -3], "big": 1e300, "s": "4.0"})
        );
        assert!(!integral_floats_as_integers(
            &mut json!({"seq": 1, "x": 0.5})
        ));
    }

    #[test]
    fn a_body_with_an_integral_float_reads_where_an_integer_is_wanted() {
        #[derive(serde::Deserialize)]
        struct Body {
            seats: u8,
        }
        let body: Body = from_json_value(json!({"seats": 3.0})).unwrap();
        assert_eq!(body.seats, 3);
        assert!(from_json_value::<Body>(json!({"seats": 3.5})).is_err());
    }
}
