//! Limits on what one request may carry; a request over one is refused
//! with `INVALID_ARGUMENT` naming it.

use verdict_proto::v1;

use super::super::auth::cut;
use super::StateError;

pub const INPUTS: usize = 10_000;
pub const PATH_BYTES: usize = 4_096;
pub const LABEL_BYTES: usize = 1_024;
pub const KOMI_SWEEP: usize = 1_000;
pub const WORKER_NAME_BYTES: usize = 256;
pub const FAIL_REASON_BYTES: usize = 4_096;
pub const PAGE: usize = 1_000;
pub const DEFAULT_PAGE: usize = 100;
/// Inputs shown per job in a listing.
pub const LISTED_INPUTS: usize = 10;
/// Leases kept per shard that may still complete it.
pub const ISSUED: usize = 16;
/// Workers remembered; the longest unseen go first beyond it.
pub const WORKERS: usize = 100_000;

/// Checks the sizes of what a submit carries.
pub(super) fn check_limits(req: &v1::SubmitRequest) -> Result<(), StateError> {
    let bad = |m: String| Err(StateError::BadRequest(m));
    if req.inputs.is_empty() {
        return bad("no inputs: name at least one file or folder".into());
    }
    if req.inputs.len() > INPUTS {
        return bad(format!(
            "{} inputs, more than the limit of {}: name their folders instead",
            req.inputs.len(),
            INPUTS
        ));
    }
    for p in req.inputs.iter().chain([&req.out]) {
        if p.len() > PATH_BYTES {
            return bad(format!(
                "a path of {} bytes, more than the limit of {} ({})",
                p.len(),
                PATH_BYTES,
                cut(p, 80)
            ));
        }
    }
    if req.out.is_empty() {
        return bad("no output folder".into());
    }
    if req.label.len() > LABEL_BYTES {
        return bad(format!(
            "a label of {} bytes, more than the limit of {}",
            req.label.len(),
            LABEL_BYTES
        ));
    }
    if let Some(o) = &req.options {
        if o.komi_sweep.len() > KOMI_SWEEP {
            return bad(format!(
                "a komi sweep of {} values, more than the limit of {}",
                o.komi_sweep.len(),
                KOMI_SWEEP
            ));
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(dup) = o.rules.iter().find(|r| !seen.insert(r.as_str())) {
            return bad(format!("rule set {} given twice", cut(dup, 40)));
        }
    }
    Ok(())
}
