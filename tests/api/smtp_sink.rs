//! A real SMTP server for the mail tests: Python's aiosmtpd (Debian's python3-aiosmtpd,
//! installed by `scripts/test` when missing) on a port of its own, storing what arrives in
//! a Maildir that the tests read back.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct SmtpSink {
    pub port: u16,
    maildir: tempfile::TempDir,
    process: Option<Child>,
}

/// One mail as it arrived: its header fields (unfolded, by lower-case name) and its body
/// (quoted-printable decoded).
#[derive(Debug, Clone)]
pub struct ArrivedMail {
    pub headers: HashMap<String, String>,
    pub body: String,
}

impl ArrivedMail {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    pub fn subject(&self) -> &str {
        self.header("subject").unwrap_or_default()
    }

    /// The first link in the body that starts with `prefix`.
    pub fn link(&self, prefix: &str) -> Option<String> {
        let start = self.body.find(prefix)?;
        let link: String = self.body[start..]
            .chars()
            .take_while(|c| !c.is_whitespace())
            .collect();
        Some(link)
    }
}

impl SmtpSink {
    pub fn start() -> SmtpSink {
        SmtpSink::start_on(crate::util::free_port())
    }

    /// A sink on `port` (again, after [`SmtpSink::stop`], to test a server that was down).
    pub fn start_on(port: u16) -> SmtpSink {
        let maildir = tempfile::tempdir().expect("a maildir");
        let mut sink = SmtpSink {
            port,
            maildir,
            process: None,
        };
        sink.spawn();
        sink
    }

    fn spawn(&mut self) {
        let python =
            std::env::var("TURNPOST_PYTHON3").unwrap_or_else(|_| "/usr/bin/python3".into());
        let process = Command::new(&python)
            .args(["-m", "aiosmtpd", "-n", "-l"])
            .arg(format!("127.0.0.1:{}", self.port))
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            .arg(self.maildir.path().join("mail"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| {
                panic!(
                    "the mail tests need {python} with aiosmtpd (Debian's python3-aiosmtpd; \
                     scripts/test installs it): {error}"
                )
            });
        self.process = Some(process);
        let until = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if let Some(Ok(Some(status))) = self.process.as_mut().map(Child::try_wait) {
                panic!(
                    "aiosmtpd ended at once ({status}): is python3-aiosmtpd installed? \
                     (scripts/test installs it)"
                );
            }
            assert!(Instant::now() < until, "aiosmtpd did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Stops the server; what arrived stays readable.
    pub fn stop(&mut self) {
        if let Some(mut process) = self.process.take() {
            let _ = process.kill();
            let _ = process.wait();
        }
    }

    /// Starts it again on the same port and Maildir.
    pub fn restart(&mut self) {
        self.stop();
        self.spawn();
    }

    fn files(&self) -> Vec<PathBuf> {
        let mut files: Vec<(std::time::SystemTime, PathBuf)> =
            std::fs::read_dir(self.maildir.path().join("mail").join("new"))
                .map(|entries| {
                    entries
                        .filter_map(Result::ok)
                        .map(|entry| {
                            let modified = entry
                                .metadata()
                                .and_then(|meta| meta.modified())
                                .unwrap_or(std::time::UNIX_EPOCH);
                            (modified, entry.path())
                        })
                        .collect()
                })
                .unwrap_or_default();
        files.sort();
        files.into_iter().map(|(_, path)| path).collect()
    }

    /// Every mail that arrived for `to`, in the order they arrived.
    pub fn mails_to(&self, to: &str) -> Vec<ArrivedMail> {
        self.files()
            .iter()
            .filter_map(|path| std::fs::read_to_string(path).ok())
            .map(|raw| parse(&raw))
            .filter(|mail| mail.header("to").is_some_and(|header| header.contains(to)))
            .collect()
    }

    /// Asserts that no mail arrived twice (by its Message-ID).
    pub fn assert_each_mail_once(&self) {
        let mut seen = std::collections::HashSet::new();
        for path in self.files() {
            let mail = parse(&std::fs::read_to_string(&path).unwrap_or_default());
            let id = mail.header("message-id").unwrap_or_default().to_owned();
            assert!(seen.insert(id.clone()), "{id} arrived twice: {mail:#?}");
        }
    }

    /// Waits up to 20 seconds until `count` mails arrived for `to`, and returns them all.
    pub async fn wait_for(&self, to: &str, count: usize) -> Vec<ArrivedMail> {
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let mails = self.mails_to(to);
            if mails.len() >= count || Instant::now() >= until {
                assert!(
                    mails.len() >= count,
                    "{count} mails to {to} expected, {} arrived: {mails:#?}",
                    mails.len()
                );
                return mails;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        self.stop();
    }
}

fn parse(raw: &str) -> ArrivedMail {
    let raw = raw.replace("\r\n", "\n");
    let (head, body) = raw.split_once("\n\n").unwrap_or((&raw, ""));
    let mut headers = HashMap::new();
    let mut current: Option<(String, String)> = None;
    for line in head.lines() {
        if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = current.as_mut() {
                value.push_str(line.trim_start());
            }
            continue;
        }
        if let Some((name, value)) = current.take() {
            headers.insert(name, value);
        }
        if let Some((name, value)) = line.split_once(':') {
            current = Some((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    if let Some((name, value)) = current {
        headers.insert(name, value);
    }
    let quoted_printable = headers
        .get("content-transfer-encoding")
        .is_some_and(|encoding| encoding.eq_ignore_ascii_case("quoted-printable"));
    let body = if quoted_printable {
        decode_quoted_printable(body)
    } else {
        body.to_owned()
    };
    ArrivedMail { headers, body }
}

fn decode_quoted_printable(text: &str) -> String {
    let joined = text.replace("=\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'=' && index + 2 < bytes.len() + 1 {
            if let Some(byte) = joined
                .get(index + 1..index + 3)
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
            {
                out.push(byte);
                index += 3;
                continue;
            }
        }
        out.push(bytes[index]);
        index += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
