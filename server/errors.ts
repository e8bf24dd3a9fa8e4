/**
 * Errors the user can act on. Each names the file and says what to do; `code` is one of the
 * protocol's `FolioErrorCodes` and `kind` its `ErrorKind` (docs/errors.md): every decision — the
 * extension asking for a password, the CLI's exit code, the HTTP status, a queue's retry — reads
 * those, never the message, whose words are for people only.
 */
import { FolioErrorCodes, type ErrorKind } from '../common/protocol';
import { kindOfCode } from '../common/errorKinds';

export { kindOf, kindOfCode, messageOf, nothingConverted } from '../common/errorKinds';

export type FolioErrorCode = (typeof FolioErrorCodes)[keyof typeof FolioErrorCodes];

export class FolioError extends Error {
  constructor(
    readonly code: FolioErrorCode,
    message: string,
  ) {
    super(rewordedForTest(message));
    this.name = 'FolioError';
  }

  get kind(): ErrorKind {
    return kindOfCode(this.code);
  }
}

/**
 * The one cancel error: a conversion, a page, a reparse, an export or a VLM generation stopped
 * because its caller asked. A `FolioError` of kind `cancelled` (LSP's RequestCancelled code), so
 * it crosses worker threads and JSON-RPC like the others.
 */
export class CancelledError extends FolioError {
  constructor(what = 'the request') {
    super(FolioErrorCodes.RequestCancelled, `${what} was cancelled`);
  }
}

/**
 * The one usage error of every command line (`folio convert`, `serve`, `worker`, `mcp`,
 * `models`): an unknown flag, a flag's bad value, a missing argument, flags that do not go
 * together. A `FolioError` of kind `input` (InvalidParams), so the CLI's exit-code table gives it
 * 2 like any other input error, also when it comes from a command's own bundle
 * (server/cli/commandBundle.ts), where `instanceof` would not hold: the kind decides.
 */
export class UsageError extends FolioError {
  constructor(message: string) {
    super(FolioErrorCodes.InvalidParams, message);
  }
}

export function isFolioError(e: unknown): e is FolioError {
  return (
    e instanceof FolioError ||
    (typeof e === 'object' &&
      e !== null &&
      (e as { name?: string }).name === 'FolioError' &&
      typeof (e as { code?: unknown }).code === 'number')
  );
}

/** Whether `e` is a cancel: our `CancelledError` (also after a thread boundary) or an `AbortError`. */
export function isCancelled(e: unknown): boolean {
  return (
    (isFolioError(e) && e.code === FolioErrorCodes.RequestCancelled) ||
    (typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'AbortError')
  );
}

/**
 * Test hook (test/unit/errorWording.test.ts): with FOLIO_TEST_REWORD_ERRORS=1 in the environment
 * (inherited by worker threads and child processes) every FolioError's message is rewritten —
 * each word's letters reversed — to show that no behaviour depends on the words. Idempotent: a
 * message that crossed a thread boundary is not rewritten twice.
 */
const REWORDED = '⟲ ';
function rewordedForTest(message: string): string {
  if (process.env.FOLIO_TEST_REWORD_ERRORS !== '1' || message.startsWith(REWORDED)) return message;
  return REWORDED + message.replace(/[A-Za-z]+/g, (w) => [...w].reverse().join(''));
}

/** Plain object form, for crossing a worker-thread boundary. */
export interface SerializedError {
  name: string;
  message: string;
  code?: number;
  stack?: string;
}

export function serializeError(e: unknown): SerializedError {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return { name: e.name, message: e.message, code: typeof code === 'number' ? code : undefined, stack: e.stack };
  }
  return { name: 'Error', message: String(e) };
}

export function deserializeError(s: SerializedError): Error {
  if (s.name === 'FolioError' && s.code === FolioErrorCodes.RequestCancelled)
    return Object.assign(new CancelledError(), { message: s.message });
  if (s.name === 'FolioError' && s.code !== undefined) return new FolioError(s.code as FolioErrorCode, s.message);
  const e = new Error(s.message);
  e.name = s.name;
  if (s.stack) e.stack = s.stack;
  return e;
}
