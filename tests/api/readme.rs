//! README.md's walkthrough with curl, run for real: `scripts/readme-examples --check` runs
//! every shell example of the section against a fresh server (this build's binary, so the
//! script builds nothing) and fails with a diff when an output the README shows drifted
//! from what the server prints. The script needs bash, curl and jq; `scripts/test`
//! installs curl and jq when they are missing. `scripts/readme-examples --write` puts a
//! run's outputs into the README.

use std::process::Command;
use std::time::Instant;

#[test]
fn the_readme_walkthrough_prints_what_the_readme_shows() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/readme-examples");
    let started = Instant::now();
    let output = Command::new("bash")
        .arg(script)
        .arg("--check")
        .env("TURNPOST_BIN", env!("CARGO_BIN_EXE_turnpost"))
        .output()
        .unwrap_or_else(|error| panic!("cannot run bash {script}: {error}"));
    let printed = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "README.md's walkthrough drifted from what the server prints (run \
         `scripts/readme-examples --write` to take a real run's outputs, and read the \
         diff before committing them):\n{printed}"
    );
    eprintln!(
        "README walkthrough checked in {:.1} s: {}",
        started.elapsed().as_secs_f64(),
        printed.trim()
    );
}
