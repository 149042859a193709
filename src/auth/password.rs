//! Password hashes (argon2id) under a hard bound. Each hash needs `memory_kib` of working
//! memory; an unbounded number of simultaneous sign-ins would allocate that much each and
//! exhaust the machine. So at most `parallel` hashes run at once, each on one of at most
//! `parallel` working buffers that are allocated once and reused (never returned to the
//! allocator, so the process does not grow with fragmentation), and at most `queue`
//! requests wait for a turn; beyond that the answer is 503 `server_busy` at once.
//!
//! Waiting is fair between clients (an address, or an account for a password change): each
//! may have at most [`WAITING_PER_CLIENT`] requests waiting (beyond that it alone gets 429),
//! and the turns go round the clients that wait, so one client's flood cannot push another
//! client's sign-in behind it or out of the queue.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use argon2::password_hash::rand_core::{OsRng, RngCore};
use argon2::password_hash::{PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use tokio::sync::oneshot;

use crate::error::ApiError;

/// The cost of one hash: OWASP's argon2id recommendation (19 MiB, 2 passes, 1 lane).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PasswordCost {
    pub memory_kib: u32,
    pub iterations: u32,
}

impl Default for PasswordCost {
    fn default() -> Self {
        PasswordCost {
            memory_kib: Params::DEFAULT_M_COST,
            iterations: Params::DEFAULT_T_COST,
        }
    }
}

/// How many hashes may run and wait at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PasswordLimits {
    pub parallel: usize,
    pub queue: usize,
}

const HASH_BYTES: usize = 32;

/// Requests one client may have waiting for a hash at once.
pub const WAITING_PER_CLIENT: usize = 4;

pub struct Passwords {
    params: Params,
    parallel: usize,
    turns: Arc<FairTurns>,
    buffers: Arc<Mutex<Vec<Vec<Block>>>>,
    /// Verified instead of a stored hash when the name is unknown, so that a sign-in takes
    /// as long for a name nobody has as for a wrong password.
    decoy_hash: String,
}

impl Passwords {
    pub fn new(cost: PasswordCost, limits: PasswordLimits) -> Result<Passwords, String> {
        let params = Params::new(cost.memory_kib, cost.iterations, 1, Some(HASH_BYTES))
            .map_err(|error| format!("password hash parameters: {error}"))?;
        let mut passwords = Passwords {
            params,
            parallel: limits.parallel.max(1),
            turns: Arc::new(FairTurns::new(limits.parallel.max(1), limits.queue)),
            buffers: Arc::new(Mutex::new(Vec::new())),
            decoy_hash: String::new(),
        };
        let mut buffer = passwords.new_buffer();
        passwords.decoy_hash = hash_with(&passwords.params, "decoy password", &mut buffer)?;
        passwords.return_buffer(buffer);
        Ok(passwords)
    }

    /// The most hashes that run at once, each on a blocking thread of its own.
    pub fn most_at_once(&self) -> usize {
        self.parallel
    }

    /// The most working memory the hashes can hold at once, in bytes.
    pub fn memory_bound(&self) -> usize {
        self.parallel * self.params.m_cost() as usize * 1024
    }

    /// A new argon2id hash of `password` in PHC string form (salt and parameters included),
    /// computed in `client`'s turn.
    pub async fn hash(&self, client: &str, password: String) -> Result<String, ApiError> {
        let params = self.params.clone();
        self.run(client, move |buffer| hash_with(&params, &password, buffer))
            .await?
            .map_err(|error| ApiError::Internal(format!("password hashing failed: {error}")))
    }

    /// Whether `password` matches `stored`; with no stored hash (unknown name) the same
    /// work is done against a decoy and the answer is `false`.
    pub async fn verify(
        &self,
        client: &str,
        password: String,
        stored: Option<String>,
    ) -> Result<bool, ApiError> {
        let known = stored.is_some();
        let stored = stored.unwrap_or_else(|| self.decoy_hash.clone());
        let matches = self
            .run(client, move |buffer| {
                verify_with(&password, &stored, buffer)
            })
            .await?;
        Ok(known && matches)
    }

    /// Runs `job` on a working buffer once a hash may start, off the async workers. The
    /// permit and the buffer go with the job, so a client that hangs up mid-hash frees
    /// neither before the work is done.
    async fn run<T: Send + 'static>(
        &self,
        client: &str,
        job: impl FnOnce(&mut Vec<Block>) -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        let permit = FairTurns::wait_for_turn(&self.turns, client).await?;
        let mut buffer = self.take_buffer();
        let buffers = Arc::clone(&self.buffers);
        actix_web::web::block(move || {
            let result = job(&mut buffer);
            lock(&buffers).push(buffer);
            drop(permit);
            result
        })
        .await
        .map_err(ApiError::from)
    }

    fn new_buffer(&self) -> Vec<Block> {
        vec![Block::default(); self.params.m_cost() as usize]
    }

    fn take_buffer(&self) -> Vec<Block> {
        lock(&self.buffers)
            .pop()
            .unwrap_or_else(|| self.new_buffer())
    }

    fn return_buffer(&self, buffer: Vec<Block>) {
        lock(&self.buffers).push(buffer);
    }
}

fn lock(buffers: &Mutex<Vec<Vec<Block>>>) -> std::sync::MutexGuard<'_, Vec<Vec<Block>>> {
    buffers
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Who may hash now: at most `parallel` at once; the others wait in one queue per client,
/// served in rotation.
struct FairTurns {
    parallel: usize,
    max_waiting: usize,
    state: Mutex<TurnState>,
}

#[derive(Default)]
struct TurnState {
    running: usize,
    waiting: usize,
    queues: HashMap<String, VecDeque<oneshot::Sender<Turn>>>,
    /// Clients with requests waiting, the next to be served first.
    rotation: VecDeque<String>,
}

/// A turn at hashing; the next waiting client gets it when this is dropped.
struct Turn {
    turns: Option<Arc<FairTurns>>,
}

impl Drop for Turn {
    fn drop(&mut self) {
        if let Some(turns) = self.turns.take() {
            turns.pass_on();
        }
    }
}

impl FairTurns {
    fn new(parallel: usize, max_waiting: usize) -> FairTurns {
        FairTurns {
            parallel,
            max_waiting,
            state: Mutex::new(TurnState::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, TurnState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A turn for `client`: at once if one is free and nobody waits, else in rotation.
    async fn wait_for_turn(turns: &Arc<FairTurns>, client: &str) -> Result<Turn, ApiError> {
        let granted = {
            let mut state = turns.lock();
            if state.running < turns.parallel && state.waiting == 0 {
                state.running += 1;
                return Ok(Turn {
                    turns: Some(Arc::clone(turns)),
                });
            }
            let queued = state.queues.get(client).map_or(0, VecDeque::len);
            if queued >= WAITING_PER_CLIENT {
                return Err(ApiError::too_many(
                    "rate_limited",
                    format!(
                        "{WAITING_PER_CLIENT} password checks of yours are already waiting; \
                         try again in a moment"
                    ),
                    1,
                ));
            }
            if state.waiting >= turns.max_waiting {
                return Err(ApiError::Busy {
                    detail: "too many sign-ins and registrations at once; try again in a moment"
                        .to_owned(),
                    retry_after_seconds: 1,
                });
            }
            let (sender, granted) = oneshot::channel();
            if queued == 0 {
                state.rotation.push_back(client.to_owned());
            }
            state
                .queues
                .entry(client.to_owned())
                .or_default()
                .push_back(sender);
            state.waiting += 1;
            granted
        };
        granted
            .await
            .map_err(|_| ApiError::Internal("the password queue was dropped".into()))
    }

    /// Hands a finished turn to the next client in rotation (skipping requests whose
    /// client hung up), or frees it.
    fn pass_on(self: Arc<Self>) {
        let mut state = self.lock();
        loop {
            let Some(client) = state.rotation.pop_front() else {
                state.running -= 1;
                return;
            };
            let Some(queue) = state.queues.get_mut(&client) else {
                continue;
            };
            let next = queue.pop_front();
            if queue.is_empty() {
                state.queues.remove(&client);
            } else {
                state.rotation.push_back(client);
            }
            let Some(next) = next else { continue };
            state.waiting -= 1;
            let turn = Turn {
                turns: Some(Arc::clone(&self)),
            };
            match next.send(turn) {
                Ok(()) => return,
                // Hung up while waiting: the turn goes on to the next without being freed.
                Err(mut unwanted) => unwanted.turns = None,
            }
        }
    }
}

fn argon2(params: Params) -> Argon2<'static> {
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

fn hash_with(params: &Params, password: &str, buffer: &mut Vec<Block>) -> Result<String, String> {
    let mut salt = [0u8; 16];
    OsRng.fill_bytes(&mut salt);
    let salt = SaltString::encode_b64(&salt).map_err(|error| error.to_string())?;
    let mut output = [0u8; HASH_BYTES];
    let mut raw_salt = [0u8; 64];
    let raw_salt = salt
        .decode_b64(&mut raw_salt)
        .map_err(|error| error.to_string())?;
    fit(buffer, params);
    argon2(params.clone())
        .hash_password_into_with_memory(password.as_bytes(), raw_salt, &mut output, &mut *buffer)
        .map_err(|error| error.to_string())?;
    let hash = argon2::password_hash::Output::new(&output).map_err(|error| error.to_string())?;
    Ok(format!(
        "$argon2id$v=19$m={},t={},p={}${}${}",
        params.m_cost(),
        params.t_cost(),
        params.p_cost(),
        salt.as_str(),
        hash
    ))
}

fn verify_with(password: &str, stored: &str, buffer: &mut Vec<Block>) -> bool {
    let Ok(parsed) = PasswordHash::new(stored) else {
        return false;
    };
    let (Ok(params), Some(salt), Some(expected)) =
        (Params::try_from(&parsed), parsed.salt, parsed.hash)
    else {
        return false;
    };
    let mut raw_salt = [0u8; 64];
    let Ok(raw_salt) = salt.decode_b64(&mut raw_salt) else {
        return false;
    };
    let mut output = vec![0u8; expected.len()];
    fit(buffer, &params);
    let computed = argon2(params).hash_password_into_with_memory(
        password.as_bytes(),
        raw_salt,
        &mut output,
        &mut *buffer,
    );
    // Output compares in constant time.
    computed.is_ok()
        && argon2::password_hash::Output::new(&output).is_ok_and(|output| output == expected)
}

/// A stored hash made with more memory than the pool's buffers (after the cost was
/// lowered) gets a buffer of its size.
fn fit(buffer: &mut Vec<Block>, params: &Params) {
    let needed = params.m_cost() as usize;
    if buffer.len() < needed {
        buffer.resize(needed, Block::default());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cheap() -> Passwords {
        Passwords::new(
            PasswordCost {
                memory_kib: 64,
                iterations: 1,
            },
            PasswordLimits {
                parallel: 2,
                queue: 4,
            },
        )
        .unwrap()
    }

    #[actix_web::test]
    async fn a_hash_verifies_its_password_and_nothing_else() {
        let passwords = cheap();
        let hash = passwords.hash("me", "correct horse".into()).await.unwrap();
        assert!(hash.starts_with("$argon2id$v=19$m=64,t=1,p=1$"), "{hash}");
        let verify = |password: &str, stored: Option<&str>| {
            passwords.verify("me", password.to_owned(), stored.map(str::to_owned))
        };
        assert!(verify("correct horse", Some(&hash)).await.unwrap());
        assert!(!verify("correct horsE", Some(&hash)).await.unwrap());
        assert!(!verify("correct horse", Some("not a hash")).await.unwrap());
        assert!(!verify("decoy password", None).await.unwrap());
    }

    #[actix_web::test]
    async fn hashes_of_the_argon2_crate_verify_too() {
        use argon2::password_hash::PasswordHasher;
        let salt = SaltString::generate(&mut OsRng);
        let stored = Argon2::default()
            .hash_password(b"made elsewhere", &salt)
            .unwrap()
            .to_string();
        let passwords = cheap();
        assert!(passwords
            .verify("me", "made elsewhere".into(), Some(stored.clone()))
            .await
            .unwrap());
        assert!(!passwords
            .verify("me", "made elsewherE".into(), Some(stored))
            .await
            .unwrap());
    }

    fn waiting(passwords: &Passwords) -> usize {
        passwords.turns.lock().waiting
    }

    #[actix_web::test]
    async fn a_full_queue_is_refused_at_once_and_buffers_stay_bounded() {
        let passwords = Arc::new(cheap());
        let attempts: Vec<_> = (0..40)
            .map(|index| {
                let passwords = Arc::clone(&passwords);
                actix_web::rt::spawn(async move {
                    let client = format!("client {}", index % 10);
                    passwords.hash(&client, format!("password {index}")).await
                })
            })
            .collect();
        let mut busy = 0;
        for attempt in attempts {
            match attempt.await.unwrap() {
                Ok(_) => {}
                Err(ApiError::Busy { .. } | ApiError::TooManyRequests { .. }) => busy += 1,
                Err(other) => panic!("unexpected {other:?}"),
            }
        }
        assert!(busy > 0, "40 at once with room for 2 running and 4 waiting");
        assert!(lock(&passwords.buffers).len() <= 2);
        assert_eq!(waiting(&passwords), 0);
        assert_eq!(passwords.turns.lock().running, 0);
    }

    #[actix_web::test]
    async fn one_clients_flood_waits_its_turn_behind_others() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let passwords = Arc::new(
            Passwords::new(
                PasswordCost {
                    memory_kib: 8 * 1024,
                    iterations: 2,
                },
                PasswordLimits {
                    parallel: 1,
                    queue: 64,
                },
            )
            .unwrap(),
        );
        let flood_done = Arc::new(AtomicUsize::new(0));
        let flood: Vec<_> = (0..12)
            .map(|index| {
                let (passwords, flood_done) = (Arc::clone(&passwords), Arc::clone(&flood_done));
                actix_web::rt::spawn(async move {
                    let result = passwords.hash("flooder", format!("password {index}")).await;
                    flood_done.fetch_add(1, Ordering::SeqCst);
                    result
                })
            })
            .collect();
        // Every request of the flood is in (running, waiting or refused) before mine.
        for _ in 0..3 {
            tokio::task::yield_now().await;
        }
        let mine = passwords.hash("someone else", "mine".into()).await;
        let done_before_mine = flood_done.load(Ordering::SeqCst);
        assert!(mine.is_ok(), "{mine:?}");
        let mut refused = 0;
        for attempt in flood {
            if matches!(
                attempt.await.unwrap(),
                Err(ApiError::TooManyRequests { .. })
            ) {
                refused += 1;
            }
        }
        // One running and four waiting; the rest of the flood was refused, not queued. Of
        // those five, at most the running one and the next in rotation went first.
        assert_eq!(refused, 12 - 1 - WAITING_PER_CLIENT);
        assert!(
            done_before_mine <= refused + 2,
            "{done_before_mine} went first"
        );
        assert_eq!(waiting(&passwords), 0);
    }
}
