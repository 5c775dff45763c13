//! The distributed service: the coordinator (`verdict serve`), workers
//! (`verdict worker`) and the commands researchers use to submit and follow
//! jobs. The wire contract is `verdict-proto`; the analysis of one shard is
//! `verdict_worker::shard`, the same code as `verdict run`.

pub mod args;
mod auth;
mod client;
mod loadtest;
mod metrics;
mod plan;
mod server;
mod state;
mod store;
mod worker;

pub use client::{cancel, delete, jobs, status, submit, watch};
pub use loadtest::run as loadtest;
pub use server::run as serve;
pub use worker::run as worker;
