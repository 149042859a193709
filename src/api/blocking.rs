//! Blocking work (database, password hashing, folding) runs off the async workers.

use actix_web::web;

use crate::error::ApiError;

/// Runs blocking work (database, password hashing, folding) off the async workers.
pub async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    web::block(work).await?
}
