/**
 * The backend's own check of every request's parameters (server/main.ts): the extension already
 * validates what it sends, but options can originate in a workspace file (the sidecar), so the
 * backend does not trust them either. Options are an allow-list: a field not listed here is
 * refused, so a new option must be added (with its check) before a client may send it.
 *
 * Returns a message naming the bad field, or undefined when the parameters are acceptable.
 */
import { isAbsolute, resolve, dirname } from 'node:path';
import { REGION_CLASSES, type ConvertOptions } from '../../common/protocol';
import { CONVERT_OPTIONS, optionProblem, type ConvertOptionName } from '../../common/requestModel';
import { remoteUrlProblem } from '../util/loopback';

const MAX_PATH = 4096;
const PROVIDERS = ['cuda', 'webgpu', 'cpu', 'dml', 'coreml', 'tensorrt'];

type Check = (v: unknown) => string | undefined;

const text = (v: unknown, max: number) => typeof v === 'string' && v.length <= max && !v.includes('\0');

/** The shared options' checks: their choices and ranges are common/requestModel.ts's. */
const shared =
  (key: ConvertOptionName): Check =>
  (v) =>
    optionProblem(CONVERT_OPTIONS[key], v);
const bool: Check = (v) => (typeof v === 'boolean' ? undefined : 'must be true or false');
const folder: Check = (v) => {
  if (typeof v !== 'string' || v.length === 0 || v.length > MAX_PATH || v.includes('\0'))
    return 'must be a folder path';
  if (!isAbsolute(v)) return 'must be an absolute path';
  // `..` segments are how a hostile value walks out of the folder it pretends to be in.
  if (v.split(/[\\/]/).includes('..')) return 'must not contain ".." segments';
  return undefined;
};

const OPTION_CHECKS: Record<keyof ConvertOptions, Check> = {
  engine: shared('engine'),
  renderImages: bool,
  scale: shared('scale'),
  ocr: shared('ocr'),
  keepFurniture: shared('keepFurniture'),
  keepHiddenText: shared('keepHiddenText'),
  cacheDir: folder,
  assetsDir: folder,
  markdownDir: folder,
  modelsDir: folder,
  providers: (v) =>
    Array.isArray(v) && v.length <= PROVIDERS.length && v.every((p) => typeof p === 'string' && PROVIDERS.includes(p))
      ? undefined
      : `must be a list of at most ${PROVIDERS.length} of ${PROVIDERS.join(', ')}`,
  layoutPrior: shared('layoutPrior'),
  speculation: shared('speculation'),
  remoteVlm: (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'must be an object';
    const r = v as Record<string, unknown>;
    const allowed = ['url', 'model', 'apiKey', 'parallel', 'timeoutMs', 'attempts', 'maxTokens'];
    const extra = Object.keys(r).find((k) => !allowed.includes(k));
    if (extra) return `.${extra} is not a remote VLM setting`;
    if (!text(r.url, 2048) || !/^https?:\/\//.test(r.url as string)) return '.url must be an http(s) URL';
    const urlProblem = remoteUrlProblem(r.url as string);
    if (urlProblem) return `.url is refused: ${urlProblem}`;
    if (!text(r.model, 256)) return '.model must be a model name';
    if (r.apiKey !== undefined && !text(r.apiKey, 4096)) return '.apiKey must be a string';
    for (const k of ['parallel', 'timeoutMs', 'attempts', 'maxTokens']) {
      const n = r[k];
      if (n !== undefined && !(typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 3_600_000))
        return `.${k} must be a whole number`;
    }
    return undefined;
  },
};

export function checkOptions(options: unknown): string | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) return 'options must be an object';
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    // Own keys only: `isPrototypeOf`, `valueOf`, `__proto__` are Object.prototype's, not options (security round 3, F8).
    const check = Object.hasOwn(OPTION_CHECKS, key) ? (OPTION_CHECKS as Record<string, Check>)[key] : undefined;
    if (!check) return `options.${key} is not a Folio option`;
    const problem = check(value);
    if (problem) return `options.${key} ${problem}`;
  }
  const o = options as ConvertOptions;
  if (o.assetsDir !== undefined) {
    // Picture assets go into a folder beside the Markdown, never elsewhere.
    if (o.markdownDir === undefined) return 'options.assetsDir needs options.markdownDir';
    if (dirname(resolve(o.assetsDir)) !== resolve(o.markdownDir))
      return 'options.assetsDir must be a folder directly inside options.markdownDir';
  }
  return undefined;
}

/** The document a request names: a `file:` URI or an absolute path to a `.pdf`-or-other file. */
function checkUri(v: unknown): string | undefined {
  if (!text(v, MAX_PATH) || (v as string).length === 0) return 'uri must be a file: URI or an absolute path';
  const s = v as string;
  if (/^[a-z][a-z0-9+.-]+:/i.test(s) && !s.startsWith('file:') && !/^[a-z]:[\\/]/i.test(s))
    return `uri must be a file: URI, not ${s.split(':')[0]}:`;
  return undefined;
}

export function checkConvertParams(p: unknown): string | undefined {
  if (typeof p !== 'object' || p === null) return 'parameters must be an object';
  const q = p as Record<string, unknown>;
  return (
    checkUri(q.uri) ??
    (q.pages !== undefined && !text(q.pages, 1000) ? 'pages must be a page list such as 1-3,7' : undefined) ??
    (q.password !== undefined && !text(q.password, 1024) ? 'password must be a string' : undefined) ??
    (q.pagePartials !== undefined && typeof q.pagePartials !== 'boolean'
      ? 'pagePartials must be true or false'
      : undefined) ??
    checkOptions(q.options)
  );
}

export function checkReparseParams(p: unknown): string | undefined {
  if (typeof p !== 'object' || p === null) return 'parameters must be an object';
  const q = p as Record<string, unknown>;
  const b = q.bbox as Record<string, unknown> | undefined;
  const finite = (n: unknown) => typeof n === 'number' && Number.isFinite(n) && Math.abs(n) < 1e7;
  if (!b || typeof b !== 'object' || !['x0', 'y0', 'x1', 'y1'].every((k) => finite(b[k])))
    return 'bbox must have finite x0, y0, x1, y1';
  if (!Number.isInteger(q.page) || (q.page as number) < 1) return 'page must be a page number from 1';
  if (typeof q.cls !== 'string' || !(REGION_CLASSES as readonly string[]).includes(q.cls))
    return 'cls must be a region class';
  if (!text(q.regionId, 200)) return 'regionId must be a short string';
  if (typeof q.version !== 'number') return 'version must be a number';
  return checkConvertParams(q);
}
