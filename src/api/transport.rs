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
    if !is_read || response.status() != StatusCode::OK || !sized {
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
    let unchanged = if_none_match.is_some_and(|wanted| {
        wanted
            .split(',')
            .map(str::trim)
            .any(|candidate| candidate == "*" || candidate.trim_start_matches("W/") == &tag[2..])
    });
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

/// A weak entity tag for a body: `W/"` and 32 hex digits of its SHA-256.
fn entity_tag(body: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(body);
    let hex: String = digest[..16]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("W/\"{hex}\"")
}
