/**
 * Errors the user can act on. Each names the file and says what to do; `code` is one of the
 * protocol's `FolioErrorCodes`, so the extension can react (ask for a password) and the CLI can
 * print one line.
 */
import { FolioErrorCodes } from './protocol';

export type FolioErrorCode = (typeof FolioErrorCodes)[keyof typeof FolioErrorCodes];

export class FolioError extends Error {
  constructor(
    readonly code: FolioErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'FolioError';
  }
}

export function isFolioError(e: unknown): e is FolioError {
  return e instanceof FolioError || (typeof e === 'object' && e !== null && (e as { name?: string }).name === 'FolioError');
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
  if (s.name === 'FolioError' && s.code !== undefined) return new FolioError(s.code as FolioErrorCode, s.message);
  const e = new Error(s.message);
  e.name = s.name;
  if (s.stack) e.stack = s.stack;
  return e;
}
