//! Who may call, and which paths a job may touch.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tonic::{Request, Status};

/// Why a path is refused. Messages name the path (cut to a few hundred
/// characters) and say why.
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    #[error("allowed root {}: {error}", .root.display())]
    Root {
        root: PathBuf,
        error: std::io::Error,
    },
    /// A request names absolute paths: a relative one would mean whatever
    /// the coordinator's working folder is.
    #[error("{} is not an absolute path", shown(.path))]
    Relative { path: PathBuf },
    #[error("cannot read {}: {error}", shown(.path))]
    Unreadable {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("cannot resolve {}: {error}", shown(.path))]
    Unresolvable {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{} is outside the allowed roots ({})", shown(.path), .roots.join(", "))]
    Outside { path: PathBuf, roots: Vec<String> },
}

/// The folders a job's inputs and output must lie under, canonical.
#[derive(Debug, Clone)]
pub struct Roots(Arc<Vec<PathBuf>>);

impl Roots {
    /// # Errors
    /// A root that does not exist (it is resolved once, at start).
    pub fn new(roots: &[PathBuf]) -> Result<Roots, PathError> {
        let mut out = Vec::new();
        for r in roots {
            // An object-store prefix (`s3://bucket/corpora`) is a root as
            // written: there are no links to resolve in a bucket.
            if verdict_worker::objects::is_url(r) {
                out.push(url_path(r)?);
                continue;
            }
            out.push(r.canonicalize().map_err(|error| PathError::Root {
                root: r.clone(),
                error,
            })?);
        }
        Ok(Roots(Arc::new(out)))
    }

    pub fn list(&self) -> &[PathBuf] {
        &self.0
    }

    fn inside(&self, canonical: &Path) -> bool {
        self.0.iter().any(|r| canonical.starts_with(r))
    }

    fn absolute(path: &Path) -> Result<(), PathError> {
        if path.is_absolute() {
            Ok(())
        } else {
            Err(PathError::Relative {
                path: path.to_path_buf(),
            })
        }
    }

    /// Resolves an existing path (links and `..` as the kernel follows
    /// them) and checks that what it leads to is inside a root.
    ///
    /// # Errors
    /// The path is relative, cannot be read, or leads outside the roots.
    pub fn resolve_existing(&self, path: &Path) -> Result<PathBuf, PathError> {
        if verdict_worker::objects::is_url(path) {
            return self.resolve_url(path);
        }
        Self::absolute(path)?;
        let canonical = path.canonicalize().map_err(|error| PathError::Unreadable {
            path: path.to_path_buf(),
            error,
        })?;
        if self.inside(&canonical) {
            Ok(canonical)
        } else {
            Err(self.outside(path))
        }
    }

    /// Resolves a path that may not exist yet (an output folder): its
    /// longest existing prefix as [`Roots::resolve_existing`] does, the rest
    /// as written ([`verdict_worker::confined::resolve`]), and checks the
    /// result is inside a root.
    ///
    /// # Errors
    /// The path is relative, cannot be resolved, or leads outside the roots.
    pub fn resolve_new(&self, path: &Path) -> Result<PathBuf, PathError> {
        if verdict_worker::objects::is_url(path) {
            return self.resolve_url(path);
        }
        Self::absolute(path)?;
        let resolved =
            verdict_worker::confined::resolve(path).map_err(|error| PathError::Unresolvable {
                path: path.to_path_buf(),
                error,
            })?;
        if self.inside(&resolved) {
            Ok(resolved)
        } else {
            Err(self.outside(path))
        }
    }

    /// An object-store URL in its one written form, inside a URL root.
    /// `.` and `..` are refused: object keys have no such parts, and a
    /// store would take them literally.
    fn resolve_url(&self, path: &Path) -> Result<PathBuf, PathError> {
        let p = url_path(path)?;
        if self.inside(&p) {
            Ok(p)
        } else {
            Err(self.outside(path))
        }
    }

    fn outside(&self, path: &Path) -> PathError {
        PathError::Outside {
            path: path.to_path_buf(),
            roots: self.0.iter().map(|r| r.display().to_string()).collect(),
        }
    }
}

fn url_path(path: &Path) -> Result<PathBuf, PathError> {
    let unresolvable = |why: String| PathError::Unresolvable {
        path: path.to_path_buf(),
        error: std::io::Error::other(why),
    };
    let url =
        verdict_worker::objects::ObjectUrl::parse(path).map_err(|e| unresolvable(e.message))?;
    if url.key.split('/').any(|c| c == "." || c == "..") {
        return Err(unresolvable("an object key with `.` or `..` in it".into()));
    }
    Ok(url.to_path())
}

/// A path as an error message shows it: long ones cut in the middle, so a
/// message never echoes kilobytes of a request back.
pub fn shown(path: &Path) -> String {
    cut(&path.display().to_string(), 200)
}

/// `text`, cut in the middle to at most about `max` characters.
pub fn cut(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let head: String = text.chars().take(max / 2).collect();
    let tail: String = text.chars().skip(n - max / 2).collect();
    format!("{head}…({} characters)…{tail}", n - max)
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

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::service::Interceptor;

    #[test]
    fn object_store_roots_confine_urls() {
        let roots = Roots::new(&[PathBuf::from("s3://lab/corpora/")]).unwrap();
        assert_eq!(
            roots
                .resolve_existing(Path::new("s3://lab/corpora/kgs/"))
                .unwrap(),
            PathBuf::from("s3://lab/corpora/kgs")
        );
        assert!(roots
            .resolve_new(Path::new("s3://lab/corpora-x/out"))
            .is_err());
        assert!(roots
            .resolve_new(Path::new("s3://other/corpora/out"))
            .is_err());
        assert!(roots
            .resolve_existing(Path::new("s3://lab/corpora/../secrets"))
            .is_err());
        assert!(roots.resolve_existing(Path::new("/etc/passwd")).is_err());
    }

    #[test]
    fn paths_are_resolved_then_checked() {
        let dir = std::env::temp_dir().join(format!("verdict-roots-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("in/sub")).unwrap();
        let dir = dir.canonicalize().unwrap();
        std::fs::write(dir.join("in/a.sgf"), "(;)").unwrap();
        let roots = Roots::new(&[dir.join("in")]).unwrap();
        assert_eq!(
            roots.resolve_existing(&dir.join("in/a.sgf")).unwrap(),
            dir.join("in/a.sgf")
        );
        assert_eq!(
            roots.resolve_new(&dir.join("in/new//./deeper/")).unwrap(),
            dir.join("in/new/deeper")
        );
        assert!(roots.resolve_existing(Path::new("/etc/passwd")).is_err());
        assert!(roots.resolve_new(&dir.join("out")).is_err());
        // `..` that stays inside the root is fine; one that leaves is not.
        assert_eq!(
            roots
                .resolve_existing(&dir.join("in/sub/../a.sgf"))
                .unwrap(),
            dir.join("in/a.sgf")
        );
        assert_eq!(
            roots.resolve_new(&dir.join("in/sub/../x")).unwrap(),
            dir.join("in/x")
        );
        let escape = roots
            .resolve_existing(&dir.join("in/../in/../x"))
            .unwrap_err();
        assert!(
            matches!(
                escape,
                PathError::Unreadable { .. } | PathError::Outside { .. }
            ),
            "{escape}"
        );
        let out = roots.resolve_new(&dir.join("in/../out")).unwrap_err();
        assert!(matches!(out, PathError::Outside { .. }), "{out}");
        assert!(out.to_string().contains("outside the allowed roots"));
        assert!(matches!(
            roots.resolve_new(Path::new("relative")),
            Err(PathError::Relative { .. })
        ));
        #[cfg(unix)]
        {
            let link = dir.join("in/link");
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink("/etc", &link).unwrap();
            assert!(roots.resolve_existing(&link.join("passwd")).is_err());
            assert!(roots.resolve_new(&link.join("x")).is_err());
        }
        let long = format!("/{}", "x".repeat(5000));
        let said = roots.resolve_new(Path::new(&long)).unwrap_err().to_string();
        assert!(said.len() < 400, "{said}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn tokens_are_checked() {
        let mut check = CheckToken::new(Some("s3cret"));
        let mut add = verdict_worker::connect::AddToken::new(Some("s3cret")).unwrap();
        assert!(check.call(add.call(Request::new(())).unwrap()).is_ok());
        let mut wrong = verdict_worker::connect::AddToken::new(Some("guess")).unwrap();
        assert!(check.call(wrong.call(Request::new(())).unwrap()).is_err());
        assert!(check.call(Request::new(())).is_err());
        assert!(CheckToken::new(None).call(Request::new(())).is_ok());
    }
}
