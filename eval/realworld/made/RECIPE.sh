#!/bin/sh
# brochure.pdf: a one-page course prospectus (a stat row of three "big number + description"
# blocks, a two-column numbered module list, an unruled fee table), printed by headless Chromium
# (Debian package chromium) from brochure.html. Written for the real-world set (issue 31, class 4:
# things that are not tables made into tables); the page's tests are in ../tests.jsonl.
set -e
cd "$(dirname "$0")"
chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer --print-to-pdf=brochure.pdf "file://$PWD/brochure.html"
