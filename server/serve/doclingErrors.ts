/**
 * docling's `ErrorItem` as docling-serve 1.31 answers it, and how Folio's error kinds map onto it.
 *
 * docling-serve's responses are docling's pydantic models (`docling/datamodel/service/responses.py`,
 * `ErrorItem` in `docling/datamodel/base_models.py`, docling e1cb2b2 = v2.121.0; docling-serve
 * 1.31.0 at 615f089 needs docling-slim >= 2.118, whose models are the same). docling-client
 * validates every answer with them, so a value outside these enums makes `convert_all` report
 * "Response schema mismatch" instead of the reason (issue 42). The values are checked against
 * pydantic's own schema of those models (test/fixtures/docling-serve/responses-*.schema.json,
 * written by scripts/docling-serve-schema.py) by test/serve/doclingErrors.test.ts.
 */
import type { ErrorKind } from '../../common/protocol';

/** docling's `DoclingComponentType`: which part of the converter failed. */
export const DOCLING_COMPONENT_TYPES = [
  'document_backend',
  'model',
  'doc_assembler',
  'user_input',
  'pipeline',
] as const;
export type DoclingComponentType = (typeof DOCLING_COMPONENT_TYPES)[number];

/** docling's `FailureCategory`: what kind of failure, for filtering (its default is `unknown`). */
export const FAILURE_CATEGORIES = [
  'policy',
  'capacity',
  'source_unavailable',
  'target_unavailable',
  'timeout',
  'internal',
  'backend_failure',
  'inference_failure',
  'unknown',
] as const;
export type FailureCategory = (typeof FAILURE_CATEGORIES)[number];

/**
 * docling's `ErrorItem`, plus Folio's own `error_kind` (its ErrorKind, docs/errors.md), which
 * docling's model ignores as an extra field. `page_no` is set for a page's error, as docling does.
 */
export interface ErrorItem {
  component_type: DoclingComponentType;
  module_name: string;
  error_message: string;
  category: FailureCategory;
  page_no?: number;
  error_kind: ErrorKind;
}

interface Placement {
  /** Who failed when the whole document failed. */
  document: DoclingComponentType;
  /** Who failed when one page failed. */
  page: DoclingComponentType;
  category: FailureCategory;
}

/**
 * Every kind, placed as docling places the same failure: a document its backend cannot open is
 * `user_input` + `backend_failure` (`build_invalid_input_errors`), a page that fails to parse
 * `document_backend` + `backend_failure` ("Page failed to parse."), a time-out `pipeline` +
 * `timeout`, a refused input `user_input` + `policy`, a model's failure `model` +
 * `inference_failure`.
 */
const PLACEMENT: Record<ErrorKind, Placement> = {
  input: { document: 'user_input', page: 'user_input', category: 'policy' },
  'not-found': { document: 'user_input', page: 'user_input', category: 'source_unavailable' },
  damaged: { document: 'user_input', page: 'document_backend', category: 'backend_failure' },
  encrypted: { document: 'user_input', page: 'document_backend', category: 'backend_failure' },
  password: { document: 'user_input', page: 'document_backend', category: 'backend_failure' },
  empty: { document: 'user_input', page: 'document_backend', category: 'backend_failure' },
  limit: { document: 'user_input', page: 'pipeline', category: 'policy' },
  timeout: { document: 'pipeline', page: 'pipeline', category: 'timeout' },
  // A page worker out of heap: docling has no page-scope category for it (`capacity` is task-scope).
  memory: { document: 'pipeline', page: 'pipeline', category: 'unknown' },
  model: { document: 'model', page: 'model', category: 'inference_failure' },
  cancelled: { document: 'pipeline', page: 'pipeline', category: 'unknown' },
  internal: { document: 'pipeline', page: 'pipeline', category: 'internal' },
};

/** The error item of a failed document (`page` undefined) or of one failed page. */
export function errorItem(kind: ErrorKind, message: string, page?: number): ErrorItem {
  const p = PLACEMENT[kind];
  return {
    component_type: page === undefined ? p.document : p.page,
    module_name: 'folio',
    error_message: message,
    category: p.category,
    ...(page === undefined ? {} : { page_no: page }),
    error_kind: kind,
  };
}
