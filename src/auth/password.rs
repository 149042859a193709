//! Password hashes (argon2id) under a hard bound. Each hash needs `memory_kib` of working
//! memory; an unbounded number of simultaneous sign-ins would allocate that much each and
//! exhaust the machine. So at most `parallel` hashes run at once, each on one of at most
//! `parallel` working buffers that are allocated once and reused (never returned to the
//! allocator, so the process does not grow with fragmentation), and at most `queue`
//! requests wait for a turn; beyond that the answer is 503 `server_busy` at once.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use argon2::password_hash::rand_core::{OsRng, RngCore};
use argon2::password_hash::{PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use tokio::sync::Semaphore;

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

pub struct Passwords {
    params: Params,
    parallel: usize,
    running: Arc<Semaphore>,
    waiting: Arc<AtomicUsize>,
    max_waiting: usize,
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
            running: Arc::new(Semaphore::new(limits.parallel.max(1))),
            waiting: Arc::new(AtomicUsize::new(0)),
            max_waiting: limits.queue,
            buffers: Arc::new(Mutex::new(Vec::new())),
            decoy_hash: String::new(),
        };
        let mut buffer = passwords.new_buffer();
        passwords.decoy_hash = hash_with(&passwords.params, "decoy password", &mut buffer)?;
        passwords.return_buffer(buffer);
        Ok(passwords)
    }

    /// The most working memory the hashes can hold at once, in bytes.
    pub fn memory_bound(&self) -> usize {
        self.parallel * self.params.m_cost() as usize * 1024
    }

    /// A new argon2id hash of `password` in PHC string form (salt and parameters included).
    pub async fn hash(&self, password: String) -> Result<String, ApiError> {
        let params = self.params.clone();
        self.run(move |buffer| hash_with(&params, &password, buffer))
            .await?
            .map_err(|error| ApiError::Internal(format!("password hashing failed: {error}")))
    }

    /// Whether `password` matches `stored`; with no stored hash (unknown name) the same
    /// work is done against a decoy and the answer is `false`.
    pub async fn verify(&self, password: String, stored: Option<String>) -> Result<bool, ApiError> {
        let known = stored.is_some();
        let stored = stored.unwrap_or_else(|| self.decoy_hash.clone());
        let matches = self
            .run(move |buffer| verify_with(&password, &stored, buffer))
            .await?;
        Ok(known && matches)
    }

    /// Runs `job` on a working buffer once a hash may start, off the async workers. The
    /// permit and the buffer go with the job, so a client that hangs up mid-hash frees
    /// neither before the work is done.
    async fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce(&mut Vec<Block>) -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        let permit = {
            let _queued = QueueSlot::take(&self.waiting, self.max_waiting)?;
            Arc::clone(&self.running)
                .acquire_owned()
                .await
                .map_err(|_| ApiError::Internal("the password gate is closed".into()))?
        };
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

/// One place in the queue of requests waiting to hash; refused when the queue is full.
struct QueueSlot<'a>(&'a AtomicUsize);

impl<'a> QueueSlot<'a> {
    fn take(waiting: &'a AtomicUsize, max: usize) -> Result<QueueSlot<'a>, ApiError> {
        if waiting.fetch_add(1, Ordering::SeqCst) >= max {
            waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(ApiError::Busy {
                detail: "too many sign-ins and registrations at once; try again in a moment"
                    .to_owned(),
                retry_after_seconds: 1,
            });
        }
        Ok(QueueSlot(waiting))
    }
}

impl Drop for QueueSlot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
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
        let hash = passwords.hash("correct horse".into()).await.unwrap();
        assert!(hash.starts_with("$argon2id$v=19$m=64,t=1,p=1$"), "{hash}");
        let verify = |password: &str, stored: Option<&str>| {
            passwords.verify(password.to_owned(), stored.map(str::to_owned))
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
            .verify("made elsewhere".into(), Some(stored.clone()))
            .await
            .unwrap());
        assert!(!passwords
            .verify("made elsewherE".into(), Some(stored))
            .await
            .unwrap());
    }

    #[actix_web::test]
    async fn a_full_queue_is_refused_at_once_and_buffers_stay_bounded() {
        let passwords = Arc::new(cheap());
        let attempts: Vec<_> = (0..40)
            .map(|index| {
                let passwords = Arc::clone(&passwords);
                actix_web::rt::spawn(
                    async move { passwords.hash(format!("password {index}")).await },
                )
            })
            .collect();
        let mut busy = 0;
        for attempt in attempts {
            match attempt.await.unwrap() {
                Ok(_) => {}
                Err(ApiError::Busy { .. }) => busy += 1,
                Err(other) => panic!("unexpected {other:?}"),
            }
        }
        assert!(busy > 0, "40 at once with room for 2 running and 4 waiting");
        assert!(lock(&passwords.buffers).len() <= 2);
        assert_eq!(passwords.waiting.load(Ordering::SeqCst), 0);
    }
}
