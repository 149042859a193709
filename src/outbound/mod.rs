//! Calls the server makes to addresses its users chose (webhooks): only to globally
//! reachable addresses, each checked on the lookup the connection uses.

pub mod addresses;
pub mod resolver;

use std::sync::Arc;
use std::time::Duration;

pub use addresses::AddressPolicy;
pub use resolver::{HostLookup, Refusal, SharedLookup};

/// How long a name lookup may take before the call is given up.
pub const LOOKUP_TIMEOUT: Duration = Duration::from_secs(3);

/// Where outgoing calls may go and how names are looked up.
#[derive(Clone)]
pub struct Outbound {
    pub policy: AddressPolicy,
    pub lookup: Arc<dyn HostLookup>,
}

impl std::fmt::Debug for Outbound {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Outbound")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

/// Why a URL is not one the server calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlProblem {
    /// Not an absolute http(s) URL with a host and without credentials.
    Malformed(&'static str),
    Refused(Refusal),
}

impl std::fmt::Display for UrlProblem {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UrlProblem::Malformed(reason) => formatter.write_str(reason),
            UrlProblem::Refused(Refusal::NotPublic) => formatter.write_str(
                "the URL's host is (or resolves to) an address that is not public; this \
                 server only calls public ones",
            ),
            UrlProblem::Refused(refusal) => write!(formatter, "the URL's host: {refusal}"),
        }
    }
}

impl Outbound {
    /// Checks `url` as a webhook address: form, and (looked up now, within
    /// [`LOOKUP_TIMEOUT`]) its host's addresses. A later call looks the name up again
    /// through [`Outbound::client`], which judges that lookup in the same way.
    pub async fn check_url(&self, url: &str) -> Result<reqwest::Url, UrlProblem> {
        let parsed = parse_url(url)?;
        match parsed.host() {
            Some(url::Host::Domain(name)) => {
                resolver::resolve_checked(&*self.lookup, &self.policy, name, LOOKUP_TIMEOUT)
                    .await
                    .map_err(UrlProblem::Refused)?;
            }
            _ => self.check_literal(&parsed)?,
        }
        Ok(parsed)
    }

    /// Checks a URL whose host is an address written out: the client does not look those
    /// up, so its resolver never sees them.
    pub fn check_literal(&self, url: &reqwest::Url) -> Result<(), UrlProblem> {
        let address = match url.host() {
            Some(url::Host::Ipv4(v4)) => std::net::IpAddr::V4(v4),
            Some(url::Host::Ipv6(v6)) => std::net::IpAddr::V6(v6),
            Some(url::Host::Domain(_)) => return Ok(()),
            None => return Err(UrlProblem::Malformed("the URL has no host")),
        };
        if self.policy.permits(address) {
            Ok(())
        } else {
            Err(UrlProblem::Refused(Refusal::NotPublic))
        }
    }

    /// An HTTP client for calls to users' addresses: names resolved through the checked
    /// resolver, no proxy from the environment (it would be the proxy's address that is
    /// checked), no redirects (a receiver could point them anywhere).
    pub fn client(&self, timeout: Duration) -> reqwest::Result<reqwest::Client> {
        reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(5)))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .dns_resolver(Arc::new(resolver::CheckedResolver {
                lookup: Arc::clone(&self.lookup),
                policy: self.policy.clone(),
                timeout: LOOKUP_TIMEOUT,
            }))
            .build()
    }
}

/// An absolute `http` or `https` URL with a host and no credentials.
pub fn parse_url(url: &str) -> Result<reqwest::Url, UrlProblem> {
    let parsed = reqwest::Url::parse(url).map_err(|_| UrlProblem::Malformed("not a URL"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(UrlProblem::Malformed("the URL must be http or https"));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(UrlProblem::Malformed("the URL must not carry credentials"));
    }
    if parsed.host().is_none() {
        return Err(UrlProblem::Malformed("the URL has no host"));
    }
    Ok(parsed)
}

/// What an account is told about a call that failed: a category, never the transport's
/// message (which would say whether some address answers).
pub fn failure_category(error: &reqwest::Error) -> &'static str {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = source {
        if let Some(refusal) = current.downcast_ref::<Refusal>() {
            return refusal.category();
        }
        source = current.source();
    }
    if error.is_timeout() {
        "timeout"
    } else {
        "no connection"
    }
}
