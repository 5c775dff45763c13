//! Who may call, and which paths a job may touch.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use tonic::metadata::MetadataValue;
use tonic::{Request, Status};

/// The folders a job's inputs and output must lie under, canonical.
#[derive(Debug, Clone)]
pub struct Roots(Arc<Vec<PathBuf>>);

impl Roots {
    /// # Errors
    /// A root that does not exist (it is resolved once, at start).
    pub fn new(roots: &[PathBuf]) -> Result<Roots, String> {
        let mut out = Vec::new();
        for r in roots {
            out.push(
                r.canonicalize()
                    .map_err(|e| format!("allowed root {}: {e}", r.display()))?,
            );
        }
        Ok(Roots(Arc::new(out)))
    }

    pub fn list(&self) -> &[PathBuf] {
        &self.0
    }

    fn inside(&self, canonical: &Path) -> bool {
        self.0.iter().any(|r| canonical.starts_with(r))
    }

    /// Refuses relative paths and `..`: a request names what it means.
    fn plain(path: &Path) -> Result<(), String> {
        if !path.is_absolute() {
            return Err(format!("{} is not an absolute path", path.display()));
        }
        if path.components().any(|c| matches!(c, Component::ParentDir)) {
            return Err(format!("{} contains `..`", path.display()));
        }
        Ok(())
    }

    /// An existing path, resolved (symbolic links included), must be
    /// inside a root.
    ///
    /// # Errors
    /// A message naming the path and why it is refused.
    pub fn check_existing(&self, path: &Path) -> Result<(), String> {
        Self::plain(path)?;
        let canonical = path
            .canonicalize()
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if self.inside(&canonical) {
            Ok(())
        } else {
            Err(self.outside(path))
        }
    }

    /// A path that may not exist yet (an output folder): its nearest
    /// existing ancestor, resolved, must be inside a root.
    ///
    /// # Errors
    /// A message naming the path and why it is refused.
    pub fn check_new(&self, path: &Path) -> Result<(), String> {
        Self::plain(path)?;
        let mut existing = path;
        let mut rest = Vec::new();
        while !existing.exists() {
            let Some(parent) = existing.parent() else {
                break;
            };
            rest.push(existing.file_name().unwrap_or_default().to_owned());
            existing = parent;
        }
        let mut canonical = existing
            .canonicalize()
            .map_err(|e| format!("cannot resolve {}: {e}", existing.display()))?;
        for part in rest.iter().rev() {
            canonical.push(part);
        }
        if self.inside(&canonical) {
            Ok(())
        } else {
            Err(self.outside(path))
        }
    }

    fn outside(&self, path: &Path) -> String {
        let roots: Vec<String> = self.0.iter().map(|r| r.display().to_string()).collect();
        format!(
            "{} is outside the allowed roots ({})",
            path.display(),
            roots.join(", ")
        )
    }
}

/// Checks the bearer token of every request, when one is configured.
#[derive(Clone, Debug)]
pub struct CheckToken(Option<Arc<[u8]>>);

impl CheckToken {
    pub fn new(token: Option<&str>) -> CheckToken {
        CheckToken(token.map(|t| Arc::from(format!("Bearer {t}").into_bytes())))
    }
}

/// Compares without stopping at the first difference, so response times do
/// not tell how much of a guessed token was right.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl tonic::service::Interceptor for CheckToken {
    fn call(&mut self, req: Request<()>) -> Result<Request<()>, Status> {
        let Some(expected) = &self.0 else {
            return Ok(req);
        };
        match req.metadata().get("authorization") {
            Some(v) if same(v.as_bytes(), expected) => Ok(req),
            Some(_) => Err(Status::unauthenticated("wrong bearer token")),
            None => Err(Status::unauthenticated(
                "this coordinator needs a bearer token: pass --token or set VERDICT_TOKEN",
            )),
        }
    }
}

/// Adds the bearer token to every request a client sends.
#[derive(Clone, Debug)]
pub struct AddToken(Option<MetadataValue<tonic::metadata::Ascii>>);

impl AddToken {
    /// # Errors
    /// A token that cannot be sent as a header value.
    pub fn new(token: Option<&str>) -> anyhow::Result<AddToken> {
        Ok(AddToken(match token {
            None => None,
            Some(t) => Some(
                format!("Bearer {t}")
                    .parse()
                    .map_err(|_| anyhow::anyhow!("the token must be printable ASCII"))?,
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

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::service::Interceptor;

    #[test]
    fn paths_outside_the_roots_are_refused() {
        let dir = std::env::temp_dir().join(format!("verdict-roots-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("in")).unwrap();
        std::fs::write(dir.join("in/a.sgf"), "(;)").unwrap();
        let roots = Roots::new(&[dir.join("in")]).unwrap();
        assert!(roots.check_existing(&dir.join("in/a.sgf")).is_ok());
        assert!(roots.check_new(&dir.join("in/new/deeper")).is_ok());
        assert!(roots.check_existing(Path::new("/etc/passwd")).is_err());
        assert!(roots.check_new(&dir.join("out")).is_err());
        let escape = dir.join("in/../in/a.sgf");
        assert!(roots.check_existing(&escape).unwrap_err().contains(".."));
        assert!(roots.check_new(Path::new("relative")).is_err());
        #[cfg(unix)]
        {
            let link = dir.join("in/link");
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink("/etc", &link).unwrap();
            assert!(roots.check_existing(&link.join("passwd")).is_err());
            assert!(roots.check_new(&link.join("x")).is_err());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn tokens_are_checked() {
        let mut check = CheckToken::new(Some("s3cret"));
        let mut add = AddToken::new(Some("s3cret")).unwrap();
        assert!(check.call(add.call(Request::new(())).unwrap()).is_ok());
        let mut wrong = AddToken::new(Some("guess")).unwrap();
        assert!(check.call(wrong.call(Request::new(())).unwrap()).is_err());
        assert!(check.call(Request::new(())).is_err());
        assert!(CheckToken::new(None).call(Request::new(())).is_ok());
    }
}
