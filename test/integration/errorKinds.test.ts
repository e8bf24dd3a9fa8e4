/**
 * The error model (docs/errors.md) on real failures: a damaged PDF, an encrypted one (no
 * password, a wrong one), a cancelled conversion and a document over the page limit, each
 * produced by the real page workers and pdf.js, then read through every surface's one table —
 * the CLI's exit code, the HTTP status, MCP's tool error, the extension's reaction, the queue's
 * retry — and through JSON-RPC (the code the extension gets back).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { ResponseError } from 'vscode-jsonrpc';
import { ErrorCodes, LSPErrorCodes } from 'vscode-languageserver-protocol';
import { repoRoot, corpusPath } from '../helpers/corpus';
import { PageWorkerPool } from '../../server/worker/pool';
import { analyzeOptions, convertDocument } from '../../server/convert/convertDocument';
import { ERROR_KIND_CODES, FolioErrorCodes, type ErrorKind } from '../../common/protocol';
import { CancelledError, isCancelled, isFolioError, kindOf, kindOfCode, messageOf } from '../../server/errors';
import { EXIT_CODES } from '../../server/exitCodes';
import { HTTP_STATUS } from '../../server/serve/httpStatus';
import { ERROR_KIND_META, MCP_ADVICE, toolError } from '../../server/mcp/toolErrors';
import { RETRIED } from '../../server/queue/retries';
import { EXTENSION_REACTIONS, reactionTo } from '../../src/errorReactions';

const SAMPLE = join(repoRoot(), 'test', 'fixtures', 'sample.pdf'); // 2 pages
const DAMAGED = () => corpusPath('pdfjs-test-pdfs/poppler-742-0-fuzzed.pdf');
const LOCKED = () => corpusPath('docling/pdf/2206.01062_pg3.password.pdf'); // docling's test file, password 1234

let pool: PageWorkerPool;
let dir: string;
/** sample.pdf cut after 300 bytes, as a download broken off: pdf.js cannot open it. */
let truncated: string;
before(() => {
  pool = new PageWorkerPool({ size: 1, script: join(repoRoot(), 'dist', 'pageWorker.js') });
  dir = mkdtempSync(join(tmpdir(), 'folio-kinds-'));
  truncated = join(dir, 'truncated.pdf');
  writeFileSync(truncated, readFileSync(SAMPLE).subarray(0, 300));
});
after(async () => {
  await pool.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const sink = { page: () => undefined };
/** What a real conversion threw (it must throw). */
async function failure(
  uri: string,
  extra: { password?: string; limits?: { maxPages: number } } = {},
): Promise<unknown> {
  try {
    await convertDocument(pool, { uri, ...extra, options: { ocr: 'never' } }, sink);
  } catch (e) {
    return e;
  }
  assert.fail(`${uri} converted, but a failure was expected`);
}

/** Every table, read for one kind. */
function surfaces(kind: ErrorKind) {
  return {
    exit: EXIT_CODES[kind],
    http: HTTP_STATUS[kind],
    mcp: toolError(kind, 'x')._meta[ERROR_KIND_META],
    extension: EXTENSION_REACTIONS[kind].do,
    retried: RETRIED[kind],
  };
}

test('each kind has one code and each code one kind; every table covers every kind', () => {
  const kinds = Object.keys(ERROR_KIND_CODES) as ErrorKind[];
  assert.equal(new Set(Object.values(ERROR_KIND_CODES)).size, kinds.length, 'codes are distinct');
  for (const k of kinds) assert.equal(kindOfCode(ERROR_KIND_CODES[k]), k);
  for (const table of [EXIT_CODES, HTTP_STATUS, MCP_ADVICE, EXTENSION_REACTIONS, RETRIED])
    assert.deepEqual(Object.keys(table).sort(), [...kinds].sort());
  // The library's named codes (protocol.ts writes them as literals so as not to load the library).
  assert.equal(FolioErrorCodes.RequestCancelled, LSPErrorCodes.RequestCancelled);
  assert.equal(FolioErrorCodes.InvalidParams, ErrorCodes.InvalidParams);
  assert.equal(FolioErrorCodes.InternalError, ErrorCodes.InternalError);
  assert.equal(kindOf(new Error('anything at all')), 'internal', 'an error without a code is internal');
  assert.equal(kindOf(new DOMException('stop', 'AbortError')), 'cancelled');
  assert.equal(messageOf('plain'), 'plain');
});

test('a damaged PDF: kind damaged → exit 1, HTTP 422, shown as an error, not retried', async () => {
  // Damaged as a whole: the document's error.
  const e = await failure(truncated);
  assert.ok(isFolioError(e), messageOf(e));
  assert.equal(kindOf(e), 'damaged');
  // A fuzzed file whose page pdf.js cannot parse: a page error of the same kind (the parser's
  // own exception carries no code; the page stage says what it means).
  const summary = await convertDocument(pool, { uri: DAMAGED(), options: { ocr: 'never' } }, sink);
  assert.deepEqual(summary.pagesDone, []);
  assert.deepEqual(
    summary.pageErrors.map((p) => [p.page, p.kind]),
    [[1, 'damaged']],
  );
  assert.deepEqual(surfaces('damaged'), { exit: 1, http: 422, mcp: 'damaged', extension: 'show', retried: false });
  // What the extension gets over JSON-RPC: the code alone says it.
  assert.deepEqual(reactionTo(new ResponseError((e as { code: number }).code, 'words do not matter')), {
    do: 'show',
    severity: 'error',
  });
});

test('an encrypted PDF: no password → encrypted, a wrong one → password; both ask for the password', async () => {
  const none = await failure(LOCKED());
  const wrong = await failure(LOCKED(), { password: 'not-it' });
  assert.equal(kindOf(none), 'encrypted');
  assert.equal(kindOf(wrong), 'password');
  const r1 = reactionTo(new ResponseError((none as { code: number }).code, ''));
  const r2 = reactionTo(new ResponseError((wrong as { code: number }).code, ''));
  assert.equal(r1.do, 'ask-password');
  assert.equal(r2.do, 'ask-password');
  assert.notDeepEqual(r1, r2, 'a wrong password is told apart from none');
  assert.deepEqual(surfaces('encrypted'), {
    exit: 1,
    http: 422,
    mcp: 'encrypted',
    extension: 'ask-password',
    retried: false,
  });
  assert.match(MCP_ADVICE.encrypted, /password argument/);
});

test('a document over the page limit: kind limit → exit 1, HTTP 413, a warning in the extension', async () => {
  const e = await failure(SAMPLE, { limits: { maxPages: 1 } });
  assert.equal(kindOf(e), 'limit');
  assert.deepEqual(surfaces('limit'), { exit: 1, http: 413, mcp: 'limit', extension: 'show', retried: false });
  assert.deepEqual(reactionTo(e), { do: 'show', severity: 'warning' });
});

test('a cancelled conversion: the one CancelledError, kind cancelled → exit 130, HTTP 409, only logged, LSP RequestCancelled', async () => {
  // A page request whose signal is aborted, as the pool answers it.
  const ac = new AbortController();
  const opened = await pool.open({ docId: 'cancel-test', path: SAMPLE });
  assert.equal(opened, 2);
  const pending = pool.analyze('cancel-test', 1, analyzeOptions({ ocr: 'never' }), ac.signal);
  ac.abort();
  const e = await pending.then(
    () => assert.fail('the page was not cancelled'),
    (err: unknown) => err,
  );
  await pool.close('cancel-test');
  assert.ok(e instanceof CancelledError, messageOf(e));
  assert.ok(isCancelled(e));
  assert.equal((e as CancelledError).code, FolioErrorCodes.RequestCancelled);
  assert.deepEqual(surfaces('cancelled'), { exit: 130, http: 409, mcp: 'cancelled', extension: 'log', retried: true });
  // A whole conversion cancelled after its first page keeps that page and says it was cancelled.
  const stop = new AbortController();
  const summary = await convertDocument(
    pool,
    { uri: SAMPLE, options: { ocr: 'never' } },
    { page: () => stop.abort() },
    stop.signal,
  );
  assert.equal(summary.cancelled, true);
  assert.deepEqual(summary.pagesDone, [1]);
});
