#!/usr/bin/env python3
"""JSON Schema of docling-serve's response models, as docling's own pydantic models define them
(run by hand, not in CI; the output is committed as a test fixture).

docling-serve 1.31.0 answers with the models of `docling/datamodel/service/responses.py` (it
depends on docling-slim >= 2.118), and docling-client validates every answer with them
(`docling/service_client/client.py _parse_result_model_response`, `model_validate_json`): an
answer that does not validate is a `ResponseSchemaMismatchError`. The schema written here is
pydantic's own rendering of those models, so a test holding Folio's answers to it holds them to
the rule docling-client applies.

  python3 -m venv --system-site-packages /tmp/dl
  /tmp/dl/bin/pip install --no-deps <docling-core source> <docling source>
  /tmp/dl/bin/pip install jsonschema jsonref tabulate pandas pillow pyyaml typing-extensions \\
      typer defusedxml pydantic-settings
  /tmp/dl/bin/python scripts/docling-serve-schema.py > test/fixtures/docling-serve/responses-<docling version>.schema.json

(If docling does not install, run it from docling's source folder: the models need only
docling-core and pydantic.)
"""
import json
import sys

from pydantic.json_schema import models_json_schema

from docling.datamodel.service.responses import (
    ChunkDocumentResponse,
    ConvertDocumentResponse,
    TaskStatusResponse,
)

_, schema = models_json_schema(
    [(m, "validation") for m in (ConvertDocumentResponse, ChunkDocumentResponse, TaskStatusResponse)],
    ref_template="#/$defs/{model}",
)
json.dump(schema, sys.stdout, separators=(",", ":"), sort_keys=True)
sys.stdout.write("\n")
