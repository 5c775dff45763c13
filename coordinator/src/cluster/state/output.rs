//! Where a job's output goes: a folder (`verdict_worker::publish`) or a
//! bucket (`verdict_worker::objects`), behind one staging type, so the
//! job's life (submit, cancel, finish, restart) is written once.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use verdict_worker::confined::Dir;
use verdict_worker::objects::{self, BucketStaging, ObjectUrl};
use verdict_worker::publish::{self, Staging};
use verdict_worker::summary::Summary;

use super::StateError;

/// A job's staging place, open while the job lives.
#[derive(Debug)]
pub enum JobStaging {
    Local(Staging),
    Bucket(BucketStaging),
}

fn url(out: &Path) -> Result<ObjectUrl, StateError> {
    ObjectUrl::parse(out).map_err(|e| StateError::BadRequest(e.to_string()))
}

impl JobStaging {
    /// Whether verdict may write into `out` at all.
    ///
    /// # Errors
    /// A folder holding something else, or a bucket that cannot be reached.
    pub fn check_out(out: &Path) -> Result<(), StateError> {
        if objects::is_url(out) {
            let u = url(out)?;
            objects::store(&u)
                .and_then(|s| s.probe(&format!("{}/", u.key)))
                .map_err(|e| StateError::BadRequest(e.to_string()))
        } else {
            Ok(publish::check_out(out)?)
        }
    }

    /// Opens (or creates) `out/_staging/name`.
    ///
    /// # Errors
    /// As [`JobStaging::check_out`], or the folder cannot be made.
    pub fn open(out: &Path, name: &str) -> Result<JobStaging, StateError> {
        if objects::is_url(out) {
            Ok(JobStaging::Bucket(BucketStaging::open(&url(out)?, name)))
        } else {
            Ok(JobStaging::Local(Staging::open(out, name)?))
        }
    }

    /// Where workers write, as leases name it.
    pub fn path(&self) -> PathBuf {
        match self {
            JobStaging::Local(s) => s.path().to_path_buf(),
            JobStaging::Bucket(b) => b.path(),
        }
    }

    /// The rows of the staged part `name`.
    pub fn rows_of(&self, name: &str) -> Result<u64, String> {
        match self {
            JobStaging::Local(s) => s
                .dir()
                .open_file(name)
                .map_err(|e| e.to_string())
                .and_then(|f| verdict_worker::parquet_out::rows_in(f).map_err(|e| e.to_string())),
            JobStaging::Bucket(b) => b.rows_of(name),
        }
    }

    /// Removes the staging place and what it holds.
    pub fn discard(self) -> Result<(), String> {
        match self {
            JobStaging::Local(s) => s.discard().map_err(|e| e.to_string()),
            JobStaging::Bucket(b) => b.discard().map_err(|e| e.to_string()),
        }
    }

    /// Publishes the staged parts (staged name, published name).
    pub fn publish(
        self,
        moves: &[(String, String)],
        parts: &[(String, u64)],
        summary: &Summary,
        schema_version: &str,
        manifest: serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), String> {
        match self {
            JobStaging::Local(s) => {
                let moves: Vec<(OsString, String)> = moves
                    .iter()
                    .map(|(a, b)| (OsString::from(a), b.clone()))
                    .collect();
                s.publish(&moves, parts, summary, schema_version, manifest)
                    .map_err(|e| e.to_string())
            }
            JobStaging::Bucket(b) => b
                .publish(moves, parts, summary, schema_version, manifest)
                .map_err(|e| e.to_string()),
        }
    }

    /// The manifest last published into `out`.
    pub fn published(out: &Path) -> Option<serde_json::Value> {
        if objects::is_url(out) {
            objects::published(&ObjectUrl::parse(out).ok()?)
        } else {
            publish::published(out)
        }
    }

    /// Removes the staging place `name` of an ended job in `out`; false
    /// when it could not be removed (try again later).
    pub fn sweep(out: &Path, name: &str) -> bool {
        if objects::is_url(out) {
            ObjectUrl::parse(out)
                .and_then(|u| objects::discard_prefix(&u.join(publish::STAGING).join(name)))
                .is_ok()
        } else {
            Dir::open(out)
                .and_then(|d| d.sub(publish::STAGING))
                .and_then(|d| d.remove_tree(name))
                .is_ok()
        }
    }
}
