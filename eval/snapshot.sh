#!/usr/bin/env bash
# Snapshot of Folio's outputs on a fixed input set, and the list of outputs two snapshots differ in.
#
#   eval/snapshot.sh --out DIR [--no-build] [--formats md,doctags,docling] [--sets fixtures,corpus,realworld] [--jobs N]
#                    [--inputs-from SNAPSHOT]
#   eval/snapshot.sh --compare A B [--diff]
#
# Inputs (in this order, each given a unique flat name under DIR/inputs/):
#   - every PDF under test/fixtures/                              fx__<path with / as __>.pdf
#   - the corpus documents of eval/snapshot.list (pages cut with pdfseparate + pdfunite)
#                                                                 co__<path with / as __>.pdf
#   - every page of the real-world set's working part (eval/realworld/tests.jsonl), cut by
#     pages.main; the sealed part's pages (eval/realworld/sealed.ts) are never converted here
#                                                                 rw__<page file>.pdf
# `--sets` takes a part of them (the real-world pages include scans that OCR reads: the slow part).
# Each format is written by one `folio convert` over all inputs (`--images none`, so pictures are
# placeholders and the snapshot holds text only) into DIR/<format>/. DIR/MANIFEST lists the inputs
# with their SHA-256, the commit and the dirty state of the tree, so `--compare` refuses two
# snapshots of different inputs instead of reporting every output as moved.
#
# `--inputs-from SNAPSHOT` converts the very input files of an earlier snapshot instead of cutting
# them again: poppler's cuts carry a fresh document ID each time, which moves the docling output's
# `binary_hash`, so a before/after comparison of the docling format needs the same files. Either
# way, the inputs' own folder is written as `<inputs>` in the outputs (the docling `origin.uri`
# names the file converted), so two snapshots in different folders compare byte for byte.
#
# `--compare A B` prints one line per output that differs (`changed`, `only-in-A`, `only-in-B`)
# and a count; with `--diff`, a unified diff of each changed output. Exit 0 when equal, 1 when
# outputs differ, 2 on a usage or input error.
#
# Do not rebuild dist/ while a snapshot runs: page workers load their bundle when they start.
#
# Why a script: every change to layout, furniture or reading order must move only the outputs it
# is meant to move, and the moved ones are reviewed (issue 31, "snapshot discipline").
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
corpus="${FOLIO_CORPUS:-$repo/../shared/corpus}"

die() { echo "snapshot: $*" >&2; exit 2; }

# The output files of a snapshot (every format folder), relative to it.
outputs() { (cd "$1" && for d in md doctags docling json chunks; do [[ -d "$d" ]] && find "$d" -type f; done; true); }

compare() {
  local a="$1" b="$2" diff="$3"
  [[ -f "$a/MANIFEST" ]] || die "$a is not a snapshot (no MANIFEST)"
  [[ -f "$b/MANIFEST" ]] || die "$b is not a snapshot (no MANIFEST)"
  if ! cmp -s <(grep '^input' "$a/MANIFEST") <(grep '^input' "$b/MANIFEST"); then
    echo "snapshot: the two snapshots were taken on different inputs:" >&2
    diff <(grep '^input' "$a/MANIFEST") <(grep '^input' "$b/MANIFEST") >&2 || true
    exit 2
  fi
  local n=0 f
  while IFS= read -r f; do
    if [[ ! -e "$b/$f" ]]; then echo "only-in-A  $f"; n=$((n + 1))
    elif [[ ! -e "$a/$f" ]]; then echo "only-in-B  $f"; n=$((n + 1))
    elif ! cmp -s "$a/$f" "$b/$f"; then
      echo "changed    $f"; n=$((n + 1))
      if [[ "$diff" == 1 ]]; then diff -u "$a/$f" "$b/$f" | sed 's/^/    /' || true; fi
    fi
  done < <( (outputs "$a"; outputs "$b") | sort -u)
  local total
  total=$(outputs "$a" | wc -l)
  echo "snapshot: $n of $total outputs differ"
  [[ $n -eq 0 ]]
}

out="" build=1 formats="md,doctags,docling" sets="fixtures,corpus,realworld" jobs=2 diffmode=0 from=""
if [[ "${1:-}" == "--compare" ]]; then
  [[ $# -ge 3 ]] || die "usage: eval/snapshot.sh --compare A B [--diff]"
  [[ "${4:-}" == "--diff" ]] && diffmode=1
  compare "$2" "$3" "$diffmode"
  exit $?
fi
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --formats) formats="$2"; shift 2 ;;
    --sets) sets="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --inputs-from) from="$2"; shift 2 ;;
    *) die "unknown argument $1 (usage: eval/snapshot.sh --out DIR | --compare A B)" ;;
  esac
done
[[ -n "$out" ]] || die "usage: eval/snapshot.sh --out DIR [--no-build] [--formats md,doctags,docling]"
[[ -d "$corpus" ]] || die "no shared corpus at $corpus (set FOLIO_CORPUS)"
if [[ -e "$out" && -n "$(ls -A "$out" 2>/dev/null)" ]]; then die "$out exists and is not empty"; fi
command -v pdfseparate >/dev/null && command -v pdfunite >/dev/null || die "pdfseparate/pdfunite missing: apt-get install -y poppler-utils"

cd "$repo"
if [[ $build == 1 ]]; then node esbuild.mjs --quiet; fi
[[ -f dist/cli.js ]] || die "dist/cli.js missing: run node esbuild.mjs"
mkdir -p "$out/inputs"
out="$(cd "$out" && pwd)"
inputs="$out/inputs"

want() { [[ -z "$from" && ",$sets," == *",$1,"* ]]; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/inputs.list"

# 1. test fixtures
want fixtures && while IFS= read -r f; do
  name="fx__$(echo "${f#test/fixtures/}" | sed 's#/#__#g')"
  cp "$f" "$inputs/$name"
  echo "input $(sha256sum < "$f" | cut -d' ' -f1) all $name" >> "$tmp/inputs.list"
done < <(find test/fixtures -name '*.pdf' | LC_ALL=C sort)

# 2. fixed corpus documents, pages cut
want corpus && while IFS=$'\t' read -r path pages; do
  [[ -z "$path" || "$path" == \#* ]] && continue
  src="$corpus/$path"
  [[ -f "$src" ]] || die "$src (eval/snapshot.list) is missing from the corpus"
  name="co__$(echo "$path" | sed 's#/#__#g')"
  echo "input $(sha256sum < "$src" | cut -d' ' -f1) $pages $name" >> "$tmp/inputs.list"
  if [[ "$pages" == all ]]; then cp "$src" "$inputs/$name"; continue; fi
  first="${pages%-*}" last="${pages#*-}"
  rm -f "$tmp"/p-*.pdf
  pdfseparate -f "$first" -l "$last" "$src" "$tmp/p-%03d.pdf" 2>/dev/null
  pdfunite "$tmp"/p-*.pdf "$inputs/$name" 2>/dev/null
done < eval/snapshot.list

# 3. the real-world set's pages
if want realworld; then
  [[ -f out/scripts/eval/realworld/pages.main.js ]] || die "out/scripts/eval/realworld/pages.main.js missing: run node esbuild.mjs"
  node out/scripts/eval/realworld/pages.main.js --out "$tmp/rw" >/dev/null
  for f in "$tmp"/rw/*.pdf; do
    b="$(basename "$f")"
    [[ "$b" == whole-* || "$b" == cut-* ]] && continue
    cp "$f" "$inputs/rw__$b"
    # The page is named by its source and page; pages.ts checks Debian files against their hashes.
    echo "input - page rw__$b" >> "$tmp/inputs.list"
  done
fi

if [[ -n "$from" ]]; then
  [[ -f "$from/MANIFEST" && -d "$from/inputs" ]] || die "$from is not a snapshot (no MANIFEST or inputs/)"
  cp "$from"/inputs/*.pdf "$inputs/"
  grep '^input' "$from/MANIFEST" > "$tmp/inputs.list"
  sets="$(sed -n 's/^sets //p' "$from/MANIFEST") (inputs of $from)"
fi

{
  echo "commit $(git rev-parse HEAD)$(git diff --quiet HEAD -- server common 2>/dev/null || echo ' (dirty)')"
  echo "date $(date -u +%FT%TZ)"
  echo "sets $sets"
  # Inputs by their sources' hashes: poppler's cuts carry a fresh document ID each time.
  LC_ALL=C sort -k4 "$tmp/inputs.list"
} > "$out/MANIFEST"

n=$(ls "$inputs" | wc -l)
IFS=',' read -r -a fmts <<< "$formats"
for fmt in "${fmts[@]}"; do
  mkdir -p "$out/$fmt"
  echo "snapshot: $n inputs -> $out/$fmt" >&2
  # A document that fails to convert is listed in errors-<fmt>.txt (and so compared) instead of
  # stopping the snapshot.
  node dist/cli.js convert "$inputs"/*.pdf -o "$out/$fmt/" --format "$fmt" --images none \
    --jobs "$jobs" -q --force 2> "$out/errors-$fmt.txt" || true
  grep -v '^\s*$' "$out/errors-$fmt.txt" | sed -E 's#[^ ]*/inputs/#<inputs>/#g' > "$out/$fmt/ERRORS.txt" || true
  rm -f "$out/errors-$fmt.txt"
  # The inputs' folder, as the outputs name it (docling's origin.uri, messages), made neutral.
  find "$out/$fmt" -type f -print0 | xargs -0 -r sed -i "s#file://$inputs/#file://<inputs>/#g; s#$inputs/#<inputs>/#g"
done
echo "snapshot: $(find "$out" -path "$out/inputs" -prune -o -type f -print | grep -v MANIFEST | wc -l) outputs in $out"
