//! The answers that never change while the process runs (the OpenAPI document, 1.1 MB, and
//! the documentation page's files) kept as sent, once per encoding. Compressing the
//! document took 3 ms of CPU for gzip and 8-10 ms for Brotli, and the page's script
//! 14 ms, at every request: anyone, without an account, could keep the cores busy with a
//! few hundred of them a second. Now the first `GET` of a path in an encoding is answered
//! by the app as before and kept; later ones, `GET` or `HEAD`, are copies of it, and a
//! matching `If-None-Match` is answered 304.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderMap, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::web::Bytes;
use actix_web::HttpResponse;

use super::transport::names_tag;

/// Answers kept at most: the document and the page's few files, in three encodings each.
const MOST_KEPT: usize = 64;

/// Whether the answer at `path` is the same for everyone while the process runs.
fn is_static(path: &str) -> bool {
    path == "/openapi.json" || path.starts_with("/docs/")
}

/// An encoding the server compresses in, in the order it prefers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Encoding {
    Brotli,
    Gzip,
    Identity,
}

impl Encoding {
    fn token(self) -> &'static str {
        match self {
            Encoding::Brotli => "br",
            Encoding::Gzip => "gzip",
            Encoding::Identity => "identity",
        }
    }

    /// The encoding to answer in: the first of ours the client accepts (a `q` of 0 refuses).
    fn chosen(headers: &HeaderMap) -> Encoding {
        let accepted: Vec<String> = headers
            .get_all(header::ACCEPT_ENCODING)
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .filter_map(|item| {
                let mut parts = item.split(';').map(str::trim);
                let name = parts.next()?.to_ascii_lowercase();
                let refused = parts.any(|parameter| {
                    parameter
                        .strip_prefix("q=")
                        .and_then(|q| q.parse::<f32>().ok())
                        .is_some_and(|q| q <= 0.0)
                });
                (!refused).then_some(name)
            })
            .collect();
        [Encoding::Brotli, Encoding::Gzip]
            .into_iter()
            .find(|encoding| accepted.iter().any(|name| name == encoding.token()))
            .unwrap_or(Encoding::Identity)
    }
}

/// One kept answer: its headers as the app wrote them (type, encoding, `Vary`, `ETag`) and
/// its body as sent.
struct Kept {
    headers: HeaderMap,
    body: Bytes,
}

type Store = Mutex<HashMap<(String, Encoding), Arc<Kept>>>;

/// Per process: what the paths answer does not depend on the server's settings.
fn store() -> &'static Store {
    static KEPT: OnceLock<Store> = OnceLock::new();
    KEPT.get_or_init(Store::default)
}

/// Answers a static path from the kept copy, or keeps the app's answer for the next time.
pub async fn keep_static_answers(
    mut request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let method = request.method().clone();
    if !matches!(method, Method::GET | Method::HEAD) || !is_static(request.path()) {
        return next
            .call(request)
            .await
            .map(ServiceResponse::map_into_boxed_body);
    }
    let encoding = Encoding::chosen(request.headers());
    let key = (request.path().to_owned(), encoding);
    let kept = store()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .get(&key)
        .cloned();
    if let Some(kept) = kept {
        let response = copy_of(&kept, request.headers().get(header::IF_NONE_MATCH));
        return Ok(request.into_response(response));
    }
    // The app compresses in exactly the chosen encoding, so that what is kept answers
    // every client that gets this encoding.
    request.headers_mut().insert(
        header::ACCEPT_ENCODING,
        HeaderValue::from_static(encoding.token()),
    );
    let response = next.call(request).await?;
    if method != Method::GET || response.status() != StatusCode::OK {
        return Ok(response.map_into_boxed_body());
    }
    let (request, response) = response.into_parts();
    let (head, body) = response.into_parts();
    let body = actix_web::body::to_bytes(body)
        .await
        .map_err(|_| actix_web::error::ErrorInternalServerError("the response body failed"))?;
    let kept = Kept {
        headers: head.headers().clone(),
        body: body.clone(),
    };
    {
        let mut store = store()
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if store.len() < MOST_KEPT {
            store.insert(key, Arc::new(kept));
        }
    }
    Ok(ServiceResponse::new(
        request,
        head.set_body(BoxBody::new(body)),
    ))
}

/// The kept answer, or 304 when `If-None-Match` names its tag.
fn copy_of(kept: &Kept, if_none_match: Option<&HeaderValue>) -> HttpResponse {
    let tag = kept
        .headers
        .get(header::ETAG)
        .and_then(|tag| tag.to_str().ok());
    let unchanged = match (tag, if_none_match.and_then(|value| value.to_str().ok())) {
        (Some(tag), Some(wanted)) => names_tag(wanted, tag),
        _ => false,
    };
    let mut response = if unchanged {
        HttpResponse::NotModified().finish()
    } else {
        HttpResponse::Ok().body(kept.body.clone())
    };
    for (name, value) in &kept.headers {
        if unchanged && name != header::ETAG && name != header::VARY {
            continue;
        }
        response.headers_mut().append(name.clone(), value.clone());
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepting(value: &str) -> Encoding {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(value).unwrap(),
        );
        Encoding::chosen(&headers)
    }

    #[test]
    fn the_encoding_is_the_first_of_ours_the_client_accepts() {
        assert_eq!(accepting("gzip, deflate, br"), Encoding::Brotli);
        assert_eq!(accepting("gzip;q=0.8, deflate"), Encoding::Gzip);
        assert_eq!(accepting("br;q=0, GZIP"), Encoding::Gzip);
        assert_eq!(accepting("zstd"), Encoding::Identity);
        assert_eq!(accepting("br;q=0.0, gzip;q=0"), Encoding::Identity);
        assert_eq!(Encoding::chosen(&HeaderMap::new()), Encoding::Identity);
    }
}
