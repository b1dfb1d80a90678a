#!/usr/bin/env bash
# The real CodeCompanion.nvim against the built deep-acp, by hand (not part of `npm test`: CI has no
# copy of CodeCompanion). Neovim 0.12 runs in a Debian sid container (sid-nvim-image.sh) with
# `--network host`, so it reaches the fake model on the host's 127.0.0.1; deep-acp is the standalone
# binary, mounted read-only. Two runs: CodeCompanion's defaults, then with `verbose_output` (which
# also prints each finished call's content). Each run gets a fresh HOME, project and fake model;
# check.mjs then judges what the chat buffer shows.
#
# Needs: the git mirrors of CodeCompanion and plenary (CC_MIRROR, PLENARY_MIRROR), a Docker engine,
# debootstrap (first run only) and `npm run build:binary`.
# Usage: scripts/real-clients/codecompanion/run.sh [OUT_DIR]
#   DEEP_ACP_BINARY=PATH runs another build; SNIPPET=FILE uses that setup snippet instead of the printed one.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
cc_mirror="${CC_MIRROR:-/work/.mirror/olimorris+codecompanion.nvim/repo}"
plenary_mirror="${PLENARY_MIRROR:-/work/.mirror/nvim-lua+plenary.nvim/repo}"
cc_ref="${CC_REF:-v19.22.0}"
image="${IMAGE:-deep-acp-test/sid-nvim:1}"
binary="${DEEP_ACP_BINARY:-$repo/dist/bin/deep-acp-linux-x64}"
out="${1:-$(mktemp -d /tmp/deep-acp-codecompanion.XXXXXX)}"
mkdir -p "$out"

[ -x "$binary" ] || { echo "no $binary: run npm run build:binary first" >&2; exit 1; }
"$repo/scripts/real-clients/sid-nvim-image.sh" "$image"

# Plugin sources, read-only, from the mirrors (bare repositories: no work tree to copy).
src="$out/src"
rm -rf "$src" && mkdir -p "$src/codecompanion.nvim" "$src/plenary.nvim"
git -C "$cc_mirror" archive "$cc_ref" | tar -x -C "$src/codecompanion.nvim"
git -C "$plenary_mirror" archive HEAD | tar -x -C "$src/plenary.nvim"
{
  echo "codecompanion.nvim $cc_ref $(git -C "$cc_mirror" rev-parse "$cc_ref^{commit}")"
  echo "plenary.nvim HEAD $(git -C "$plenary_mirror" rev-parse HEAD)"
  if [ -n "${DEEP_ACP_BINARY:-}" ]; then echo "deep-acp $binary"; else
    echo "deep-acp $(git -C "$repo" rev-parse HEAD)$(git -C "$repo" diff --quiet HEAD -- src || echo ' (with uncommitted src changes)')"
  fi
} >"$out/versions.txt"

# The cidfiles of the containers started here: docker writes one as soon as its container exists, so
# an interrupted run still has the id to remove (by id, never by name).
cid_files=()
model_pid=""
cleanup() {
  for f in "${cid_files[@]}"; do [ -s "$f" ] && docker rm -f "$(cat "$f")" >/dev/null 2>&1 || true; done
  if [ -n "$model_pid" ]; then kill "$model_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT

run_once() {
  local name="$1" verbose="$2"
  local dir="$out/$name"
  rm -rf "$dir" && mkdir -p "$dir/home/.deepagents" "$dir/project" "$dir/result"
  printf '[model]\ndefault = "openai:gpt-4o"\n' >"$dir/home/.deepagents/config.toml"

  # The fake model, on the host's loopback: one node process (tsx as a loader, not its launcher,
  # which leaves its child running when it is killed), so the kill below ends it.
  (cd "$repo" && exec node --import tsx scripts/real-clients/fake-model-server.ts --requests "$dir/result/requests.json") \
    >"$dir/model.out" 2>"$dir/model.err" &
  model_pid=$!
  local url=""
  for _ in $(seq 1 100); do
    url="$(head -1 "$dir/model.out" 2>/dev/null | sed -n 's/.*"openaiBaseUrl":"\([^"]*\)".*/\1/p')"
    [ -n "$url" ] && break
    sleep 0.1
  done
  [ -n "$url" ] || { cat "$dir/model.err" >&2; echo "the fake model did not start" >&2; exit 1; }

  local mounts=(-v "$binary:/opt/deep-acp/bin/deep-acp:ro" -v "$src:$src:ro" -v "$here:$here:ro" -v "$dir:$dir")
  # The snippet exactly as `deep-acp setup neovim --print` prints it there (it names the binary's path).
  # SNIPPET=FILE instead, for a build older than the one-snippet --print (it printed avante's too).
  if [ -n "${SNIPPET:-}" ]; then cp "$SNIPPET" "$dir/result/snippet.lua"; else
    docker run --rm --network none "${mounts[@]}" "$image" /opt/deep-acp/bin/deep-acp setup neovim --print \
      >"$dir/result/snippet.lua" 2>/dev/null
  fi

  local cid_file="$dir/container.id"
  local code=0
  cid_files+=("$cid_file")
  timeout 600 docker run --rm --network host --cidfile "$cid_file" "${mounts[@]}" -w "$dir/project" \
    -e HOME="$dir/home" -e OPENAI_API_KEY=fake-key -e OPENAI_BASE_URL="$url" \
    -e CC_DIR="$src/codecompanion.nvim" -e PLENARY_DIR="$src/plenary.nvim" \
    -e DRIVER_SNIPPET="$dir/result/snippet.lua" -e DRIVER_OUT="$dir/result" -e DRIVER_VERBOSE="$verbose" \
    "$image" nvim --headless -u "$here/init.lua" >"$dir/nvim.out" 2>"$dir/nvim.err" || code=$?
  kill "$model_pid" 2>/dev/null || true
  wait "$model_pid" 2>/dev/null || true
  model_pid=""
  echo "== $name (nvim exit $code)"
  [ "$code" = 0 ] || tail -20 "$dir/nvim.err" >&2
}

run_once default ""
[ "${ONLY_DEFAULT:-}" = 1 ] || run_once verbose 1
if [ "${ONLY_DEFAULT:-}" = 1 ]; then node "$here/check.mjs" "$out/default"; else node "$here/check.mjs" "$out/default" "$out/verbose"; fi
