#!/usr/bin/env sh
# Lays out the root file system of a verdict image in DEST/rootfs: the
# given binaries (stripped of debug info) in /usr/local/bin, every shared
# library they link (as ldd resolves them) at the same path, the loader, a
# numeric non-root user 10001, /tmp, and the CA certificates (for https://
# object stores); and an empty DEST/empty, which the Dockerfiles copy to
# /var/lib/verdict and /data with --chown=10001 (a COPY --chown sets the
# owner of the folders it creates, not of those that exist).
#
# The same script runs in both builds: inside the build stage of
# deploy/Dockerfile (a normal base image elsewhere), and on the host by
# deploy/image.sh (no registry here). Usage: rootfs.sh DEST BIN...
set -eu
dest=$1/rootfs
mkdir -p "$1/empty"
shift
[ $# -ge 1 ] || { echo "usage: rootfs.sh DEST BIN..." >&2; exit 2; }
mkdir -p "$dest/usr/local/bin" "$dest/etc/ssl/certs" "$dest/tmp"
chmod 1777 "$dest/tmp"
for bin in "$@"; do
  out="$dest/usr/local/bin/$(basename "$bin")"
  # Debug info off (the symbol table stays, so a panic's backtrace names
  # functions): the release profile keeps line tables, 5-10x the code.
  objcopy --strip-debug "$bin" "$out"
  chmod 0755 "$out"
  # Every library ldd resolves, and the loader (the line with no "=>").
  ldd "$bin" | awk '/=> \// { print $3 } /^[ \t]*\// { print $1 }' | while read -r lib; do
    mkdir -p "$dest$(dirname "$lib")"
    cp -L "$lib" "$dest$lib"
  done
done
# Who the image runs as: uid and gid 10001, as USER and Kubernetes'
# runAsUser say; names only for tools that print them.
printf 'root:x:0:0:root:/root:/sbin/nologin\nverdict:x:10001:10001:verdict:/var/lib/verdict:/sbin/nologin\n' >"$dest/etc/passwd"
printf 'root:x:0:\nverdict:x:10001:\n' >"$dest/etc/group"
printf 'hosts: files dns\n' >"$dest/etc/nsswitch.conf"
ca=/etc/ssl/certs/ca-certificates.crt
if [ -f "$ca" ]; then
  cp -L "$ca" "$dest$ca"
else
  echo "rootfs.sh: no $ca here: https:// endpoints will not be trusted in this image" >&2
fi
