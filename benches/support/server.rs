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
        let data = tempfile::tempdir().expect("temp dir");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let address = format!("127.0.0.1:{port}");
        let child = Command::new(env!("CARGO_BIN_EXE_turnpost"))
            .args(["--bind", &address, "--log", "error", "--data-dir"])
            .arg(data.path())
            .args(extra)
            .stdout(Stdio::null())
            .spawn()
            .expect("the server starts");
        let started = Instant::now();
        while TcpStream::connect(&address).is_err() {
            assert!(started.elapsed() < Duration::from_secs(30), "no server");
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

    /// Resident memory now and at its peak, in MiB.
    #[allow(dead_code)] // each bench binary uses its part of this module
    pub fn memory_mib(&self) -> (u64, u64) {
        let status = self.status();
        let field = |name: &str| {
            status
                .lines()
                .find(|line| line.starts_with(name))
                .and_then(|line| line.split_whitespace().nth(1))
                .and_then(|kib| kib.parse::<u64>().ok())
                .map_or(0, |kib| kib / 1024)
        };
        (field("VmRSS:"), field("VmHWM:"))
    }

    /// CPU time the server has used so far (user and system), in seconds.
    #[allow(dead_code)]
    pub fn cpu_seconds(&self) -> f64 {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        // After the command name in parentheses: state is field 3, utime 14, stime 15.
        let after_name = stat.rsplit(") ").next().unwrap_or_default();
        let fields: Vec<&str> = after_name.split_whitespace().collect();
        let ticks = |index: usize| {
            fields
                .get(index)
                .and_then(|value| value.parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        // Linux reports in clock ticks of 1/100 s.
        (ticks(11) + ticks(12)) / 100.0
    }
}

impl Drop for Server {
    fn drop(&mut self) {
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

/// The value below which `fraction` of the samples lie.
pub fn percentile(samples: &mut [Duration], fraction: f64) -> Duration {
    if samples.is_empty() {
        return Duration::ZERO;
    }
    samples.sort();
    samples[((samples.len() - 1) as f64 * fraction) as usize]
}
