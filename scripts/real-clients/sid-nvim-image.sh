#!/usr/bin/env bash
# The image the real-client runs use for Neovim: Debian sid (minbase) with neovim 0.12 and git.
# CodeCompanion 19.x needs Neovim >= 0.11 and bookworm ships 0.7; sid's neovim needs sid's libc, so it
# runs in a sid rootfs rather than on the host. git is there because a user's machine has it (without
# it deep-acp warns that it cannot tell which files decide what git runs). Made with debootstrap from
# Debian's packages and imported (no image registry is reachable here). Built once per engine: an
# image already present is kept.
# Usage: scripts/real-clients/sid-nvim-image.sh [IMAGE]   (default deep-acp-test/sid-nvim:1)
set -euo pipefail
image="${1:-deep-acp-test/sid-nvim:1}"
if docker image inspect "$image" >/dev/null 2>&1; then
  echo "real-client image $image: present"
  exit 0
fi
command -v debootstrap >/dev/null 2>&1 || { echo "debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
dir="$(mktemp -d /tmp/deep-acp-sid.XXXXXX)"
trap 'rm -rf "$dir"' EXIT
debootstrap --variant=minbase --include=neovim,git,ca-certificates sid "$dir" http://deb.debian.org/debian >"$dir.log" 2>&1 ||
  { tail -20 "$dir.log" >&2; rm -f "$dir.log"; exit 1; }
rm -f "$dir.log"
rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
tar -C "$dir" -c . | docker import -c 'CMD ["/bin/sh"]' - "$image" >/dev/null
echo "real-client image $image: built ($(docker run --rm --network none "$image" nvim --version | head -1))"
