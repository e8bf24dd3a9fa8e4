#!/bin/sh
# brochure.pdf: a one-page course prospectus (a stat row of three "big number + description"
# blocks, a two-column numbered module list, an unruled fee table), printed by headless Chromium
# (Debian package chromium) from brochure.html. Written for the real-world set (issue 31, class 4:
# things that are not tables made into tables); the page's tests are in ../tests.jsonl.
# report-table.pdf: an annual report's page (running head, publisher footer, a table with a stacked
# two-level header, section rows inside it and a total row, a leader-dot list of costs); newsletter.pdf:
# a newsletter page (running head, a drop cap, two text columns beside a sidebar, a mid-page
# full-width heading over a 2x2 grid of cards); both printed by headless Chromium. memo.pdf: a
# typewritten memorandum in a monospaced font (a centred page number, a typed table, a numbered
# list), converted by LibreOffice Writer (Debian package libreoffice-writer). Written for issue 40's
# growth of the set (furniture, complex layouts, tables with stacked headers and section rows,
# leader dots, a typewriter page that is not code).
set -e
cd "$(dirname "$0")"
chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer --print-to-pdf=brochure.pdf "file://$PWD/brochure.html"
for f in report-table newsletter; do
  chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer --print-to-pdf=$f.pdf "file://$PWD/$f.html"
done
profile="$(mktemp -d)"
soffice --headless -env:UserInstallation="file://$profile" --infilter="HTML (StarWriter)" --convert-to pdf:writer_pdf_Export --outdir . memo.html
rm -rf "$profile"
