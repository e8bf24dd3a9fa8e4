#!/usr/bin/env bash
# Installs what `npm test` needs beyond npm packages, when missing:
#   poppler-utils  pdftotext, the baseline the corpus-quality test compares against
#   python3-fitz   PyMuPDF, a peer in `npm run eval`
#   chromium       drives the real VS Code (code-server) in the end-to-end tests
#   libkrb5-dev    needed to install code-server's native modules
#   redis-server   the real Redis the queue and service tests start on a loopback port
#   fonts-breip    a handwriting font: the low-OCR-confidence test writes a note in it
#   libvulkan1     the Vulkan loader: the WebGPU tests run onnxruntime's WebGPU provider (Dawn)
#                  on Chromium's SwiftShader, a software Vulkan device that chromium ships
#                  (test/helpers/softwareWebGpu.ts points only the test processes at it)
# and the cached code-server for the end-to-end tests (test/e2e/setup.sh).
# As root with apt-get it installs them; otherwise it prints the command to run and fails.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
missing=()
for pkg in poppler-utils python3-fitz chromium libkrb5-dev redis-server fonts-breip libvulkan1; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "test-deps: installing Debian packages: ${missing[*]}"
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "test-deps: missing Debian packages: ${missing[*]}" >&2
    echo "test-deps: run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi
# The smoke test (test/bench/benchSmoke.test.ts) runs every bench part and eval set in its
# smallest mode: their producers and documents are installed the same way (scripts/eval-deps.sh).
bash scripts/eval-deps.sh all
if [ -f test/e2e/setup.sh ]; then
  bash test/e2e/setup.sh
fi
