//! Compiles the `verdict.v1` protobuf package with `protox` (pure Rust, so a
//! build needs no system `protoc`) and generates prost messages and tonic
//! services from the descriptors.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = [
        "verdict/v1/types.proto",
        "verdict/v1/jobs.proto",
        "verdict/v1/workers.proto",
    ];
    for f in files {
        println!("cargo:rerun-if-changed={f}");
    }
    let fds = protox::compile(files, ["."])?;
    tonic_prost_build::configure().compile_fds(fds)?;
    Ok(())
}
