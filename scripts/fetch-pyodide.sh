#!/usr/bin/env bash
# Pyodide for the score-keeper's offline engine (the engine's exact scores, docs/rules.md, on a phone with no network):
# `npm pack pyodide@VERSION` (the npm registry, through npm itself), unpacked without node_modules
# into DIR (web/static/pyodide/, git-ignored), where the app serves it and its service worker keeps it.
# Only the runtime files a page loads are kept. Installs npm from Debian's packages when it is missing.
set -euo pipefail
version="${1:?usage: fetch-pyodide.sh VERSION DIR}"
dir="${2:?usage: fetch-pyodide.sh VERSION DIR}"
files="pyodide.js pyodide.asm.js pyodide.asm.wasm python_stdlib.zip pyodide-lock.json"
log() { echo "fetch-pyodide: $*" >&2; }

if ! command -v npm >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo -n"
  log "npm is missing: installing it from Debian's packages"
  $SUDO apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq npm >&2
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "pyodide@$version" >/dev/null)
tar xzf "$tmp"/pyodide-*.tgz -C "$tmp"
mkdir -p "$dir"
rm -f "$dir"/.version-*
for f in $files; do
  cp "$tmp/package/$f" "$dir/$f"
done
cp "$tmp/package/LICENSE" "$dir/LICENSE" 2>/dev/null || true
touch "$dir/.version-$version"
log "pyodide $version in $dir ($(du -sh "$dir" | cut -f1))"
