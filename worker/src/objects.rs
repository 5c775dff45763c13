//! Corpora and results in object storage: `s3://bucket/prefix` (Amazon S3
//! and S3-compatible servers), configured from the standard environment
//! (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`,
//! `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP=true`); `gs://bucket/prefix` (Google
//! Cloud Storage: `GOOGLE_SERVICE_ACCOUNT` or `GOOGLE_SERVICE_ACCOUNT_KEY`,
//! else the machine's application default credentials) and
//! `az://container/prefix` (Azure Blob Storage: `AZURE_STORAGE_ACCOUNT_NAME`
//! with `AZURE_STORAGE_ACCOUNT_KEY`, or a service principal's
//! `AZURE_STORAGE_CLIENT_ID`, `_CLIENT_SECRET` and `_TENANT_ID`), from the
//! same crate.
//!
//! The rest of verdict works on files, so this module meets it there:
//! - an object to read is streamed into a temporary file that is unlinked
//!   at once ([`Store::spool`]): the engine maps it like any input, the
//!   memory it costs is page cache, and the disk it costs is given back when
//!   the engine closes it, one input at a time. A byte range of a large
//!   collection (a shard's part) is fetched with a ranged GET into a sparse
//!   file at its own offsets, so the SGF reader resumes there as in a local
//!   file and nothing outside the range is read;
//! - results are written locally as `verdict run` writes them, then
//!   published to the bucket ([`publish`]): `_SUCCESS` removed, each part
//!   under a name of this run's, created only if absent (conditional put;
//!   multipart for large parts), the summaries, then `_SUCCESS` with the
//!   manifest, and only then the previous run's parts removed.
//!
//! Requests are retried with backoff on throttling and server errors (the
//! object_store client's policy, bounded by `VERDICT_OBJECT_RETRY_SECONDS`,
//! default 60). Every failure names the URL and what to check.
//!
//! The calls block: verdict's engine is threads, not tasks. They run on a
//! small runtime of their own, so they may be called from any thread that
//! is not itself driving async tasks.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use futures_util::StreamExt;
use object_store::aws::AmazonS3Builder;
use object_store::azure::MicrosoftAzureBuilder;
use object_store::gcp::GoogleCloudStorageBuilder;
use object_store::list::{PaginatedListOptions, PaginatedListStore};
use object_store::path::Path as Key;
use object_store::{
    GetOptions, GetRange, ObjectMeta, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload,
    RetryConfig, WriteMultipart,
};

/// An object store verdict reads and writes, by its URL scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// `s3://`: Amazon S3 and S3-compatible servers.
    S3,
    /// `gs://`: Google Cloud Storage.
    Gcs,
    /// `az://`: Azure Blob Storage (the "bucket" is a container).
    Azure,
}

impl Scheme {
    const ALL: [Scheme; 3] = [Scheme::S3, Scheme::Gcs, Scheme::Azure];

    /// `s3://`, `gs://` or `az://`.
    pub fn prefix(self) -> &'static str {
        match self {
            Scheme::S3 => "s3://",
            Scheme::Gcs => "gs://",
            Scheme::Azure => "az://",
        }
    }

    /// What configures its client, for messages.
    fn configured_by(self) -> &'static str {
        match self {
            Scheme::S3 => "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
            Scheme::Gcs => "GOOGLE_SERVICE_ACCOUNT (a key file) or GOOGLE_SERVICE_ACCOUNT_KEY",
            Scheme::Azure => "AZURE_STORAGE_ACCOUNT_NAME and AZURE_STORAGE_ACCOUNT_KEY",
        }
    }

    fn of(url: &str) -> Option<Scheme> {
        Scheme::ALL
            .into_iter()
            .find(|s| url.starts_with(s.prefix()))
    }
}

/// Parts larger than this are uploaded in pieces of this size.
const MULTIPART_BYTES: usize = 8 << 20;

/// Whether a path as given on the command line is an object-store URL.
pub fn is_url(path: &Path) -> bool {
    path.to_str().and_then(Scheme::of).is_some()
}

/// `s3://bucket/key` (or `gs://`, `az://`), split.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ObjectUrl {
    pub scheme: Scheme,
    pub bucket: String,
    /// Without a leading `/`; may be empty (the whole bucket).
    pub key: String,
}

impl ObjectUrl {
    /// # Errors
    /// Not an `s3://bucket/...`, `gs://bucket/...` or `az://container/...`
    /// URL.
    pub fn parse(path: &Path) -> Result<ObjectUrl, ObjectError> {
        let s = path.to_str().unwrap_or_default();
        let scheme = Scheme::of(s)
            .ok_or_else(|| ObjectError::new(s, "only s3://, gs:// and az:// URLs are supported"))?;
        let rest = &s[scheme.prefix().len()..];
        let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            let what = if scheme == Scheme::Azure {
                "container: write az://CONTAINER/PREFIX".to_string()
            } else {
                format!("bucket: write {}BUCKET/PREFIX", scheme.prefix())
            };
            return Err(ObjectError::new(s, format!("the URL names no {what}")));
        }
        Ok(ObjectUrl {
            scheme,
            bucket: bucket.to_string(),
            key: key.trim_matches('/').to_string(),
        })
    }

    /// The URL of `key` in the same bucket.
    pub fn with_key(&self, key: &str) -> ObjectUrl {
        ObjectUrl {
            scheme: self.scheme,
            bucket: self.bucket.clone(),
            key: key.to_string(),
        }
    }

    /// `key/name`.
    pub fn join(&self, name: &str) -> ObjectUrl {
        if self.key.is_empty() {
            self.with_key(name)
        } else {
            self.with_key(&format!("{}/{name}", self.key))
        }
    }

    /// As a path, for the places that carry input names (`InputFile`).
    pub fn to_path(&self) -> PathBuf {
        PathBuf::from(self.to_string())
    }
}

impl std::fmt::Display for ObjectUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scheme = self.scheme.prefix();
        if self.key.is_empty() {
            write!(f, "{scheme}{}", self.bucket)
        } else {
            write!(f, "{scheme}{}/{}", self.bucket, self.key)
        }
    }
}

/// Why an object could not be read or written, with what to check.
#[derive(Debug, thiserror::Error)]
#[error("{url}: {message}")]
pub struct ObjectError {
    pub url: String,
    pub message: String,
    /// An object written already under that name (a conditional put).
    pub exists: bool,
}

impl ObjectError {
    pub(crate) fn new(url: impl std::fmt::Display, message: impl Into<String>) -> ObjectError {
        ObjectError {
            url: url.to_string(),
            message: message.into(),
            exists: false,
        }
    }

    /// The store's error, explained.
    fn of(url: impl std::fmt::Display, e: &object_store::Error) -> ObjectError {
        let url = url.to_string();
        let scheme = Scheme::of(&url).unwrap_or(Scheme::S3);
        let credentials = scheme.configured_by();
        let endpoint = std::env::var("AWS_ENDPOINT_URL")
            .or_else(|_| std::env::var("AWS_ENDPOINT"))
            .unwrap_or_else(|_| "the AWS default".into());
        let chain = {
            let mut s = e.to_string();
            let mut src = std::error::Error::source(e);
            while let Some(inner) = src {
                let t = inner.to_string();
                if !s.contains(&t) {
                    s.push_str(": ");
                    s.push_str(&t);
                }
                src = inner.source();
            }
            s
        };
        let hint = match e {
            object_store::Error::NotFound { .. } => {
                "not found: check the bucket and the prefix (`aws s3 ls` on the URL lists it)"
                    .to_string()
            }
            object_store::Error::AlreadyExists { .. }
            | object_store::Error::Precondition { .. } => {
                "written already by another run (objects are created once)".to_string()
            }
            object_store::Error::PermissionDenied { .. }
            | object_store::Error::Unauthenticated { .. } => {
                format!("access refused: check {credentials} (and the bucket's policy)")
            }
            _ if scheme != Scheme::S3
                && (chain.contains("must be specified")
                    || chain.contains("Missing")
                    || chain.contains("service account")
                    || chain.contains("credential")) =>
            {
                format!("the client cannot be configured: set {credentials}")
            }
            _ if chain.contains("NoSuchBucket") => {
                "no such bucket: check its name, and AWS_ENDPOINT_URL for S3-compatible servers"
                    .to_string()
            }
            // Before the access checks: the client's refusal of an
            // http:// endpoint names the URL, whose port may hold "403".
            _ if chain.contains("builder error")
                || chain.contains("URL scheme is not allowed")
                || chain.contains("HTTP") && chain.contains("allow") =>
            {
                format!("cannot use the endpoint {endpoint}: for a plain http:// endpoint set AWS_ALLOW_HTTP=true")
            }
            _ if chain.contains("InvalidAccessKeyId")
                || chain.contains("SignatureDoesNotMatch")
                || has_status(&chain, "403")
                || chain.contains("Forbidden") =>
            {
                format!("access refused: check {credentials} (and the bucket's policy)")
            }
            _ if scheme != Scheme::S3
                && (chain.contains("connect")
                    || chain.contains("dns")
                    || chain.contains("timed out")
                    || chain.contains("error sending request")) =>
            {
                format!("cannot reach the store: check the network, and {credentials}")
            }
            _ if chain.contains("connect")
                || chain.contains("dns")
                || chain.contains("timed out")
                || chain.contains("error sending request") =>
            {
                format!("cannot reach the endpoint {endpoint}: check AWS_ENDPOINT_URL and the network (AWS_ALLOW_HTTP=true for http://)")
            }
            _ => "the object store refused".to_string(),
        };
        ObjectError {
            url: url.to_string(),
            message: format!("{hint} ({chain})"),
            exists: matches!(
                e,
                object_store::Error::AlreadyExists { .. }
                    | object_store::Error::Precondition { .. }
            ),
        }
    }
}

/// The runtime object requests run on.
/// Whether `chain` holds the HTTP status `code` as a word of its own: not
/// a part of a longer number, a port (`:33403`) or a duration.
fn has_status(chain: &str, code: &str) -> bool {
    chain.match_indices(code).any(|(i, _)| {
        let before = chain[..i].chars().next_back();
        let after = chain[i + code.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == ':' || c == '.')
            && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '.')
    })
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("verdict-objects")
            .enable_all()
            .build()
            .expect("starting the object-store runtime")
    })
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    runtime().block_on(f)
}

/// What a bucket's client is to us: a store of objects, and a lister in
/// pages of the size we ask for ([`Store::list_all`]). object_store's S3,
/// GCS and Azure clients are both.
trait Client: ObjectStore + PaginatedListStore {}

impl<T: ObjectStore + PaginatedListStore> Client for T {}

/// One bucket's client.
#[derive(Clone, Debug)]
pub struct Store {
    scheme: Scheme,
    bucket: String,
    inner: Arc<dyn Client>,
    /// The keys a listing asks for in one page ([`Store::list_all`]).
    page_keys: usize,
}

/// The client of `url`'s bucket (one per bucket, shared).
///
/// # Errors
/// The environment does not configure a client (a bad endpoint URL, say).
pub fn store(url: &ObjectUrl) -> Result<Store, ObjectError> {
    static STORES: OnceLock<Mutex<HashMap<String, Store>>> = OnceLock::new();
    let stores = STORES.get_or_init(Default::default);
    let mut stores = stores.lock().unwrap_or_else(|e| e.into_inner());
    let name = format!("{}{}", url.scheme.prefix(), url.bucket);
    if let Some(s) = stores.get(&name) {
        return Ok(s.clone());
    }
    let retry_seconds = std::env::var("VERDICT_OBJECT_RETRY_SECONDS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .unwrap_or(60.0);
    let retry = RetryConfig {
        max_retries: if retry_seconds == 0.0 { 0 } else { 10 },
        retry_timeout: Duration::from_secs_f64(retry_seconds),
        ..RetryConfig::default()
    };
    let shown = url.with_key("");
    let failed = |e: object_store::Error| ObjectError::of(&shown, &e);
    let inner: Arc<dyn Client> = match url.scheme {
        Scheme::S3 => {
            let mut builder = AmazonS3Builder::from_env()
                .with_bucket_name(&url.bucket)
                .with_retry(retry);
            // AWS_REGION is what the AWS tools read; object_store wants a
            // region even for S3-compatible servers, which ignore it.
            if std::env::var_os("AWS_REGION").is_none()
                && std::env::var_os("AWS_DEFAULT_REGION").is_none()
            {
                builder = builder.with_region("us-east-1");
            }
            Arc::new(builder.build().map_err(failed)?)
        }
        Scheme::Gcs => Arc::new(
            GoogleCloudStorageBuilder::from_env()
                .with_bucket_name(&url.bucket)
                .with_retry(retry)
                .build()
                .map_err(failed)?,
        ),
        Scheme::Azure => Arc::new(
            MicrosoftAzureBuilder::from_env()
                .with_container_name(&url.bucket)
                .with_retry(retry)
                .build()
                .map_err(failed)?,
        ),
    };
    let s = Store {
        scheme: url.scheme,
        bucket: url.bucket.clone(),
        inner,
        page_keys: list_page_keys(),
    };
    stores.insert(name, s.clone());
    Ok(s)
}

/// An object found by [`Store::list`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    pub url: ObjectUrl,
    pub size: u64,
    /// The store's ETag, when it gives one.
    pub etag: Option<String>,
}

impl Store {
    fn url(&self, key: &str) -> ObjectUrl {
        ObjectUrl {
            scheme: self.scheme,
            bucket: self.bucket.clone(),
            key: key.to_string(),
        }
    }

    /// This client, listing in pages of `keys` keys (at least one).
    #[must_use]
    pub fn with_page_keys(mut self, keys: usize) -> Store {
        self.page_keys = keys.max(1);
        self
    }

    /// Every object under `prefix` (a folder: `prefix/...`), sorted by key.
    ///
    /// A listing is pages, each asked for after the last came back: a
    /// million objects are a thousand round trips of 1,000 keys before
    /// anything is read. So the folders under `prefix` (one level, found
    /// with a delimiter; down through a folder that is all there is, a few
    /// levels) are listed at once, eight at a time, and a corpus kept in
    /// folders lists in the time of its biggest folder. And pages are asked
    /// for as big as the store will give (`VERDICT_LIST_PAGE_KEYS`, default
    /// 100,000 keys).
    ///
    /// # Errors
    /// The listing is refused.
    pub fn list(&self, prefix: &str) -> Result<Vec<Listed>, ObjectError> {
        let key = Key::from(prefix);
        let shown = self.url(prefix);
        let fail = |e: object_store::Error| ObjectError::of(&shown, &e);
        let metas: Vec<ObjectMeta> = block_on(async {
            let mut out = Vec::new();
            let mut base = (!prefix.is_empty()).then_some(key);
            let mut folders = Vec::new();
            for depth in 0..=LIST_DESCENT {
                let (objects, below) = self.list_all(base.as_ref(), true).await.map_err(fail)?;
                out.extend(objects);
                folders = below;
                if folders.len() != 1 || depth == LIST_DESCENT {
                    break;
                }
                base = folders.pop();
            }
            let mut lists = futures_util::stream::iter(folders)
                .map(|folder| async move { self.list_all(Some(&folder), false).await })
                .buffer_unordered(LIST_FOLDERS_AT_ONCE);
            while let Some(listed) = lists.next().await {
                out.extend(listed.map_err(fail)?.0);
            }
            Ok::<_, ObjectError>(out)
        })?;
        let mut out: Vec<Listed> = metas
            .into_iter()
            .map(|m| Listed {
                url: self.url(m.location.as_ref()),
                size: m.size,
                etag: m.e_tag,
            })
            .collect();
        out.sort_by(|a, b| a.url.key.cmp(&b.url.key));
        Ok(out)
    }

    /// The objects under the folder `prefix` (the bucket's root if none),
    /// and with `one_level` the folders in it instead of what they hold.
    ///
    /// Pages of `VERDICT_LIST_PAGE_KEYS` keys (default 100,000) are asked
    /// for, far more than the 1,000 a page holds by default. AWS S3,
    /// Google Cloud Storage, Azure and MinIO give at most their own page
    /// size whatever is asked (the S3 API lets a page hold fewer keys than
    /// asked for); servers that give more save the round trips, and some
    /// (s3s-fs) walk the whole folder for every page, so that a big folder
    /// in pages of 1,000 costs them time quadratic in its size.
    async fn list_all(
        &self,
        prefix: Option<&Key>,
        one_level: bool,
    ) -> object_store::Result<(Vec<ObjectMeta>, Vec<Key>)> {
        // The paginated API adds no delimiter to the prefix: "a/" keeps
        // "ab/..." out of the folder "a".
        let prefix = prefix.map(|p| format!("{p}/"));
        let (mut objects, mut folders) = (Vec::new(), Vec::new());
        let mut page_token = None;
        loop {
            let page = self
                .inner
                .list_paginated(
                    prefix.as_deref(),
                    PaginatedListOptions {
                        delimiter: one_level.then_some("/".into()),
                        max_keys: Some(self.page_keys),
                        page_token,
                        ..PaginatedListOptions::default()
                    },
                )
                .await?;
            objects.extend(page.result.objects);
            folders.extend(page.result.common_prefixes);
            match page.page_token {
                Some(next) => page_token = Some(next),
                None => return Ok((objects, folders)),
            }
        }
    }

    /// Whether the bucket answers a listing of `prefix` (one page is
    /// asked for, however much the prefix holds): checked before work
    /// whose result would have nowhere to go.
    ///
    /// # Errors
    /// The listing is refused: no such bucket, no access, no endpoint.
    pub fn probe(&self, prefix: &str) -> Result<(), ObjectError> {
        let key = Key::from(prefix);
        let shown = self.url(prefix);
        block_on(async {
            let mut stream = self
                .inner
                .list(if prefix.is_empty() { None } else { Some(&key) });
            match stream.next().await {
                Some(Err(e)) => Err(ObjectError::of(&shown, &e)),
                _ => Ok(()),
            }
        })
    }

    /// The size of one object, `None` when there is none.
    ///
    /// # Errors
    /// The request is refused for another reason.
    pub fn size(&self, key: &str) -> Result<Option<u64>, ObjectError> {
        Ok(self.head(key)?.map(|l| l.size))
    }

    /// The object `key` as a listing shows it (size and ETag); `None` when
    /// there is none.
    ///
    /// # Errors
    /// The store cannot be asked.
    pub fn head(&self, key: &str) -> Result<Option<Listed>, ObjectError> {
        let k = Key::from(key);
        match block_on(self.inner.head(&k)) {
            Ok(m) => Ok(Some(Listed {
                url: self.url(key),
                size: m.size,
                etag: m.e_tag,
            })),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(ObjectError::of(self.url(key), &e)),
        }
    }

    /// The object `key` (its `range`, or all of it) in an unlinked
    /// temporary file, at the object's own offsets: a range leaves the
    /// bytes before it as a hole.
    ///
    /// # Errors
    /// The object cannot be read, or the temporary file written.
    pub fn spool(&self, key: &str, range: Option<Range<u64>>) -> Result<File, ObjectError> {
        block_on(self.spool_async(key.to_string(), range))
    }

    async fn spool_async(
        &self,
        key: String,
        range: Option<Range<u64>>,
    ) -> Result<File, ObjectError> {
        let key = key.as_str();
        let url = self.url(key);
        let mut file = temp_file().map_err(|e| {
            ObjectError::new(
                &url,
                format!(
                    "cannot make a temporary file in {} to read it into: {e} (set TMPDIR to a folder with room)",
                    std::env::temp_dir().display()
                ),
            )
        })?;
        let io = |e: std::io::Error| {
            ObjectError::new(
                &url,
                format!("cannot write the temporary copy: {e} (set TMPDIR to a folder with room)"),
            )
        };
        let k = Key::from(key);
        if let Some(r) = &range {
            file.set_len(r.start).map_err(io)?;
            file.seek(SeekFrom::Start(r.start)).map_err(io)?;
        }
        let options = GetOptions {
            range: range.clone().map(GetRange::Bounded),
            ..GetOptions::default()
        };
        let got = self
            .inner
            .get_opts(&k, options)
            .await
            .map_err(|e| ObjectError::of(&url, &e))?;
        let mut stream = got.into_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| ObjectError::of(&url, &e))?;
            file.write_all(&chunk).map_err(io)?;
        }
        file.flush().map_err(io)?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        Ok(file)
    }

    /// Writes `bytes` as `key`; with `create`, only if there is no such
    /// object yet.
    ///
    /// # Errors
    /// Refused, or (with `create`) written already: [`ObjectError::exists`].
    pub fn put(&self, key: &str, bytes: Vec<u8>, create: bool) -> Result<(), ObjectError> {
        let k = Key::from(key);
        let options = PutOptions {
            mode: if create {
                PutMode::Create
            } else {
                PutMode::Overwrite
            },
            ..PutOptions::default()
        };
        block_on(self.inner.put_opts(&k, PutPayload::from(bytes), options))
            .map(|_| ())
            .map_err(|e| ObjectError::of(self.url(key), &e))
    }

    /// Uploads the local file `from` as `key`: one conditional put when
    /// small, a multipart upload of `MULTIPART_BYTES` pieces when large
    /// (read a piece at a time).
    ///
    /// # Errors
    /// The file cannot be read, or the store refuses.
    pub fn upload(&self, from: &Path, key: &str, create: bool) -> Result<(), ObjectError> {
        let url = self.url(key);
        let io = |e: std::io::Error| {
            ObjectError::new(&url, format!("cannot read {}: {e}", from.display()))
        };
        let mut file = File::open(from).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        if len as usize <= MULTIPART_BYTES {
            let mut bytes = Vec::with_capacity(len as usize);
            file.read_to_end(&mut bytes).map_err(io)?;
            return self.put(key, bytes, create);
        }
        if create && self.size(key)?.is_some() {
            return Err(ObjectError {
                exists: true,
                ..ObjectError::new(
                    &url,
                    "written already by another run (objects are created once)",
                )
            });
        }
        let k = Key::from(key);
        block_on(async {
            let upload = self
                .inner
                .put_multipart(&k)
                .await
                .map_err(|e| ObjectError::of(&url, &e))?;
            let mut w = WriteMultipart::new_with_chunk_size(upload, MULTIPART_BYTES);
            let mut buf = vec![0u8; MULTIPART_BYTES];
            loop {
                let n = file.read(&mut buf).map_err(io)?;
                if n == 0 {
                    break;
                }
                w.wait_for_capacity(4)
                    .await
                    .map_err(|e| ObjectError::of(&url, &e))?;
                w.write(&buf[..n]);
            }
            w.finish().await.map_err(|e| ObjectError::of(&url, &e))?;
            Ok::<_, ObjectError>(())
        })
    }

    /// Removes `key` (no error when it is gone already).
    ///
    /// # Errors
    /// Refused.
    pub fn delete(&self, key: &str) -> Result<(), ObjectError> {
        match block_on(self.inner.delete(&Key::from(key))) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(ObjectError::of(self.url(key), &e)),
        }
    }

    /// The bytes of a small object, `None` when there is none.
    ///
    /// # Errors
    /// Refused for another reason.
    pub fn read(&self, key: &str) -> Result<Option<Vec<u8>>, ObjectError> {
        let k = Key::from(key);
        match block_on(async { self.inner.get(&k).await?.bytes().await }) {
            Ok(b) => Ok(Some(b.to_vec())),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(ObjectError::of(self.url(key), &e)),
        }
    }
}

/// A temporary file, already unlinked: it goes when it is closed.
fn temp_file() -> std::io::Result<File> {
    let dir = std::env::temp_dir();
    for _ in 0..16 {
        let path = dir.join(format!(
            ".verdict-object-{}-{:016x}",
            std::process::id(),
            crate::ids::random_u64()
        ));
        match File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => {
                std::fs::remove_file(&path)?;
                return Ok(f);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free temporary name"))
}

/// Opens the object an input names (`s3://bucket/key`), or its `range`.
///
/// # Errors
/// As [`Store::spool`].
pub fn open(path: &Path, range: Option<Range<u64>>) -> Result<File, ObjectError> {
    let url = ObjectUrl::parse(path)?;
    store(&url)?.spool(&url.key, range)
}

/// An object as fetched: small whole objects in memory (no temporary
/// file to create, which costs more than the GET on a fast server),
/// others spooled ([`Store::spool`]).
#[derive(Debug)]
pub enum Fetched {
    Bytes(Vec<u8>),
    File(File),
}

/// Objects up to this size are fetched into memory.
pub const IN_MEMORY_BYTES: u64 = 4 << 20;

impl Store {
    async fn fetch_async(
        &self,
        key: String,
        range: Option<Range<u64>>,
        size: u64,
        in_memory: bool,
    ) -> Result<Fetched, ObjectError> {
        let whole = range.as_ref().is_none_or(|r| r.start == 0);
        if !(in_memory && whole && size <= IN_MEMORY_BYTES) {
            return self.spool_async(key, range).await.map(Fetched::File);
        }
        let url = self.url(&key);
        let options = GetOptions {
            range: range.map(GetRange::Bounded),
            ..GetOptions::default()
        };
        let got = self
            .inner
            .get_opts(&Key::from(key.as_str()), options)
            .await
            .map_err(|e| ObjectError::of(&url, &e))?;
        let bytes = got.bytes().await.map_err(|e| ObjectError::of(&url, &e))?;
        Ok(Fetched::Bytes(bytes.to_vec()))
    }
}

/// The keys a listing asks for in one page, `VERDICT_LIST_PAGE_KEYS` if
/// set (1,000 for a store that refuses bigger pages), else 100,000.
fn list_page_keys() -> usize {
    std::env::var("VERDICT_LIST_PAGE_KEYS")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(100_000)
}

/// Folders listed at once by [`Store::list`].
const LIST_FOLDERS_AT_ONCE: usize = 8;

/// How many levels [`Store::list`] goes down through a folder that holds
/// everything under its parent, looking for folders to list at once.
const LIST_DESCENT: usize = 3;

/// Objects fetched ahead of the reader, in its order: a corpus of many
/// small objects is read at the store's throughput, not one round trip
/// per object. At most [`Prefetch::WINDOW`] objects and
/// [`Prefetch::WINDOW_BYTES`] are fetched or being fetched ahead (small
/// ones in memory, others spooled to unlinked temporary files, so the
/// waiting ones cost disk, not memory), at most [`Prefetch::IN_FLIGHT`]
/// requests at once: enough to keep the store busy while the analysis
/// works on the games before them, few enough not to open a connection
/// per object.
#[derive(Debug)]
pub struct Prefetch {
    todo: std::collections::VecDeque<Wanted>,
    ahead: std::collections::VecDeque<Ahead>,
    bytes_ahead: u64,
    requests: Arc<tokio::sync::Semaphore>,
}

#[derive(Debug)]
struct Ahead {
    path: PathBuf,
    range: Option<Range<u64>>,
    bytes: u64,
    task: tokio::task::JoinHandle<Result<Fetched, ObjectError>>,
}

/// One object the reader will ask for.
#[derive(Debug)]
pub struct Wanted {
    pub path: PathBuf,
    pub range: Option<Range<u64>>,
    /// About how many bytes it is.
    pub bytes: u64,
    /// Whether it may be held in memory (not an archive, read as a file).
    pub in_memory: bool,
}

impl Prefetch {
    pub const WINDOW: usize = 8192;
    pub const WINDOW_BYTES: u64 = 256 << 20;
    pub const IN_FLIGHT: usize = 32;

    /// Starts fetching the first of `items` (object URLs, the part each
    /// reads, and about how many bytes that is), in the order they will be
    /// asked for.
    pub fn new(items: impl IntoIterator<Item = Wanted>) -> Prefetch {
        let mut p = Prefetch {
            todo: items.into_iter().collect(),
            ahead: Default::default(),
            bytes_ahead: 0,
            requests: Arc::new(tokio::sync::Semaphore::new(Self::IN_FLIGHT)),
        };
        p.fill();
        p
    }

    fn fill(&mut self) {
        while self.ahead.len() < Self::WINDOW
            && (self.ahead.is_empty() || self.bytes_ahead < Self::WINDOW_BYTES)
        {
            let Some(Wanted {
                path,
                range,
                bytes,
                in_memory,
            }) = self.todo.pop_front()
            else {
                return;
            };
            let (p, r) = (path.clone(), range.clone());
            let requests = self.requests.clone();
            let task = runtime().spawn(async move {
                // Spawned in the reader's order, and the semaphore is
                // fair: the objects are fetched in that order too.
                let _turn = requests.acquire_owned().await;
                let url = ObjectUrl::parse(&p)?;
                store(&url)?
                    .fetch_async(url.key.clone(), r, bytes, in_memory)
                    .await
            });
            self.bytes_ahead += bytes;
            self.ahead.push_back(Ahead {
                path,
                range,
                bytes,
                task,
            });
        }
    }

    /// The object `path` (its `range`), if it is the next one fetched;
    /// `None` when it was not asked for in this order (open it directly).
    pub fn take(
        &mut self,
        path: &Path,
        range: &Option<Range<u64>>,
    ) -> Option<Result<Fetched, ObjectError>> {
        let next = self.ahead.front()?;
        if next.path != path || &next.range != range {
            return None;
        }
        let next = self.ahead.pop_front().expect("looked at");
        self.bytes_ahead -= next.bytes;
        let got = block_on(next.task).unwrap_or_else(|e| {
            Err(ObjectError::new(
                path.display(),
                format!("the fetch stopped: {e}"),
            ))
        });
        self.fill();
        Some(got)
    }
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        for a in &self.ahead {
            a.task.abort();
        }
    }
}

/// A published output in a bucket: what [`publish`] did.
#[derive(Debug)]
pub struct Published {
    pub parts: usize,
    pub removed: usize,
}

/// Publishes the finished local output `local` (as `verdict run` wrote
/// it: `games/`, the summaries, `_SUCCESS`, perhaps `report.html`) to
/// `out`, under part names of `run`'s: `_SUCCESS` is removed first, the
/// parts are created (never replacing an object), then the summaries and
/// the report, then `_SUCCESS` with the manifest naming the new parts;
/// the previous output's parts are removed last. A reader that follows
/// `_SUCCESS` sees one whole output, old or new.
///
/// # Errors
/// The local output is not complete, or the store refuses; what was
/// published before then stays readable through its parts (and its
/// `_SUCCESS` was removed, so no reader takes a mix for complete).
pub fn publish(local: &Path, out: &ObjectUrl, run: &str) -> Result<Published, ObjectError> {
    use crate::publish::{GAMES, MARKER};
    let s = store(out)?;
    let marker_path = local.join(MARKER);
    let marker = std::fs::read(&marker_path).map_err(|e| {
        ObjectError::new(
            out,
            format!(
                "cannot read the local output {}: {e}",
                marker_path.display()
            ),
        )
    })?;
    let mut manifest: serde_json::Value = serde_json::from_slice(&marker)
        .map_err(|e| ObjectError::new(out, format!("the local manifest does not parse: {e}")))?;
    // Each part under a name of this run's: (local file, key).
    let mut uploads = Vec::new();
    if let Some(parts) = manifest["parts"].as_array_mut() {
        for (n, p) in parts.iter_mut().enumerate() {
            let rel = p["path"].as_str().unwrap_or_default().to_string();
            let name = format!("part-{run}-{n:05}.parquet");
            uploads.push((local.join(&rel), out.join(GAMES).join(&name).key));
            p["path"] = format!("{GAMES}/{name}").into();
        }
    }
    manifest["location"] = out.to_string().into();
    let removed = replace_output(
        &s,
        out,
        || {
            for (file, key) in &uploads {
                s.upload(file, key, true)?;
            }
            Ok(uploads.iter().map(|(_, k)| k.clone()).collect())
        },
        local,
        &manifest,
    )?;
    Ok(Published {
        parts: uploads.len(),
        removed,
    })
}

/// The one way an output in a bucket is replaced, for a run and for a job:
/// `_SUCCESS` is removed (from here the output says it is in flux), `put`
/// places the new parts and returns their keys, the summaries (and the
/// report, if `files` holds one; else the old one goes, as it described
/// the output replaced) are put from the local folder `files`, then
/// `_SUCCESS` with `manifest`, and only then the previous parts are
/// removed. Returns how many were.
fn replace_output(
    s: &Store,
    out: &ObjectUrl,
    put: impl FnOnce() -> Result<Vec<String>, ObjectError>,
    files: &Path,
    manifest: &serde_json::Value,
) -> Result<usize, ObjectError> {
    use crate::publish::{GAMES, MARKER, REPORT, SUMMARY_JSON, SUMMARY_PARQUET};
    let old = s.list(&format!("{}/", out.join(GAMES).key))?;
    s.delete(&out.join(MARKER).key)?;
    let kept = put()?;
    for name in [SUMMARY_JSON, SUMMARY_PARQUET, REPORT] {
        let path = files.join(name);
        if path.exists() {
            s.upload(&path, &out.join(name).key, false)?;
        } else if name == REPORT {
            s.delete(&out.join(name).key)?;
        }
    }
    let text = serde_json::to_vec_pretty(manifest).expect("JSON of plain values");
    s.put(&out.join(MARKER).key, text, false)?;
    let mut removed = 0;
    for o in old {
        if !kept.contains(&o.url.key) && o.url.key.ends_with(".parquet") {
            s.delete(&o.url.key)?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// A local folder that is removed when dropped, however its work ends:
/// parts and summaries on their way to a bucket.
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl Scratch {
    /// A new folder `.verdict-NAME-PID-RANDOM` in the temporary folder
    /// (`TMPDIR`), resolved.
    ///
    /// # Errors
    /// It cannot be made.
    pub fn new(name: &str) -> std::io::Result<Scratch> {
        let dir = std::env::temp_dir().join(format!(
            ".verdict-{name}-{}-{:016x}",
            std::process::id(),
            crate::ids::random_u64()
        ));
        std::fs::create_dir_all(&dir)?;
        Ok(Scratch(crate::confined::resolve(&dir)?))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_status_is_a_word_not_a_port_or_a_number() {
        use super::has_status;
        assert!(has_status("Client error with status 403 Forbidden", "403"));
        assert!(has_status("status: 403", "403"));
        assert!(!has_status(
            "GET http://127.0.0.1:33403/empty?list-type=2",
            "403"
        ));
        assert!(!has_status("GET http://127.0.0.1:4030/x", "403"));
        assert!(!has_status("in 1403 ms", "403"));
        assert!(!has_status("in 403.2µs", "403"));
    }

    use super::*;

    #[test]
    fn urls_parse_and_say_what_is_wrong() {
        let u = ObjectUrl::parse(Path::new("s3://corpora/kgs/2020/")).unwrap();
        assert_eq!(u.bucket, "corpora");
        assert_eq!(u.key, "kgs/2020");
        assert_eq!(u.join("a.sgf").to_string(), "s3://corpora/kgs/2020/a.sgf");
        let whole = ObjectUrl::parse(Path::new("s3://corpora")).unwrap();
        assert_eq!(whole.key, "");
        assert_eq!(whole.join("a.sgf").to_string(), "s3://corpora/a.sgf");
        assert!(ObjectUrl::parse(Path::new("s3:///x"))
            .unwrap_err()
            .to_string()
            .contains("no bucket"));
        assert!(is_url(Path::new("s3://b/k")));
        let gs = ObjectUrl::parse(Path::new("gs://corpora/kgs")).unwrap();
        assert_eq!((gs.scheme, gs.bucket.as_str()), (Scheme::Gcs, "corpora"));
        assert_eq!(gs.join("a.sgf").to_string(), "gs://corpora/kgs/a.sgf");
        let az = ObjectUrl::parse(Path::new("az://box/")).unwrap();
        assert_eq!(az.scheme, Scheme::Azure);
        assert_eq!(az.to_string(), "az://box");
        assert!(ObjectUrl::parse(Path::new("az:///x"))
            .unwrap_err()
            .to_string()
            .contains("no container"));
        assert!(is_url(Path::new("gs://b/k")) && is_url(Path::new("az://c/k")));
        assert!(!is_url(Path::new("gcs://b/k")));
        assert!(!is_url(Path::new("/data/s3://b")));
        assert!(!is_url(Path::new("corpus/")));
    }

    #[test]
    fn a_temporary_file_is_gone_from_the_folder_at_once() {
        let mut f = temp_file().unwrap();
        f.write_all(b"(;)").unwrap();
        let left = std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .filter_map(|e| e.ok())
            .any(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with(&format!(".verdict-object-{}-", std::process::id()))
            });
        assert!(!left);
    }
}

/// A cluster job's staging place in a bucket: `OUT/_staging/NAME/`, where
/// workers put their parts (each under its lease's name, created once) and
/// from which the coordinator publishes the accepted ones. Objects need no
/// folder, so a late worker of a cancelled job can still put a part there;
/// it is never published (only accepted leases' parts are), and the next
/// discard of the place removes it.
#[derive(Debug)]
pub struct BucketStaging {
    out: ObjectUrl,
    /// Where the parts wait: `OUT/_staging/NAME`, or `OUT/_shards` for
    /// static shards.
    place: ObjectUrl,
    /// Published parts are named `games/TAG-PART`.
    tag: String,
}

impl BucketStaging {
    /// Names the place (no request: it may be called on an async
    /// runtime, when a coordinator restarts).
    pub fn open(out: &ObjectUrl, name: &str) -> BucketStaging {
        BucketStaging {
            out: out.clone(),
            place: out.join(crate::publish::STAGING).join(name),
            tag: name.to_string(),
        }
    }

    /// The static shards of `out` (`OUT/_shards`), published under `tag`.
    pub fn shards(out: &ObjectUrl, tag: &str) -> BucketStaging {
        BucketStaging {
            out: out.clone(),
            place: out.join(crate::static_shard::SHARDS),
            tag: tag.to_string(),
        }
    }

    /// Where workers put their parts, as a lease names it.
    pub fn path(&self) -> PathBuf {
        self.place.to_path()
    }

    /// The rows in the staged part `name` (read from its footer: two
    /// ranged GETs, whatever the part's size).
    ///
    /// # Errors
    /// It is missing or is not Parquet.
    pub fn rows_of(&self, name: &str) -> Result<u64, String> {
        parquet_rows(&self.place.join(name)).map_err(|e| e.to_string())
    }

    /// Removes everything staged.
    ///
    /// # Errors
    /// The store refuses.
    pub fn discard(&self) -> Result<(), ObjectError> {
        discard_prefix(&self.place)
    }

    /// Publishes the staged parts `moves` (staged name, published name) as
    /// [`publish`] does for a local run: `_SUCCESS` removed, each part
    /// copied to `games/NAME-PART` (names of this job's), the summaries,
    /// `_SUCCESS` with the manifest, then the previous parts and the
    /// staging place removed.
    ///
    /// # Errors
    /// The store refuses; the previous parts then stay, with no
    /// `_SUCCESS` until a job publishes again.
    pub fn publish(
        self,
        moves: &[(String, String)],
        parts: &[(String, u64)],
        summary: &crate::summary::Summary,
        schema_version: &str,
        mut manifest: serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), ObjectError> {
        use crate::publish::{GAMES, SUMMARY_JSON, SUMMARY_PARQUET};
        let s = store(&self.out)?;
        let games = self.out.join(GAMES);
        let local = Scratch::new("summary").map_err(|e| {
            ObjectError::new(
                &self.out,
                format!("cannot write the summaries locally first: {e}"),
            )
        })?;
        crate::confined::Dir::open(local.path())
            .map_err(|e| e.to_string())
            .and_then(|d| {
                crate::publish::write_summary(&d, summary, schema_version)
                    .map_err(|e| e.to_string())
            })
            .map_err(|e| ObjectError::new(&self.out, e))?;
        let total: u64 = parts.iter().map(|(_, n)| n).sum();
        manifest.insert("schema_version".into(), schema_version.into());
        manifest.insert("games".into(), total.into());
        manifest.insert(
            "parts".into(),
            parts
                .iter()
                .map(|(name, rows)| {
                    serde_json::json!({"path": format!("{GAMES}/{}-{name}", self.tag), "rows": rows})
                })
                .collect(),
        );
        manifest.insert(
            "summaries".into(),
            serde_json::json!([SUMMARY_JSON, SUMMARY_PARQUET]),
        );
        manifest.insert("location".into(), self.out.to_string().into());
        replace_output(
            &s,
            &self.out,
            || {
                let mut kept = Vec::new();
                for (from, to) in moves {
                    let target = games.join(&format!("{}-{to}", self.tag));
                    let from = self.place.join(from);
                    block_on(s.inner.copy(
                        &Key::from(from.key.as_str()),
                        &Key::from(target.key.as_str()),
                    ))
                    .map_err(|e| ObjectError::of(&from, &e))?;
                    kept.push(target.key);
                }
                Ok(kept)
            },
            local.path(),
            &serde_json::Value::Object(manifest),
        )?;
        self.discard()
    }
}

/// Removes every object under `prefix/`.
///
/// # Errors
/// The store refuses.
pub fn discard_prefix(prefix: &ObjectUrl) -> Result<(), ObjectError> {
    let s = store(prefix)?;
    for o in s.list(&format!("{}/", prefix.key))? {
        s.delete(&o.url.key)?;
    }
    Ok(())
}

/// The rows of a Parquet object, from its footer.
///
/// # Errors
/// Missing, or not Parquet.
pub fn parquet_rows(url: &ObjectUrl) -> Result<u64, ObjectError> {
    let s = store(url)?;
    let size = s
        .size(&url.key)?
        .ok_or_else(|| ObjectError::new(url, "missing"))?;
    let tail = 64 * 1024;
    // The footer (metadata, its length, "PAR1") at its own offsets, the
    // rest of the file a hole; a footer longer than 64 KiB is fetched whole.
    let file = s.spool(&url.key, Some(size.saturating_sub(tail)..size))?;
    match crate::parquet_out::rows_in(file) {
        Ok(n) => Ok(n),
        Err(_) => {
            let file = s.spool(&url.key, None)?;
            crate::parquet_out::rows_in(file).map_err(|e| ObjectError::new(url, e.to_string()))
        }
    }
}

/// The manifest last published into `out`, if there is one.
pub fn published(out: &ObjectUrl) -> Option<serde_json::Value> {
    let bytes = store(out)
        .ok()?
        .read(&out.join(crate::publish::MARKER).key)
        .ok()??;
    serde_json::from_slice(&bytes).ok()
}
