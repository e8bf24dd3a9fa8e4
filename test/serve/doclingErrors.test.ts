/**
 * Folio's `errors[]` hold to docling's own `ErrorItem` (issue 42): the enums Folio declares are
 * docling's, and every error item Folio can answer — each kind, for the document and for a page —
 * validates against pydantic's schema of docling's response models (the rule docling-client
 * applies; test/serve/doclingServeSchema.ts). Before issue 42 Folio answered
 * `component_type: "document"` / `"page"` and `category: "damaged"`, which this rejects.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_KIND_CODES, type ErrorKind } from '../../common/protocol';
import { DOCLING_COMPONENT_TYPES, FAILURE_CATEGORIES, errorItem } from '../../server/serve/doclingErrors';
import { errorItems } from '../../server/serve/doclingResult';
import type { TaskResult, TaskStatusView } from '../../server/serve/tasks';
import { serveSchema, serveValidator } from './doclingServeSchema';

const KINDS = Object.keys(ERROR_KIND_CODES) as ErrorKind[];

test("Folio's DoclingComponentType and FailureCategory are docling's enums, value for value", () => {
  const defs = serveSchema().$defs;
  assert.deepEqual([...DOCLING_COMPONENT_TYPES].sort(), [...(defs.DoclingComponentType!.enum ?? [])].sort());
  assert.deepEqual([...FAILURE_CATEGORIES].sort(), [...(defs.FailureCategory!.enum ?? [])].sort());
});

test("every kind's error item, for the document and for a page, is a valid docling ErrorItem", () => {
  const valid = serveValidator('ErrorItem');
  assert.ok(KINDS.length >= 12);
  for (const kind of KINDS) {
    for (const page of [undefined, 3]) {
      const item = errorItem(kind, `${kind}: what happened`, page);
      assert.deepEqual(valid(item), [], `${kind} ${page ? 'page' : 'document'}: ${JSON.stringify(item)}`);
      assert.equal(item.error_kind, kind, "Folio's kind travels beside docling's fields");
      assert.equal(item.page_no, page);
    }
  }
  // The schema is not a pass-through: the values Folio answered before issue 42 are refused.
  const old = { component_type: 'document', module_name: 'folio', error_message: 'x', category: 'damaged' };
  assert.notDeepEqual(valid(old), []);
  assert.notDeepEqual(valid({ ...old, component_type: 'page', category: 'timeout', page_no: 2 }), []);
});

test('a partly failed and a failed task answer a ConvertDocumentResponse docling-client accepts', () => {
  const valid = serveValidator('ConvertDocumentResponse');
  const document = {
    filename: 'a.pdf',
    md_content: 'x\n',
    json_content: null,
    html_content: null,
    text_content: null,
    doctags_content: null,
  };
  const partial = {
    summary: {
      pageErrors: [
        { page: 2, kind: 'damaged', message: 'this page is damaged' },
        { page: 5, kind: 'timeout', message: 'ran past 120 s' },
      ],
    },
  } as unknown as TaskResult;
  const ok = { state: 'success' } as TaskStatusView;
  const failed = {
    state: 'failure',
    error: 'a.pdf is not a PDF or is damaged',
    errorKind: 'damaged',
  } as TaskStatusView;
  for (const [r, s, status] of [
    [partial, ok, 'partial_success'],
    [undefined, failed, 'failure'],
  ] as const) {
    const errors = errorItems(r, s);
    assert.ok(errors.length > 0);
    const body = { document, status, errors, processing_time: 1.5, timings: {}, warnings: [], task_id: 't' };
    assert.deepEqual(valid(body), [], JSON.stringify(errors));
  }
  assert.deepEqual(
    errorItems(partial, ok).map((e) => [e.component_type, e.category, e.page_no]),
    [
      ['document_backend', 'backend_failure', 2],
      ['pipeline', 'timeout', 5],
    ],
  );
  assert.deepEqual(errorItems(undefined, failed)[0], {
    component_type: 'user_input',
    module_name: 'folio',
    error_message: 'a.pdf is not a PDF or is damaged',
    category: 'backend_failure',
    error_kind: 'damaged',
  });
});
