/**
 * The resource limits of a conversion, their defaults and their validation (docs/limits.md).
 * Used by the pool (page memory budget), the orchestrator (document time budget), the backend
 * (settings) and the CLI (flags), so each checks the same ranges and says the same thing.
 */
import { FolioErrorCodes, LIMIT_RANGES, type ConvertLimits } from '../../common/protocol';
import { FolioError } from '../errors';

export const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: Required<ConvertLimits> = {
  documentSeconds: 3600,
  pageMemoryMb: 512,
  // The sidecar's own page limit (SECURITY.md): a document past it could not be previewed anyway.
  maxPages: 10000,
  // server/office/xlsx.ts's DEFAULT_MAX_CELLS (a reader called without a limit); a test checks they agree.
  maxCells: 1_000_000,
};

/** Accepted ranges (in the protocol module, which the extension checks its settings against too). */
export { LIMIT_RANGES };

/**
 * Checks limits from an untrusted source (a request, a setting, a flag) and fills the defaults.
 * `where` names the source in the error ("--max-page-memory", "folio.limits.pageMemoryMb").
 */
export function resolveLimits(
  given: unknown,
  fallback: Required<ConvertLimits> = DEFAULT_LIMITS,
  where = 'limits',
): Required<ConvertLimits> {
  if (given === undefined || given === null) return { ...fallback };
  if (typeof given !== 'object' || Array.isArray(given)) throw invalid(`${where} must be an object`);
  const g = given as Record<string, unknown>;
  const out = { ...fallback };
  for (const key of Object.keys(g)) {
    if (!(key in LIMIT_RANGES))
      throw invalid(`${where}.${key} is not a known limit (known: ${Object.keys(LIMIT_RANGES).join(', ')})`);
    const v = g[key];
    if (v === undefined || v === null) continue;
    const k = key as keyof typeof LIMIT_RANGES;
    out[k] = checkLimit(k, v, `${where}.${key}`);
  }
  return out;
}

/** One limit's value: a whole number in its range. */
export function checkLimit(key: keyof typeof LIMIT_RANGES, v: unknown, name: string): number {
  const { min, max } = LIMIT_RANGES[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw invalid(`${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(v)}`);
  }
  return v;
}

function invalid(message: string): FolioError {
  return new FolioError(FolioErrorCodes.InvalidParams, message);
}
