//! The verdict wire contract.
//!
//! This crate will hold the `verdict.v1` protobuf package and every conversion
//! between generated types and the domain types of `verdict-rules`, so that no
//! other crate sees prost types. The distributed service (coordinator and
//! workers) is not built yet; the crate exists now because the workspace layout
//! is fixed.
