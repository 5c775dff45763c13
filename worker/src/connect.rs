//! Reaching a coordinator: its URL, TLS, and the bearer token on every
//! request. Shared by the worker process and the client commands.

use std::path::PathBuf;
use std::time::Duration;

use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Request, Status};

/// Where a coordinator is and how to prove who we are.
#[derive(Clone, Debug, Default)]
pub struct Target {
    /// As given: `http://HOST:PORT`, `https://...`, or a bare `HOST:PORT`.
    pub url: String,
    pub token: Option<String>,
    /// The CA certificate (PEM) to trust for an `https://` URL.
    pub tls_ca: Option<PathBuf>,
}

/// Why a coordinator cannot be reached as asked (not a network failure:
/// those are retried).
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("--coordinator {given:?}: the scheme {scheme}:// is not one verdict speaks; give http://HOST:PORT or https://HOST:PORT")]
    Scheme { given: String, scheme: String },
    #[error("--coordinator {0:?} is not a URL")]
    NotAUrl(String),
    #[error(
        "an https:// coordinator needs --tls-ca (the CA certificate that signed its certificate)"
    )]
    NoCa,
    #[error("--tls-ca {path}: {source}")]
    Ca {
        path: String,
        source: std::io::Error,
    },
    #[error("TLS configuration: {0}")]
    Tls(tonic::transport::Error),
    #[error("the token must be printable ASCII")]
    Token,
}

/// The URL as given, with `http://` added to a bare `host:port`; another
/// scheme is refused at once (a worker would otherwise retry a URL that can
/// never work, forever).
///
/// # Errors
/// A scheme other than http and https.
pub fn url(given: &str) -> Result<String, ConnectError> {
    match given.split_once("://") {
        None => Ok(format!("http://{given}")),
        Some(("http" | "https", _)) => Ok(given.to_string()),
        Some((scheme, _)) => Err(ConnectError::Scheme {
            given: given.to_string(),
            scheme: scheme.to_string(),
        }),
    }
}

/// An endpoint for the coordinator (TLS when the URL is https://).
///
/// # Errors
/// A URL or TLS setting that cannot work.
pub fn endpoint(t: &Target) -> Result<Endpoint, ConnectError> {
    let url = url(&t.url)?;
    let mut ep = Endpoint::from_shared(url.clone())
        .map_err(|_| ConnectError::NotAUrl(t.url.clone()))?
        .connect_timeout(Duration::from_secs(5))
        .tcp_nodelay(true)
        // A link that drops packets (a partition, a coordinator whose
        // address went away) leaves the connection open and every request
        // on it hanging until its timeout, again and again: HTTP/2 pings
        // find it dead within 20 s, and the channel connects anew.
        .http2_keep_alive_interval(Duration::from_secs(10))
        .keep_alive_timeout(Duration::from_secs(10))
        .keep_alive_while_idle(true);
    if let Some(ca) = &t.tls_ca {
        let pem = std::fs::read(ca).map_err(|source| ConnectError::Ca {
            path: ca.display().to_string(),
            source,
        })?;
        ep = ep
            .tls_config(ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem)))
            .map_err(ConnectError::Tls)?;
    } else if url.starts_with("https:") {
        return Err(ConnectError::NoCa);
    }
    Ok(ep)
}

/// Adds the bearer token to every request a client sends.
#[derive(Clone, Debug)]
pub struct AddToken(Option<MetadataValue<Ascii>>);

impl AddToken {
    /// # Errors
    /// A token that cannot be sent as a header value.
    pub fn new(token: Option<&str>) -> Result<AddToken, ConnectError> {
        Ok(AddToken(match token {
            None => None,
            Some(t) => Some(
                format!("Bearer {t}")
                    .parse()
                    .map_err(|_| ConnectError::Token)?,
            ),
        }))
    }
}

impl tonic::service::Interceptor for AddToken {
    fn call(&mut self, mut req: Request<()>) -> Result<Request<()>, Status> {
        if let Some(t) = &self.0 {
            req.metadata_mut().insert("authorization", t.clone());
        }
        Ok(req)
    }
}

/// A channel that adds the token to every request.
pub type Authed = InterceptedService<Channel, AddToken>;

/// `channel` with `t`'s token on every request.
///
/// # Errors
/// A token that cannot be sent.
pub fn authed(channel: Channel, t: &Target) -> Result<Authed, ConnectError> {
    Ok(InterceptedService::new(
        channel,
        AddToken::new(t.token.as_deref())?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_get_a_scheme_or_are_refused() {
        assert_eq!(url("127.0.0.1:7070").unwrap(), "http://127.0.0.1:7070");
        assert_eq!(url("https://c:1").unwrap(), "https://c:1");
        assert!(matches!(url("ftp://c:1"), Err(ConnectError::Scheme { .. })));
        let t = Target {
            url: "https://c:1".into(),
            ..Target::default()
        };
        assert!(matches!(endpoint(&t), Err(ConnectError::NoCa)));
    }
}
