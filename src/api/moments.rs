//! Moments in query parameters.

use crate::error::ApiError;

/// Milliseconds since the epoch of an RFC 3339 time.
pub fn moment(text: Option<&str>, name: &str) -> Result<Option<i64>, ApiError> {
    text.map(|text| {
        time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
            .map(|moment| (moment.unix_timestamp_nanos() / 1_000_000) as i64)
            .map_err(|_| {
                ApiError::bad_request(
                    "invalid_query",
                    format!("`{name}` must be an RFC 3339 time such as 2026-11-01T00:00:00Z"),
                )
            })
    })
    .transpose()
}
