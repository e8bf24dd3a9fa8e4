#!/usr/bin/env bash
# Remakes the LibreOffice-made documents of this folder (README.md says what each is for).
# Needs LibreOffice (Debian libreoffice-writer, libreoffice-calc, libreoffice-impress: scripts/eval-deps.sh).
# Run by hand; the outputs are committed (the tests and the bench read them, CI does not remake them).
set -euo pipefail
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
so() { soffice --headless -env:UserInstallation="file://$out/profile" "$@" --outdir "$out" >/dev/null; }
# Writer: the report, its PDF export.
so --convert-to 'docx:MS Word 2007 XML' report.html && cp "$out/report.docx" .
so --convert-to pdf report.docx && cp "$out/report.pdf" .
# Calc: the survey table (an HTML table imported into Calc), its PDF export.
so --infilter='HTML (StarCalc)' --convert-to 'xlsx:Calc MS Excel 2007 XML' survey.html && cp "$out/survey.xlsx" .
so --convert-to pdf survey.xlsx && cp "$out/survey.pdf" .
# Impress: the PDF export of Docling's PowerPoint sample (a real PowerPoint file), for the bench's baseline.
so --convert-to pdf ../docling/pptx/sources/powerpoint_sample.pptx && cp "$out/powerpoint_sample.pdf" .
# Impress: Docling's PowerPoint sample saved again by Impress (pptx → odp → pptx), a PPTX LibreOffice wrote itself.
so --convert-to odp ../docling/pptx/sources/powerpoint_sample.pptx
so --convert-to 'pptx:Impress MS PowerPoint 2007 XML' "$out/powerpoint_sample.odp"
cp "$out/powerpoint_sample.pptx" powerpoint_sample_lo.pptx
