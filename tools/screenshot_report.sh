#!/usr/bin/env bash
# Render a report HTML file with headless Chromium and save a PNG screenshot, to look at the page as
# a reader would. Not needed by CI; install Chromium with `apt-get install -y chromium` (Debian).
#
#   tools/screenshot_report.sh report.html [out.png] [WIDTHxHEIGHT]
set -euo pipefail
if [[ $# -lt 1 ]]; then
  echo "usage: $0 REPORT.html [OUT.png] [WIDTHxHEIGHT (default 1400x3000)]" >&2
  exit 2
fi
html="$(realpath "$1")"
out="${2:-${1%.html}.png}"
size="${3:-1400x3000}"
browser=""
for b in chromium chromium-browser google-chrome google-chrome-stable; do
  if command -v "$b" >/dev/null 2>&1; then browser="$b"; break; fi
done
if [[ -z "$browser" ]]; then
  echo "$0: no chromium found (Debian: apt-get install -y chromium)" >&2
  exit 3
fi
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
out_abs="$(realpath -m "$out")"
"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --hide-scrollbars --screenshot="$out_abs" \
  --window-size="${size/x/,}" "file://$html" >/dev/null 2>&1
test -s "$out_abs"
echo "$out_abs"
