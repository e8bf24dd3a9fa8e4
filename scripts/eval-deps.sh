#!/usr/bin/env bash
# Installs the Debian packages that the documented evaluation and benchmark commands need
# (eval/README.md), when missing. Run by npm before `npm run eval`, `eval:math` and `bench`
# (the `pre*` scripts), by scripts/test-deps.sh for `npm test` (whose smoke test runs every bench
# part and eval set in its smallest mode), or alone: `npm run eval:deps [-- bench|eval|all]`.
#
#   bench  pdftotext (poppler-utils) and PyMuPDF (python3-fitz), the peers; redis-server for
#          `--parts queue`
#   eval   the above, plus the producers of the generated sets: XeLaTeX with the LaTeX packages
#          and Latin Modern fonts they use (multicol, math: texlive-xetex, texlive-latex-extra,
#          texlive-fonts-recommended, fonts-lmodern), Chromium, LibreOffice Writer and Math; and
#          the documents the real-world set cuts pages from (the packages eval/realworld/debian.tsv
#          names, texlive-*-doc among them) with pdfseparate/mutool
#   all    both (the default)
#
# As root with apt-get it installs them; otherwise it prints the one command to run and fails,
# so an evaluation never starts on a machine that cannot produce its sets.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
group="${1:-all}"
bench=(poppler-utils python3-fitz redis-server)
evalset=(poppler-utils python3-fitz mupdf-tools texlive-xetex texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended fonts-lmodern lmodern chromium libreoffice-writer libreoffice-math libreoffice-calc libreoffice-impress)
if [ -f eval/realworld/debian.tsv ]; then
  while IFS= read -r p; do evalset+=("$p"); done < <(awk -F'\t' '!/^#/ && NF >= 2 && $2 != "" { print $2 }' eval/realworld/debian.tsv | sort -u)
fi
case "$group" in
  bench) want=("${bench[@]}") ;;
  eval) want=("${evalset[@]}") ;;
  all) want=("${bench[@]}" "${evalset[@]}") ;;
  *) echo "eval-deps: unknown group \"$group\": use bench, eval or all" >&2; exit 2 ;;
esac
missing=()
for pkg in $(printf '%s\n' "${want[@]}" | sort -u); do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "eval-deps: installing Debian packages: ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "eval-deps: the evaluation needs Debian packages that are missing: ${missing[*]}" >&2
  echo "eval-deps: run: sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
  echo "eval-deps: (or: sudo bash scripts/eval-deps.sh $group)" >&2
  exit 1
fi
