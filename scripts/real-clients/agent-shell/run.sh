#!/usr/bin/env bash
# The real agent-shell (Emacs) against the built deep-acp, by hand (not part of `npm test`: CI has
# no copy of agent-shell). Emacs runs in batch mode on the host (agent-shell needs no terminal: its
# shell is a comint buffer and the agent a subprocess), configured with exactly what
# `deep-acp setup emacs --print` prints, with a fresh HOME whose config points at the fake model;
# driver.el plays the user, check.mjs judges what the shell buffer shows.
#
# Needs: Emacs >= 29.1, `npm run build:binary`, and agent-shell's sources assembled outside this
# repository (they are not committed here): AS_SRC holds acp/ (acp.el), shell-maker/ (shell-maker,
# which also carries markdown-overlays) and agent-shell/ (agent-shell.el and its agent-shell-*.el).
# Usage: scripts/real-clients/agent-shell/run.sh [OUT_DIR]
#   DEEP_ACP_BINARY=PATH runs another build; SNIPPET=FILE uses that setup snippet instead of the printed one.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
src="${AS_SRC:-/work/ashell-src}"
binary="${DEEP_ACP_BINARY:-$repo/dist/bin/deep-acp-linux-x64}"
out="${1:-$(mktemp -d /tmp/deep-acp-agent-shell.XXXXXX)}"
mkdir -p "$out"

[ -x "$binary" ] || { echo "no $binary: run npm run build:binary first" >&2; exit 1; }
for dir in acp shell-maker agent-shell; do
  [ -d "$src/$dir" ] || { echo "no $src/$dir: assemble agent-shell's sources first (see docs/editors.md)" >&2; exit 1; }
done
version() { sed -n 's/^;; Version: *//p' "$1" | head -1; }
{
  echo "emacs $(emacs --version | head -1)"
  echo "agent-shell $(version "$src/agent-shell/agent-shell.el")${AS_ORIGIN:+ ($AS_ORIGIN)}"
  echo "acp.el $(version "$src/acp/acp.el")"
  echo "shell-maker $(version "$src/shell-maker/shell-maker.el")"
  if [ -n "${DEEP_ACP_BINARY:-}" ]; then echo "deep-acp $binary"; else
    echo "deep-acp $(git -C "$repo" rev-parse HEAD)$(git -C "$repo" diff --quiet HEAD -- src || echo ' (with uncommitted src changes)')"
  fi
} >"$out/versions.txt"

model_pid=""
cleanup() { if [ -n "$model_pid" ]; then kill "$model_pid" 2>/dev/null || true; fi; }
trap cleanup EXIT

dir="$out/run"
rm -rf "$dir" && mkdir -p "$dir/home/.deepagents" "$dir/project" "$dir/result"
printf '[model]\ndefault = "openai:gpt-4o"\n' >"$dir/home/.deepagents/config.toml"

# The fake model on loopback: one node process (tsx as a loader), so the kill above ends it.
(cd "$repo" && exec node --import tsx scripts/real-clients/fake-model-server.ts --requests "$dir/result/requests.json") \
  >"$dir/model.out" 2>"$dir/model.err" &
model_pid=$!
url=""
for _ in $(seq 1 100); do
  url="$(head -1 "$dir/model.out" 2>/dev/null | sed -n 's/.*"openaiBaseUrl":"\([^"]*\)".*/\1/p')"
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { cat "$dir/model.err" >&2; echo "the fake model did not start" >&2; exit 1; }

# The snippet exactly as `deep-acp setup emacs --print` prints it (it names the binary's path).
if [ -n "${SNIPPET:-}" ]; then cp "$SNIPPET" "$dir/result/snippet.el"; else
  HOME="$dir/home" "$binary" setup emacs --print >"$dir/result/snippet.el" 2>/dev/null
fi

code=0
(cd "$dir/project" && HOME="$dir/home" OPENAI_API_KEY=fake-key OPENAI_BASE_URL="$url" \
  AS_ACP_DIR="$src/acp" AS_SHELL_MAKER_DIR="$src/shell-maker" AS_AGENT_SHELL_DIR="$src/agent-shell" \
  AS_SNIPPET="$dir/result/snippet.el" AS_OUT="$dir/result" \
  timeout 600 emacs --batch -l "$here/driver.el") >"$dir/emacs.out" 2>"$dir/emacs.err" || code=$?
kill "$model_pid" 2>/dev/null || true
wait "$model_pid" 2>/dev/null || true
model_pid=""
echo "== agent-shell $(version "$src/agent-shell/agent-shell.el") (emacs exit $code)"
[ "$code" = 0 ] || grep -v '^Loading' "$dir/emacs.err" | tail -20 >&2
node "$here/check.mjs" "$dir"
