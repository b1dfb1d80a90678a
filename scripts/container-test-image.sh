#!/usr/bin/env bash
# The image the container-workspace tests and benchmarks use: Debian bookworm, minbase (sh, coreutils, grep,
# findutils, util-linux's setsid) plus ripgrep, made with debootstrap from Debian's packages and imported, since no
# image registry is reachable here. Built once per engine: an image already present is kept.
# Usage: scripts/container-test-image.sh [IMAGE]   (default deep-acp-test/bookworm:1; DOCKER_HOST is honoured)
set -euo pipefail
image="${1:-deep-acp-test/bookworm:1}"
if docker image inspect "$image" >/dev/null 2>&1; then
  echo "container test image $image: present"
  exit 0
fi
command -v debootstrap >/dev/null 2>&1 || { echo "debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
dir="$(mktemp -d /tmp/deep-acp-rootfs.XXXXXX)"
trap 'rm -rf "$dir"' EXIT
debootstrap --variant=minbase --include=ripgrep bookworm "$dir" http://deb.debian.org/debian >"$dir.log" 2>&1 ||
  { tail -20 "$dir.log" >&2; rm -f "$dir.log"; exit 1; }
rm -f "$dir.log"
# No package lists or caches in the image (they only make it larger).
rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
tar -C "$dir" -c . | docker import -c 'CMD ["/bin/sh"]' - "$image" >/dev/null
echo "container test image $image: built"
