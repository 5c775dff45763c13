//! A job's inputs, confined to the coordinator's roots, into shards: the
//! planner itself is `verdict_worker::plan` (the same for static shards of
//! `verdict run --shard K/N`).

use std::path::PathBuf;

use verdict_worker::inputs::discover;
use verdict_worker::plan::{self, Plan};

use super::auth::{PathError, Roots};

/// Why a job's inputs cannot be planned.
pub type PlanError = plan::PlanError<PathError>;

/// Plans `inputs` (already resolved and confined to `roots`) into shards of
/// about `shard_bytes`. Every file found must also resolve inside `roots` (a
/// symbolic link out of a root is refused).
///
/// # Errors
/// An input cannot be read, holds no SGF file, or leads outside the roots.
pub fn plan(inputs: &[PathBuf], shard_bytes: u64, roots: &Roots) -> Result<Plan, PlanError> {
    let found = discover(inputs);
    if let Some(u) = found
        .unread
        .iter()
        .find(|u| !u.duplicate && inputs.contains(&u.path))
    {
        return Err(PlanError::Unreadable {
            path: u.path.display().to_string(),
            reason: u.reason.clone(),
        });
    }
    plan::plan(&found, shard_bytes, |p| roots.resolve_existing(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_missing_inputs_and_links_out_of_the_roots() {
        let dir = std::env::temp_dir().join(format!("verdict-cplan-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("in")).unwrap();
        std::fs::create_dir_all(dir.join("outside")).unwrap();
        let dir = dir.canonicalize().unwrap();
        let roots = Roots::new(&[dir.join("in")]).unwrap();
        assert!(matches!(
            plan(&[dir.join("in/nope.sgf")], 10, &roots),
            Err(PlanError::Unreadable { .. })
        ));
        std::fs::write(dir.join("outside/x.sgf"), "(;)").unwrap();
        std::os::unix::fs::symlink(dir.join("outside/x.sgf"), dir.join("in/x.sgf")).unwrap();
        assert!(matches!(
            plan(&[dir.join("in")], 10, &roots),
            Err(PlanError::Outside(_))
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
