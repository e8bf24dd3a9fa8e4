#!/usr/bin/env python3
"""Folio's outputs read by docling-core itself (run by hand, not in CI; docs/formats.md).

For every <stem>.doctags.txt in FOLDER (written by `folio convert --format doctags`), loads it
with docling-core's own reader (DocTagsDocument + DoclingDocument.load_from_doctags) and compares
its export_to_markdown() with that of <stem>.docling.json (`--format docling`, loaded with
DoclingDocument.model_validate_json): the same Markdown means docling-core reads Folio's DocTags
as the document Folio wrote. Also validates every <stem>.chunks.jsonl line with
DocChunk.model_validate_json. Prints one line per file and the differing lines.

  python3 -m venv /tmp/dl && /tmp/dl/bin/pip install --no-deps <docling-core source> && \\
    /tmp/dl/bin/pip install pydantic jsonschema jsonref tabulate pandas pillow pyyaml \\
    typing-extensions typer latex2mathml defusedxml pydantic-settings
  /tmp/dl/bin/python scripts/docling-core-check.py FOLDER
"""
import difflib
import re
import sys
from pathlib import Path

from docling_core.types.doc.document import DoclingDocument, DocTagsDocument


def main(folder: Path) -> int:
    bad = 0
    stems = sorted(p.name[: -len(".doctags.txt")] for p in folder.glob("*.doctags.txt"))
    if not stems:
        print(f"no *.doctags.txt in {folder}")
        return 2
    for stem in stems:
        text = (folder / f"{stem}.doctags.txt").read_text(encoding="utf-8")
        dt = DocTagsDocument.from_multipage_doctags_and_images(text, None)
        from_tags = DoclingDocument.load_from_doctags(dt, document_name=stem).export_to_markdown()
        js = folder / f"{stem}.docling.json"
        if not js.exists():
            print(f"{stem}: no {js.name}")
            bad += 1
            continue
        from_json = DoclingDocument.model_validate_json(js.read_text(encoding="utf-8")).export_to_markdown()
        same = from_tags == from_json
        # docling-core joins an inline group's parts with a space; the DoclingDocument keeps each
        # part's own spaces, so its Markdown has two spaces around inline math where the DocTags' has one.
        squeeze = lambda s: re.sub(r" {2,}", " ", s)
        spaces = not same and squeeze(from_tags) == squeeze(from_json)
        verdict = "the same" if same else "the same up to spaces" if spaces else "different"
        print(f"{stem}: DocTags and DoclingDocument give {verdict} Markdown")
        if not same and not spaces:
            bad += 1
            for line in difflib.unified_diff(
                from_json.splitlines(), from_tags.splitlines(), "docling.json", "doctags", n=0, lineterm=""
            ):
                print("   ", line[:200])
        chunks = folder / f"{stem}.chunks.jsonl"
        if chunks.exists():
            try:
                from docling_core.transforms.chunker import DocChunk
            except ImportError as e:  # the chunking extra (semchunk, tree-sitter, transformers)
                print(f"{stem}: chunk lines not checked ({e}); CI checks them against the DocChunk JSON Schema")
                continue

            lines = [l for l in chunks.read_text(encoding="utf-8").splitlines() if l.strip()]
            for l in lines:
                DocChunk.model_validate_json(l)
            print(f"{stem}: {len(lines)} chunk lines valid DocChunks")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else ".")))
