#!/usr/bin/env bash
# Builds the images of deploy/compose.yaml where no registry can be reached
# (no base image can be pulled): each is the host's binary plus the shared
# libraries it links, on FROM scratch (deploy/rootfs.sh).
#
#   deploy/image.sh            # the verdict image
#   deploy/image.sh s3s-fs     # the S3-compatible server (s3s-fs 0.14.1)
#   deploy/image.sh all
#
# Environment:
#   VERDICT_BIN    the verdict binary (default: target/release/verdict,
#                  built with `cargo build --release` when missing)
#   VERDICT_IMAGE  its tag (default verdict:latest)
#   S3S_IMAGE      the S3 server's tag (default verdict-s3s-fs:0.14.1)
#   TOOLS_DIR      where `cargo install` puts s3s-fs (default
#                  ~/.cache/verdict-tools; outside the repository, kept
#                  between builds)
# With a registry, `docker build -f deploy/Dockerfile .` builds the same
# verdict image from source on a normal base (see deploy/README.md).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-verdict}
verdict_image=${VERDICT_IMAGE:-verdict:latest}
s3s_image=${S3S_IMAGE:-verdict-s3s-fs:0.14.1}
tools=${TOOLS_DIR:-$HOME/.cache/verdict-tools}
s3s_version=0.14.1

# build TAG DOCKERFILE BIN...: the binaries' root file system as the
# context, the Dockerfile beside it.
build() {
  local tag=$1 dockerfile=$2
  shift 2
  local ctx
  ctx=$(mktemp -d)
  "$repo/deploy/rootfs.sh" "$ctx/out" "$@"
  # (The legacy builder's deprecation notice is the only thing it prints
  # on stderr when all goes well.)
  docker build --quiet -f "$dockerfile" -t "$tag" "$ctx" >/dev/null 2>"$ctx/err" || {
    cat "$ctx/err" >&2
    rm -rf "$ctx"
    return 1
  }
  rm -rf "$ctx"
  # The legacy builder keeps each stage's image; the rootfs stage's is
  # left dangling (untagged) once the final image is built.
  docker image prune --force --filter label=org.verdict.stage=rootfs >/dev/null
  echo "$tag: $(docker image inspect -f '{{.Size}}' "$tag" | awk '{ printf "%.1f MB", $1 / 1e6 }')"
}

verdict() {
  local bin=${VERDICT_BIN:-}
  if [ -z "$bin" ]; then
    bin=${CARGO_TARGET_DIR:-$repo/target}/release/verdict
    [ -x "$bin" ] || (cd "$repo" && cargo build --release --locked -p verdict-coordinator)
  fi
  build "$verdict_image" "$repo/deploy/Dockerfile.local" "$bin"
}

s3s_fs() {
  local bin=$tools/bin/s3s-fs
  if ! [ -x "$bin" ] || ! "$bin" --version 2>/dev/null | grep -q "$s3s_version"; then
    # The `binary` feature brings the command line (clap, tokio, hyper-util).
    cargo install --quiet --locked s3s-fs --version "$s3s_version" --features binary --root "$tools"
  fi
  build "$s3s_image" "$repo/deploy/Dockerfile.s3s-fs" "$bin"
}

case $what in
  verdict) verdict ;;
  s3s-fs) s3s_fs ;;
  all) verdict; s3s_fs ;;
  *) echo "usage: deploy/image.sh [verdict|s3s-fs|all]" >&2; exit 2 ;;
esac
