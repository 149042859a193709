//! The answers actix-http's HTTP/1 dispatcher writes by itself, without the app: 400 for a
//! request it cannot parse, 431 for a request head too large, 408 for a head that did not
//! arrive in time, 500 for its own inconsistencies. It sends them with an empty body; this
//! module turns them into RFC 9457 problems like every other answer.
//!
//! [`ProblemIo`] wraps each accepted connection and follows the responses in the bytes the
//! dispatcher writes (heads, lengths, chunks). [`CountRequests`], the app's outermost
//! middleware, counts on the connection's [`Ledger`] the requests the app is handed (and
//! which were `HEAD`, whose answers have no body). The dispatcher answers requests in
//! order and writes an answer of its own only after the answers to every request it handed
//! over, so a final response that starts when the app has no request left to answer is the
//! dispatcher's; if it has the dispatcher's shape (an error status, `content-length: 0`, no
//! content type) it is replaced by a problem with the same status line and `date`, and
//! `connection: close` (the dispatcher closes the connection after it in every case).
//! Anything unexpected in the bytes makes the wrapper stop looking: the rest of the
//! connection passes unchanged. See docs/architecture.md, "Framework-level errors".

use std::cell::Cell;
use std::future::{ready, Ready};
use std::io;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use actix_web::dev::{forward_ready, Service, ServiceRequest, Transform};
use actix_web::http::{Method, StatusCode};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::api::connection_caps::{Connection, ConnectionHandle};
use crate::error::Problem;

/// Per connection: how many requests the app has been handed, and which of the last 64 of
/// them were `HEAD`. Shared by the connection's [`ProblemIo`] and, through the connection's
/// data, by [`CountRequests`]; both run on the connection's worker thread.
#[derive(Debug, Default)]
pub struct Ledger {
    handed: Cell<u64>,
    head_bits: Cell<u64>,
}

impl Ledger {
    fn record(&self, head: bool) {
        let index = self.handed.get();
        let bit = 1 << (index % 64);
        let bits = self.head_bits.get();
        self.head_bits
            .set(if head { bits | bit } else { bits & !bit });
        self.handed.set(index + 1);
    }

    /// Whether request `index` was `HEAD`; only for the last 64 requests.
    fn was_head(&self, index: u64) -> bool {
        (self.head_bits.get() >> (index % 64)) & 1 == 1
    }
}

/// The app's outermost middleware: records each request on its connection's [`Ledger`]
/// before the app sees it. No allocation, no wrapped future.
pub struct CountRequests;

impl<S> Transform<S, ServiceRequest> for CountRequests
where
    S: Service<ServiceRequest>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Transform = CountRequestsService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, ()>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(CountRequestsService { service }))
    }
}

pub struct CountRequestsService<S> {
    service: S,
}

impl<S> Service<ServiceRequest> for CountRequestsService<S>
where
    S: Service<ServiceRequest>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    forward_ready!(service);

    fn call(&self, request: ServiceRequest) -> Self::Future {
        if let Some(ledger) = request.conn_data::<Rc<Ledger>>() {
            ledger.record(request.method() == Method::HEAD);
        }
        self.service.call(request)
    }
}

/// A connection whose bodiless answers from the dispatcher leave as problems.
pub struct ProblemIo<T> {
    io: T,
    /// The connection's admission: counted against its networks while it lives, and
    /// closed by the next read once it is chosen to make room (see `connection_caps`).
    admission: Connection,
    closable: Option<Arc<crate::api::connection_caps::Shared>>,
    ledger: Rc<Ledger>,
    framing: Framing,
    /// A problem being written in place of the dispatcher's head at the front of its buffer.
    replacing: Option<Replacement>,
    head_timeout_seconds: u64,
}

struct Replacement {
    /// The length of the dispatcher's head, reported written once `bytes` are.
    head_len: usize,
    bytes: Vec<u8>,
    written: usize,
}

impl<T> ProblemIo<T> {
    /// `head_timeout_seconds` is the dispatcher's head timeout, for the 408's detail.
    pub fn new(io: T, head_timeout_seconds: u64) -> Self {
        ProblemIo {
            io,
            admission: Connection::Uncounted,
            closable: None,
            ledger: Rc::default(),
            framing: Framing::default(),
            replacing: None,
            head_timeout_seconds,
        }
    }

    /// The connection with its admission, which lives as long as the connection does.
    pub fn admitted(mut self, admission: Connection) -> Self {
        self.closable = admission.shared();
        self.admission = admission;
        self
    }

    /// What the connection's requests need to know of its admission.
    pub fn admission(&self) -> ConnectionHandle {
        self.admission.handle()
    }

    /// The connection it wraps.
    pub fn get_ref(&self) -> &T {
        &self.io
    }

    /// For the connection's data, where [`CountRequests`] finds it.
    pub fn ledger(&self) -> Rc<Ledger> {
        Rc::clone(&self.ledger)
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for ProblemIo<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this
            .closable
            .as_ref()
            .is_some_and(|closable| closable.poll_closed(cx))
        {
            // Read as the client's end: the dispatcher closes the connection.
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for ProblemIo<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        loop {
            if let Some(replacement) = &mut this.replacing {
                // The dispatcher offers its head again until it is reported written, which
                // is once the whole problem is: it may drop the connection as soon as its
                // buffer is empty.
                while replacement.written < replacement.bytes.len() {
                    let unwritten = &replacement.bytes[replacement.written..];
                    match ready!(Pin::new(&mut this.io).poll_write(cx, unwritten))? {
                        0 => return Poll::Ready(Ok(0)),
                        written => replacement.written += written,
                    }
                }
                let head_len = replacement.head_len;
                this.replacing = None;
                // The dispatcher closes the connection after its own answers.
                this.framing.at = At::Passthrough;
                return Poll::Ready(Ok(head_len));
            }
            if let At::Passthrough = this.framing.at {
                return Pin::new(&mut this.io).poll_write(cx, buf);
            }
            let mut framing = this.framing;
            let end = framing.advance(buf, buf.len(), &this.ledger);
            if end > 0 || buf.is_empty() {
                let written = ready!(Pin::new(&mut this.io).poll_write(cx, &buf[..end]))?;
                if written == end {
                    this.framing = framing;
                } else {
                    this.framing.advance(buf, written, &this.ledger);
                }
                return Poll::Ready(Ok(written));
            }
            // A final response the app did not write starts here.
            match problem_for(buf, this.head_timeout_seconds) {
                Some((head_len, bytes)) => {
                    this.replacing = Some(Replacement {
                        head_len,
                        bytes,
                        written: 0,
                    });
                }
                None => this.framing.at = At::Passthrough,
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

/// Where the written bytes are in the responses, and how many answers to the app's
/// requests have begun.
#[derive(Debug, Default, Clone, Copy)]
struct Framing {
    answered: u64,
    at: At,
}

#[derive(Debug, Default, Clone, Copy)]
enum At {
    /// The next byte starts a status line.
    #[default]
    Head,
    /// `left` more bytes of a head already read, then its body.
    InHead {
        left: usize,
        then: Body,
    },
    /// `left` more bytes of a body of known length.
    Sized {
        left: u64,
    },
    /// A chunked body's chunk-size line: hex digits so far, then CR LF.
    ChunkSize {
        size: u64,
    },
    ChunkSizeLf {
        size: u64,
    },
    ChunkData {
        left: u64,
    },
    ChunkDataCr,
    ChunkDataLf,
    /// After the last chunk (`0\r\n`): the final CR LF.
    LastCr,
    LastLf,
    /// Lost track, or nothing we look for can follow: every byte passes unchanged.
    Passthrough,
}

#[derive(Debug, Clone, Copy)]
enum Body {
    None,
    Sized(u64),
    Chunked,
    UntilClose,
}

impl Framing {
    /// Follows the first `upto` bytes of `buf`, the bytes offered to write from the current
    /// position; returns where a final response that answers none of the app's requests
    /// starts (the dispatcher's own), or `upto`.
    fn advance(&mut self, buf: &[u8], upto: usize, ledger: &Ledger) -> usize {
        let mut at = 0;
        while at < upto {
            let rest = &buf[at..upto];
            match self.at {
                At::Passthrough => return upto,
                At::Head => {
                    // actix encodes a head whole before writing it, and offers its buffer
                    // from the first unwritten byte to the end, so a head that starts in
                    // `buf` ends in it too (though maybe beyond `upto`).
                    let Some(head) = parse_head(&buf[at..]) else {
                        self.at = At::Passthrough;
                        return upto;
                    };
                    let body = if head.status < 200 {
                        if head.status == 101 {
                            // Another protocol follows.
                            Body::UntilClose
                        } else {
                            Body::None
                        }
                    } else {
                        let index = self.answered;
                        let handed = ledger.handed.get();
                        if index >= handed {
                            return at;
                        }
                        if handed - index > 64 {
                            self.at = At::Passthrough;
                            return upto;
                        }
                        self.answered += 1;
                        if ledger.was_head(index) || head.status == 204 || head.status == 304 {
                            Body::None
                        } else if head.chunked {
                            Body::Chunked
                        } else {
                            head.content_length.map_or(Body::UntilClose, Body::Sized)
                        }
                    };
                    self.at = At::InHead {
                        left: head.len,
                        then: body,
                    };
                }
                At::InHead { left, then } => {
                    let step = left.min(rest.len());
                    at += step;
                    self.at = if step < left {
                        At::InHead {
                            left: left - step,
                            then,
                        }
                    } else {
                        match then {
                            Body::None | Body::Sized(0) => At::Head,
                            Body::Sized(left) => At::Sized { left },
                            Body::Chunked => At::ChunkSize { size: 0 },
                            Body::UntilClose => At::Passthrough,
                        }
                    };
                }
                At::Sized { left } => {
                    let step = left.min(rest.len() as u64);
                    at += step as usize;
                    self.at = if step < left {
                        At::Sized { left: left - step }
                    } else {
                        At::Head
                    };
                }
                At::ChunkData { left } => {
                    let step = left.min(rest.len() as u64);
                    at += step as usize;
                    self.at = if step < left {
                        At::ChunkData { left: left - step }
                    } else {
                        At::ChunkDataCr
                    };
                }
                // actix writes a chunk as `{size:X}\r\n{data}\r\n` and ends with `0\r\n\r\n`.
                At::ChunkSize { size } => {
                    let byte = rest[0];
                    at += 1;
                    self.at = match (byte as char).to_digit(16) {
                        Some(digit) => {
                            size.checked_mul(16)
                                .map_or(At::Passthrough, |size| At::ChunkSize {
                                    size: size + u64::from(digit),
                                })
                        }
                        None if byte == b'\r' => At::ChunkSizeLf { size },
                        None => At::Passthrough,
                    };
                }
                At::ChunkSizeLf { size } => {
                    at += 1;
                    self.at = match (rest[0], size) {
                        (b'\n', 0) => At::LastCr,
                        (b'\n', left) => At::ChunkData { left },
                        _ => At::Passthrough,
                    };
                }
                At::ChunkDataCr | At::ChunkDataLf | At::LastCr | At::LastLf => {
                    let (expected, next) = match self.at {
                        At::ChunkDataCr => (b'\r', At::ChunkDataLf),
                        At::ChunkDataLf => (b'\n', At::ChunkSize { size: 0 }),
                        At::LastCr => (b'\r', At::LastLf),
                        _ => (b'\n', At::Head),
                    };
                    at += 1;
                    self.at = if rest[0] == expected {
                        next
                    } else {
                        At::Passthrough
                    };
                }
            }
        }
        upto
    }
}

/// What the framing needs of a response head.
struct Head {
    /// Up to and including the blank line.
    len: usize,
    status: u16,
    content_length: Option<u64>,
    chunked: bool,
    has_content_type: bool,
}

/// Reads the response head at the start of `bytes`; `None` when it is not one or does not
/// end in `bytes`. On every response, so lean: a line is found with `memchr`, and only the
/// names that may matter are compared.
fn parse_head(bytes: &[u8]) -> Option<Head> {
    let mut lines = HeadLines { bytes, at: 0 };
    let status = status_of(lines.next()?)?;
    let mut head = Head {
        len: 0,
        status,
        content_length: None,
        chunked: false,
        has_content_type: false,
    };
    loop {
        let line = lines.next()?;
        match line.first() {
            None => {
                head.len = lines.at;
                return Some(head);
            }
            Some(b'c' | b'C' | b't' | b'T') => {}
            Some(_) => continue,
        }
        let colon = memchr::memchr(b':', line)?;
        let (name, value) = (&line[..colon], line[colon + 1..].trim_ascii());
        if name.eq_ignore_ascii_case(b"content-length") {
            head.content_length = Some(std::str::from_utf8(value).ok()?.parse().ok()?);
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            head.chunked = value
                .rsplit(|&byte| byte == b',')
                .next()
                .is_some_and(|coding| coding.trim_ascii().eq_ignore_ascii_case(b"chunked"));
        } else if name.eq_ignore_ascii_case(b"content-type") {
            head.has_content_type = true;
        }
    }
}

/// `HTTP/1.x NNN ...` to NNN.
fn status_of(line: &[u8]) -> Option<u16> {
    match line {
        [b'H', b'T', b'T', b'P', b'/', b'1', b'.', b'0' | b'1', b' ', a, b, c, ..]
            if a.is_ascii_digit() && b.is_ascii_digit() && c.is_ascii_digit() =>
        {
            Some(u16::from(a - b'0') * 100 + u16::from(b - b'0') * 10 + u16::from(c - b'0'))
        }
        _ => None,
    }
}

/// The CRLF-terminated lines of a head, without their CRLF; stops (`None`) at bytes that
/// do not end with one.
struct HeadLines<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Iterator for HeadLines<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let rest = &self.bytes[self.at..];
        let newline = memchr::memchr(b'\n', rest)?;
        let line = rest[..newline].strip_suffix(b"\r")?;
        self.at += newline + 1;
        Some(line)
    }
}

/// The problem that replaces the dispatcher's bodiless answer at the start of `buf`, and the
/// length of that answer's head; `None` when what starts there is not one.
fn problem_for(buf: &[u8], head_timeout_seconds: u64) -> Option<(usize, Vec<u8>)> {
    let head = parse_head(buf)?;
    if head.status < 400 || head.content_length != Some(0) || head.chunked || head.has_content_type
    {
        return None;
    }
    let status = StatusCode::from_u16(head.status).ok()?;
    let (code, detail) = match head.status {
        400 => (
            "malformed_request",
            "the request could not be parsed: its request line, a header or the framing of \
             its body is malformed (HTTP/1.1 also requires a Host header)"
                .to_owned(),
        ),
        408 => (
            "head_timeout",
            format!(
                "the request head did not arrive within {head_timeout_seconds} s of connecting"
            ),
        ),
        431 => (
            "headers_too_large",
            "the request head is larger than 128 KiB or has more than 96 header fields".to_owned(),
        ),
        500.. => (
            "internal_error",
            "internal error; it has been logged".to_owned(),
        ),
        _ => (
            "malformed_request",
            status
                .canonical_reason()
                .unwrap_or("bad request")
                .to_owned(),
        ),
    };
    let problem = Problem {
        type_uri: format!("urn:turnpost:problem:{code}"),
        title: status.canonical_reason().unwrap_or("Error").to_owned(),
        status: head.status,
        detail,
        code: code.to_owned(),
        rule: None,
        current_seq: None,
    };
    let body = serde_json::to_vec(&problem).ok()?;
    let mut lines = HeadLines { bytes: buf, at: 0 };
    let mut bytes = Vec::with_capacity(head.len + body.len() + 96);
    bytes.extend_from_slice(lines.next()?);
    bytes.extend_from_slice(b"\r\ncontent-type: application/problem+json\r\ncontent-length: ");
    bytes.extend_from_slice(body.len().to_string().as_bytes());
    bytes.extend_from_slice(b"\r\nconnection: close\r\n");
    while lines.at < head.len {
        let line = lines.next()?;
        let name = memchr::memchr(b':', line).map_or(line, |colon| &line[..colon]);
        if !line.is_empty()
            && !name.eq_ignore_ascii_case(b"content-length")
            && !name.eq_ignore_ascii_case(b"connection")
        {
            bytes.extend_from_slice(line);
            bytes.extend_from_slice(b"\r\n");
        }
    }
    bytes.extend_from_slice(b"\r\n");
    bytes.extend_from_slice(&body);
    Some((head.len, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `chunks` through a wrapper one `poll_write` at a time, as the dispatcher
    /// would (each chunk offered again from its first unwritten byte), with an inner stream
    /// that accepts at most `accept` bytes a call; returns what reached the inner stream.
    fn written(ledger_heads: &[bool], chunks: &[&[u8]], accept: usize) -> String {
        let mut io = ProblemIo::new(Limited::new(accept), 5);
        for &head in ledger_heads {
            io.ledger.record(head);
        }
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        for chunk in chunks {
            let mut at = 0;
            while at < chunk.len() {
                match Pin::new(&mut io).poll_write(&mut cx, &chunk[at..]) {
                    Poll::Ready(Ok(n)) => {
                        assert!(n > 0);
                        at += n;
                    }
                    other => panic!("{other:?}"),
                }
            }
        }
        String::from_utf8(io.io.out).unwrap()
    }

    struct Limited {
        out: Vec<u8>,
        accept: usize,
    }

    impl Limited {
        fn new(accept: usize) -> Self {
            Limited {
                out: Vec::new(),
                accept,
            }
        }
    }

    impl AsyncWrite for Limited {
        fn poll_write(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            let this = self.get_mut();
            let n = buf.len().min(this.accept);
            this.out.extend_from_slice(&buf[..n]);
            Poll::Ready(Ok(n))
        }

        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }

        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    const BAD: &[u8] =
        b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\ndate: D\r\n\r\n";

    fn problem_in(out: &str) -> (String, serde_json::Value) {
        let (head, body) = out.rsplit_once("\r\n\r\n").unwrap();
        (head.to_owned(), serde_json::from_str(body).unwrap())
    }

    #[test]
    fn the_dispatchers_answer_alone_becomes_a_problem() {
        for accept in [1, 7, 4096] {
            let out = written(&[], &[BAD], accept);
            let (head, problem) = problem_in(&out);
            assert!(head.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{head}");
            assert!(head.contains("content-type: application/problem+json\r\n"));
            assert!(head.contains("connection: close\r\n"));
            assert!(head.contains("\r\ndate: D"));
            assert!(!head.contains("content-length: 0"));
            assert_eq!(problem["code"], "malformed_request");
            assert_eq!(problem["status"], 400);
        }
    }

    #[test]
    fn answers_to_the_apps_requests_pass_unchanged_and_the_one_after_them_is_replaced() {
        let sized = b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\ndate: D\r\n\r\nHTTP/";
        let chunked = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n\
                        A\r\nHTTP/1.1 4\r\n3\r\n00 \r\n0\r\n\r\n";
        let head = b"HTTP/1.1 404 Not Found\r\ncontent-length: 99\r\n\
                     content-type: application/problem+json\r\n\r\n";
        let continued = b"HTTP/1.1 100 Continue\r\n\r\n";
        let empty = b"HTTP/1.1 304 Not Modified\r\ncontent-length: 0\r\n\r\n";
        let expected =
            String::from_utf8([&sized[..], chunked, head, continued, empty].concat()).unwrap();
        let app = [&sized[..], chunked, head, continued, empty];
        let ledger = [false, false, true, false];
        for accept in [1, 3, 50, 4096] {
            assert_eq!(
                written(&ledger, &app, accept),
                expected,
                "{accept} at a time"
            );
            // The dispatcher's answer after them, offered apart or in the same buffer.
            let mut apart = app.to_vec();
            apart.push(BAD);
            let together = [expected.as_bytes(), BAD].concat();
            for out in [
                written(&ledger, &apart, accept),
                written(&ledger, &[&together], accept),
            ] {
                let rest = out.strip_prefix(expected.as_str()).unwrap();
                let (_, problem) = problem_in(rest);
                assert_eq!(problem["code"], "malformed_request", "{accept} at a time");
            }
        }
    }

    #[test]
    fn an_answer_that_does_not_look_like_the_dispatchers_passes_and_ends_the_watch() {
        // An answer the ledger does not know (the middleware missing), with a body.
        let ok = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nhi";
        assert_eq!(
            written(&[], &[ok, BAD], 4096).as_bytes(),
            [&ok[..], BAD].concat()
        );
        // Bytes that are no head at all.
        assert_eq!(
            written(&[], &[b"junk", BAD], 4096).as_bytes(),
            [b"junk", BAD].concat()
        );
    }

    #[test]
    fn the_timeout_and_the_size_limit_have_their_codes() {
        let timeout = b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\ndate: D\r\n\r\n";
        let (_, problem) = problem_in(&written(&[], &[timeout], 4096));
        assert_eq!(problem["code"], "head_timeout");
        assert!(problem["detail"].as_str().unwrap().contains("5 s"));
        let large = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n\r\n";
        let (_, problem) = problem_in(&written(&[], &[large], 4096));
        assert_eq!(problem["code"], "headers_too_large");
        assert_eq!(problem["title"], "Request Header Fields Too Large");
    }
}
