//! The release server started as its own process on a free loopback port, for the
//! benchmarks that measure it from outside.

use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Server {
    child: Child,
    pub base: String,
    #[allow(dead_code)] // each bench binary uses its part of this module
    pub address: String,
    _data: tempfile::TempDir,
}

impl Server {
    /// Starts the server with these extra flags and waits until it accepts connections.
    pub fn start(extra: &[&str]) -> Server {
        Server::start_on("127.0.0.1", "127.0.0.1", extra)
    }

    /// Starts the server listening on `host` (`[::]` for IPv6 and IPv4 alike), reached on
    /// `reach` (`[::1]`).
    pub fn start_on(host: &str, reach: &str, extra: &[&str]) -> Server {
        let data = tempfile::tempdir().expect("temp dir");
        let port = std::net::TcpListener::bind(format!("{reach}:0"))
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let bind = format!("{host}:{port}");
        let address = format!("{reach}:{port}");
        // `BENCH_SERVER_WRAPPER` runs the server under a tool (`scripts/profile-step` counts
        // its instructions with valgrind's callgrind).
        let wrapper = std::env::var("BENCH_SERVER_WRAPPER").unwrap_or_default();
        let mut command = wrapper.split_whitespace();
        let mut child = match command.next() {
            Some(tool) => {
                let mut wrapped = Command::new(tool);
                wrapped.args(command).arg(env!("CARGO_BIN_EXE_turnpost"));
                wrapped
            }
            None => Command::new(env!("CARGO_BIN_EXE_turnpost")),
        };
        let child = child
            .args(["--bind", &bind, "--log", "error", "--data-dir"])
            .arg(data.path())
            .args(extra)
            .stdout(Stdio::null())
            .spawn()
            .expect("the server starts");
        let started = Instant::now();
        while TcpStream::connect(&address).is_err() {
            assert!(started.elapsed() < Duration::from_secs(120), "no server");
            std::thread::sleep(Duration::from_millis(50));
        }
        Server {
            child,
            base: format!("http://{address}"),
            address,
            _data: data,
        }
    }

    fn status(&self) -> String {
        std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default()
    }

    /// A number of the process's status (memory in KiB).
    fn status_number(&self, name: &str) -> u64 {
        self.status()
            .lines()
            .find(|line| line.starts_with(name))
            .and_then(|line| line.split_whitespace().nth(1))
            .and_then(|kib| kib.parse::<u64>().ok())
            .unwrap_or(0)
    }

    /// Resident memory now and at its peak, in MiB.
    #[allow(dead_code)] // each bench binary uses its part of this module
    pub fn memory_mib(&self) -> (u64, u64) {
        (
            self.status_number("VmRSS:") / 1024,
            self.status_number("VmHWM:") / 1024,
        )
    }

    /// Resident memory now, in KiB.
    #[allow(dead_code)]
    pub fn resident_kib(&self) -> u64 {
        self.status_number("VmRSS:")
    }

    /// The part of the resident memory in transparent huge pages, in KiB.
    #[allow(dead_code)]
    pub fn huge_pages_kib(&self) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/smaps_rollup", self.child.id()))
            .unwrap_or_default()
            .lines()
            .find(|line| line.starts_with("AnonHugePages:"))
            .and_then(|line| line.split_whitespace().nth(1))
            .and_then(|kib| kib.parse().ok())
            .unwrap_or(0)
    }

    /// The server's threads now.
    #[allow(dead_code)]
    pub fn threads(&self) -> u64 {
        self.status_number("Threads:")
    }

    /// CPU time the server has used so far (user and system), in seconds.
    #[allow(dead_code)]
    pub fn cpu_seconds(&self) -> f64 {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        process_cpu(&stat).map_or(0.0, |(_, seconds)| seconds)
    }
}

/// A process's command name and the CPU time (user and system) it has used, in seconds,
/// from the text of its `/proc/<pid>/stat`.
#[allow(dead_code)]
pub fn process_cpu(stat: &str) -> Option<(&str, f64)> {
    let open = stat.find('(')?;
    let close = stat.rfind(") ")?;
    // After the command name in parentheses: state is field 3, utime 14, stime 15.
    let fields: Vec<&str> = stat[close + 2..].split_whitespace().collect();
    let ticks = |index: usize| {
        fields
            .get(index)
            .and_then(|value| value.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // Linux reports in clock ticks of 1/100 s.
    Some((&stat[open + 1..close], (ticks(11) + ticks(12)) / 100.0))
}

impl Drop for Server {
    fn drop(&mut self) {
        if std::env::var_os("BENCH_SERVER_WRAPPER").is_some() {
            // A tool writes its findings when the server ends by itself: ask it to stop.
            let _ = Command::new("kill")
                .args(["-TERM", &self.child.id().to_string()])
                .status();
            let asked = Instant::now();
            while asked.elapsed() < Duration::from_secs(60) {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Registers `name` (password `correct horse battery`) and signs it in; returns the token.
#[allow(dead_code)]
pub async fn sign_up(client: &reqwest::Client, base: &str, name: &str) -> String {
    let credentials = serde_json::json!({"name": name, "password": "correct horse battery"});
    client
        .post(format!("{base}/v1/accounts"))
        .json(&credentials)
        .send()
        .await
        .expect("register");
    let answer: serde_json::Value = client
        .post(format!("{base}/v1/tokens"))
        .json(&credentials)
        .send()
        .await
        .expect("sign in")
        .json()
        .await
        .expect("token");
    answer["token"].as_str().expect("a token").to_owned()
}

/// A fresh database `name` on the PostgreSQL server of `admin_url` (dropped first if a
/// run before left it), so every run starts empty; returns its URL.
#[allow(dead_code)]
pub fn fresh_database(admin_url: &str, name: &str) -> String {
    use diesel::connection::SimpleConnection;
    use diesel::Connection;
    drop_database(admin_url, name);
    diesel::PgConnection::establish(admin_url)
        .expect("postgres")
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .expect("a database for the run");
    let (base, query) = admin_url.split_once('?').unwrap_or((admin_url, ""));
    let server_part = base.rsplit_once('/').map_or(base, |(server, _)| server);
    let query = if query.is_empty() {
        String::new()
    } else {
        format!("?{query}")
    };
    format!("{server_part}/{name}{query}")
}

/// Drops the database `name` if it exists, with any connection a run's servers left behind,
/// so that runs against a shared PostgreSQL leave nothing and start empty.
#[allow(dead_code)]
pub fn drop_database(admin_url: &str, name: &str) {
    use diesel::connection::SimpleConnection;
    use diesel::Connection;
    let dropped = match diesel::PgConnection::establish(admin_url) {
        Ok(mut admin) => admin
            .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .map_err(|error| error.to_string()),
        Err(error) => Err(error.to_string()),
    };
    if let Err(error) = dropped {
        eprintln!("the database {name} stays: {error}");
    }
}

/// The value below which `fraction` of the samples lie.
pub fn percentile(samples: &mut [Duration], fraction: f64) -> Duration {
    if samples.is_empty() {
        return Duration::ZERO;
    }
    samples.sort();
    samples[((samples.len() - 1) as f64 * fraction) as usize]
}

/// Sends `request` and returns its JSON answer; panics on anything but a success.
#[allow(dead_code)]
pub async fn answer(request: reqwest::RequestBuilder, what: &str) -> serde_json::Value {
    let response = request
        .send()
        .await
        .unwrap_or_else(|error| panic!("{what}: {error}"));
    let status = response.status();
    let body = response.text().await.unwrap_or_default();
    assert!(status.is_success(), "{what}: {status} {body}");
    serde_json::from_str(&body).unwrap_or_else(|error| panic!("{what}: {error} in {body}"))
}

/// The machine's load averages over 1, 5 and 15 minutes, to tell a quiet run from a busy one.
#[allow(dead_code)]
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}
