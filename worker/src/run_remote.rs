//! `verdict run --out s3://...`: the run is written locally (a scratch
//! folder), and its staging folder is copied into the bucket as it goes,
//! under `OUT/_staging/run-NAME/`, so that a run stopped or killed (with
//! its machine, and its scratch folder) can be taken up by `--resume` from
//! any machine:
//!
//! - after each journal write ([`crate::run::Hooks::journaled`]) the part
//!   just finished is put, then the summary file the journal names, then
//!   the journal (each put is whole or nothing, so the journal in the
//!   bucket only ever names objects already there), then the summary the
//!   previous journal named is removed;
//! - `--resume` finds the copy whose journal has the run's fingerprint
//!   (same inputs, options and verdict version), fetches the journal, its
//!   summary and the parts it lists into the scratch folder, and the run
//!   goes on there as a local `--resume` does: what a journal does not
//!   list (a part put just before a kill) is not fetched, and is put again
//!   under its name when the run gets there;
//! - once the output is published ([`crate::objects::publish`]), the copy
//!   is removed, with any other stopped copy of the same run.
//!
//! There is no lock in a bucket: a `--resume` must not be started while the
//! run it takes up is still running (a scheduler that killed it, or a
//! machine that died, is the case it is for).

use std::io::Write;
use std::path::Path;

use crate::objects::{discard_prefix, store, ObjectError, ObjectUrl, Store};
use crate::publish::{GAMES, STAGING};
use crate::run::{Journal, Journaled, JOURNAL};

/// The copies of runs' staging folders in the bucket of an output.
#[derive(Debug)]
pub struct Mirror {
    out: ObjectUrl,
    store: Store,
}

impl Mirror {
    /// The copies under `out/_staging`.
    ///
    /// # Errors
    /// No client can be made for the bucket.
    pub fn new(out: &ObjectUrl) -> Result<Mirror, ObjectError> {
        Ok(Mirror {
            out: out.clone(),
            store: store(out)?,
        })
    }

    /// Where the copy of the staging folder `name` is.
    pub fn place(&self, name: &str) -> ObjectUrl {
        self.out.join(STAGING).join(name)
    }

    /// Copies what a journal write changed ([`Journaled`]), in its order.
    ///
    /// # Errors
    /// A file cannot be read or the store refuses (the URL is named).
    pub fn journaled(&self, j: &Journaled<'_>) -> std::io::Result<()> {
        let place = self.place(j.name);
        let put = |rel: &str| {
            self.store
                .upload(&j.staging.join(rel), &place.join(rel).key, false)
                .map_err(std::io::Error::other)
        };
        if let Some(part) = j.part {
            put(&format!("{GAMES}/{part}"))?;
        }
        put(j.summary)?;
        put(j.journal)?;
        if j.dropped != j.summary {
            self.store
                .delete(&place.join(j.dropped).key)
                .map_err(std::io::Error::other)?;
        }
        Ok(())
    }

    /// The names of the copies (`run-...`) that have a journal, with its
    /// bytes.
    fn journals(&self) -> Result<Vec<(String, Vec<u8>)>, ObjectError> {
        let root = self.out.join(STAGING);
        let prefix = format!("{}/", root.key);
        let mut out = Vec::new();
        for o in self.store.list(&prefix)? {
            let Some(rest) = o.url.key.strip_prefix(&prefix) else {
                continue;
            };
            let Some((name, JOURNAL)) = rest.split_once('/') else {
                continue;
            };
            if !name.starts_with("run-") {
                continue;
            }
            if let Some(bytes) = self.store.read(&o.url.key)? {
                out.push((name.to_string(), bytes));
            }
        }
        Ok(out)
    }

    /// Fetches the copy of a stopped run with `fingerprint` into
    /// `local_out/_staging/NAME` (the journal last), and returns its name;
    /// `None` when there is none.
    ///
    /// # Errors
    /// The store refuses, a file cannot be written locally, or the copy
    /// lists a part that is not there.
    pub fn fetch(
        &self,
        fingerprint: &str,
        local_out: &Path,
    ) -> Result<Option<String>, ObjectError> {
        for (name, bytes) in self.journals()? {
            let Some((fp, parts, summary)) = Journal::parse(&bytes) else {
                continue;
            };
            if fp != fingerprint {
                continue;
            }
            let place = self.place(&name);
            let dir = local_out.join(STAGING).join(&name);
            let local_err = |e: std::io::Error| {
                ObjectError::new(
                    &place,
                    format!("cannot copy it into {}: {e}", dir.display()),
                )
            };
            std::fs::create_dir_all(dir.join(GAMES)).map_err(local_err)?;
            let fetch = |rel: &str| -> Result<(), ObjectError> {
                let key = place.join(rel).key;
                let mut from = match self.store.head(&key)? {
                    Some(_) => self.store.spool(&key, None)?,
                    None => {
                        return Err(ObjectError::new(
                            place.join(rel),
                            "the stopped run's journal lists it, but it is gone: run again without --resume to start over",
                        ))
                    }
                };
                let mut to = std::fs::File::create(dir.join(rel)).map_err(local_err)?;
                std::io::copy(&mut from, &mut to).map_err(local_err)?;
                to.flush().map_err(local_err)
            };
            fetch(&summary)?;
            for p in &parts {
                fetch(&format!("{GAMES}/{p}"))?;
            }
            std::fs::write(dir.join(JOURNAL), &bytes).map_err(local_err)?;
            return Ok(Some(name));
        }
        Ok(None)
    }

    /// Removes the copy `name`, and every other copy of a stopped run with
    /// `fingerprint` (the same run: the output just published replaces
    /// what it would have given).
    ///
    /// # Errors
    /// The store refuses.
    pub fn discard(&self, name: &str, fingerprint: &str) -> Result<(), ObjectError> {
        discard_prefix(&self.place(name))?;
        for (other, bytes) in self.journals()? {
            if Journal::parse(&bytes).is_some_and(|(fp, _, _)| fp == fingerprint) {
                discard_prefix(&self.place(&other))?;
            }
        }
        Ok(())
    }
}
