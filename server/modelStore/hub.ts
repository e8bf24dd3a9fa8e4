/**
 * The Hugging Face hub's HTTP layout, as the hub's clients use it:
 *   GET {endpoint}/api/models/{repo}/tree/{revision}[/{folder}]  → JSON list of
 *       { type: "file" | "directory", path, size, oid, lfs?: { oid: <sha256>, size } }
 *       (for LFS files `lfs.oid` is the SHA-256 of the content; for small files `oid` is the git
 *       blob SHA-1, i.e. sha1("blob <size>\0" + content));
 *   GET {endpoint}/{repo}/resolve/{revision}/{path}  → the file (LFS files redirect to a CDN;
 *       Range requests are honoured, which makes resuming possible).
 *   GET {endpoint}/api/models/{repo}/revision/{revision}  → `{ sha: <commit> }`: a branch name
 *       resolved to the commit the whole download then uses (files never mix two commits).
 * The endpoint defaults to https://huggingface.co and follows HF_ENDPOINT like the hub's own
 * clients (mirrors). Only HTTPS is accepted, on every hop of a redirect; plain HTTP only to a
 * loopback address and only when the caller asks for it explicitly (`allowLoopbackHttp`: tests
 * against a local fake hub).
 */
import { FolioError } from '../errors';
import { FolioErrorCodes } from '../../common/protocol';
import { isLoopbackHost } from '../util/loopback';

export interface HubFile {
  path: string;
  size: number;
  /** SHA-256 of the content (LFS files). */
  sha256?: string;
  /** Git blob SHA-1 (non-LFS files). */
  gitSha1?: string;
}

/** What a download may connect to, and how long it waits. */
export interface HubPolicy {
  /** Accept `http://` to 127.0.0.0/8, ::1 or localhost (a local test hub); never other hosts. */
  allowLoopbackHttp?: boolean;
  /** An API call (revision, one listing page) from request to the end of its JSON; default 30 s. */
  requestMs?: number;
  /** A file transfer that receives nothing for this long is stopped (resumable); default 60 s. */
  idleMs?: number;
}

export const DEFAULT_REQUEST_MS = 30_000;
export const DEFAULT_IDLE_MS = 60_000;
/**
 * Caps on what the hub's API may send (issue 21 item 12: an endless listing took 2.2 GB in 7 s).
 * A real listing page is a few KB (the hub pages by 1,000 entries).
 */
export const MAX_LISTING_PAGE_BYTES = 8 * 1024 * 1024;
export const MAX_LISTING_ENTRIES = 10_000;
const MAX_REVISION_BYTES = 64 * 1024;

/**
 * An API answer's JSON, read within `max` bytes and the policy's request time (the timer started
 * with the request, see `hubJson`).
 */
async function cappedJson(res: Response, max: number, url: string): Promise<unknown> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel().catch(() => undefined);
    throw new FolioError(
      FolioErrorCodes.ModelError,
      `${url} answered ${declared} bytes, more than the ${max} bytes Folio reads from the hub's API; nothing was downloaded.`,
    );
  }
  const parts: Uint8Array[] = [];
  let n = 0;
  if (res.body) {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      n += chunk.byteLength;
      if (n > max) {
        await res.body.cancel().catch(() => undefined);
        throw new FolioError(
          FolioErrorCodes.ModelError,
          `${url} sent more than the ${max} bytes Folio reads from the hub's API; nothing was downloaded.`,
        );
      }
      parts.push(chunk);
    }
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    throw new FolioError(FolioErrorCodes.ModelError, `${url} did not answer JSON; try again later.`);
  }
}

/** GET an API URL and read its JSON within `max` bytes and `policy.requestMs`; errors say which. */
async function hubJson(
  endpoint: string,
  url: string,
  max: number,
  policy: HubPolicy,
  signal: AbortSignal | undefined,
  on404: () => FolioError,
): Promise<{ body: unknown; headers: Headers }> {
  const ms = policy.requestMs ?? DEFAULT_REQUEST_MS;
  const timeout = AbortSignal.timeout(ms);
  const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const late = () =>
    new FolioError(
      FolioErrorCodes.ModelError,
      `The model hub did not answer ${url} within ${ms / 1000} s; try again later, or set HF_ENDPOINT to a mirror.`,
    );
  try {
    const res = await hubFetch(url, { signal: both, headers: { accept: 'application/json' } }, policy);
    if (res.status === 404) throw on404();
    if (!res.ok)
      throw new FolioError(FolioErrorCodes.ModelError, `${url} answered HTTP ${res.status}; try again later.`);
    return { body: await cappedJson(res, max, url), headers: res.headers };
  } catch (e) {
    if (signal?.aborted) throw e;
    if (timeout.aborted) throw late();
    if (e instanceof FolioError) throw e;
    throw offlineError(endpoint, e);
  }
}

const isLoopback = isLoopbackHost;

/** Throws unless `url` is HTTPS (or loopback HTTP when the policy allows it). */
export function checkHubUrl(url: string, policy: HubPolicy, what = 'The model hub address'): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new FolioError(FolioErrorCodes.ModelError, `${what} "${url}" is not a valid URL; use https://…`);
  }
  if (u.protocol === 'https:') return u;
  if (u.protocol === 'http:' && policy.allowLoopbackHttp && isLoopback(u.hostname)) return u;
  const why =
    u.protocol === 'http:' && isLoopback(u.hostname)
      ? 'plain HTTP to a loopback address is accepted only with --allow-http-loopback (for a local test hub)'
      : 'models are downloaded over HTTPS only';
  throw new FolioError(FolioErrorCodes.ModelError, `${what} ${u.origin} is refused: ${why}.`);
}

export function hubEndpoint(baseUrl?: string, policy: HubPolicy = {}): string {
  const endpoint = (baseUrl ?? process.env.HF_ENDPOINT ?? 'https://huggingface.co').replace(/\/+$/, '');
  checkHubUrl(endpoint, policy);
  return endpoint;
}

/**
 * `fetch` that follows redirects itself (at most 5), checking every address against the policy
 * before connecting: an HTTPS hub cannot hand the download over to plain HTTP.
 */
export async function hubFetch(
  url: string,
  init: { signal?: AbortSignal; headers?: Record<string, string> },
  policy: HubPolicy,
): Promise<Response> {
  let current = url;
  for (let hop = 0; hop <= 5; hop++) {
    checkHubUrl(current, policy, hop === 0 ? 'The model hub address' : 'A redirect of the model hub to');
    const res = await fetch(current, { ...init, redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status < 300 || res.status > 399 || !location) return res;
    await res.body?.cancel().catch(() => undefined);
    current = new URL(location, current).href;
  }
  throw new FolioError(FolioErrorCodes.ModelError, `${url} redirected more than 5 times; try again later.`);
}

/** A full commit id, as pinned in the catalog or recorded in an install's manifest. */
export const COMMIT_RE = /^[0-9a-f]{40}$/;

/** Resolves a branch or tag (`main`) to its commit, so every file of a pull comes from that one commit. */
export async function resolveRevision(
  endpoint: string,
  repo: string,
  revision: string,
  policy: HubPolicy,
  signal?: AbortSignal,
): Promise<string> {
  if (COMMIT_RE.test(revision)) return revision;
  const url = `${endpoint}/api/models/${repo}/revision/${encodeURIComponent(revision)}`;
  const { body } = await hubJson(
    endpoint,
    url,
    MAX_REVISION_BYTES,
    policy,
    signal,
    () =>
      new FolioError(
        FolioErrorCodes.ModelError,
        `The model repository ${repo} or its revision "${revision}" was not found at ${endpoint}.`,
      ),
  );
  const sha = (body as { sha?: unknown } | null)?.sha;
  if (typeof sha !== 'string' || !COMMIT_RE.test(sha))
    throw new FolioError(FolioErrorCodes.ModelError, `${url} did not name a commit for "${revision}".`);
  return sha;
}

export function resolveUrl(endpoint: string, repo: string, path: string, revision: string): string {
  return `${endpoint}/${repo}/resolve/${encodeURIComponent(revision)}/${path.split('/').map(encodeURIComponent).join('/')}`;
}

export function offlineError(endpoint: string, e: unknown): FolioError {
  const cause = (e as { cause?: { code?: string; errors?: { code?: string }[] } }).cause;
  const why = cause?.code ?? cause?.errors?.[0]?.code ?? (e as Error).message;
  return new FolioError(
    FolioErrorCodes.ModelError,
    `Cannot reach ${endpoint} (${why}). Check the network connection or proxy, or set HF_ENDPOINT to a mirror; the pipeline engine keeps working without models.`,
  );
}

interface TreeEntry {
  type: string;
  path: string;
  size?: number;
  oid?: string;
  lfs?: { oid?: string; sha256?: string; size?: number };
}

/** One folder's listing, following `Link: <…>; rel="next"` pages as the hub paginates long lists. */
async function getTree(
  endpoint: string,
  repo: string,
  revision: string,
  folder: string,
  policy: HubPolicy,
  signal?: AbortSignal,
): Promise<TreeEntry[]> {
  const all: TreeEntry[] = [];
  let url: string | undefined =
    `${endpoint}/api/models/${repo}/tree/${encodeURIComponent(revision)}${folder ? '/' + folder : ''}`;
  for (let pages = 0; url && pages < 100; pages++) {
    const { entries, next } = await getTreePage(endpoint, url, repo, policy, signal);
    all.push(...entries);
    if (all.length > MAX_LISTING_ENTRIES)
      throw new FolioError(
        FolioErrorCodes.ModelError,
        `The hub's listing of ${repo} has more than ${MAX_LISTING_ENTRIES} entries; nothing was downloaded.`,
      );
    url = next ? new URL(next, url).href : undefined;
  }
  return all;
}

async function getTreePage(
  endpoint: string,
  url: string,
  repo: string,
  policy: HubPolicy,
  signal?: AbortSignal,
): Promise<{ entries: TreeEntry[]; next?: string }> {
  const { body, headers } = await hubJson(
    endpoint,
    url,
    MAX_LISTING_PAGE_BYTES,
    policy,
    signal,
    () =>
      new FolioError(FolioErrorCodes.ModelError, `The model repository ${repo} was not found at ${endpoint} (${url}).`),
  );
  const link = headers.get('link') ?? '';
  if (!Array.isArray(body)) throw new FolioError(FolioErrorCodes.ModelError, `${url} did not return a file list.`);
  const next = /<([^>]+)>;\s*rel="next"/.exec(link)?.[1];
  return { entries: body as TreeEntry[], next };
}

/** Every file of a repository at a revision, with sizes and checksums (folders listed recursively). */
export async function listRepoFiles(
  endpoint: string,
  repo: string,
  revision: string,
  policy: HubPolicy,
  signal?: AbortSignal,
): Promise<HubFile[]> {
  const files: HubFile[] = [];
  const seen = new Set<string>();
  const walk = async (folder: string, depth: number) => {
    for (const e of await getTree(endpoint, repo, revision, folder, policy, signal)) {
      if (seen.has(e.path)) continue;
      seen.add(e.path);
      if (e.type === 'directory') {
        if (depth < 4) await walk(e.path, depth + 1);
      } else if (e.type === 'file') {
        const sha256 = e.lfs?.oid ?? e.lfs?.sha256;
        // Paths become file names under the models folder: no `..`, no absolute or odd paths.
        if (!/^[\w.-]+(\/[\w.-]+)*$/.test(e.path) || e.path.split('/').some((seg) => seg === '.' || seg === '..')) {
          throw new FolioError(
            FolioErrorCodes.ModelError,
            `The hub's listing of ${repo} names a file "${e.path}" that is not a plain relative path; nothing was downloaded.`,
          );
        }
        const size = e.lfs?.size ?? e.size ?? 0;
        if (!Number.isSafeInteger(size) || size < 0)
          throw new FolioError(
            FolioErrorCodes.ModelError,
            `The hub's listing of ${repo} gives ${e.path} an impossible size (${String(size)}).`,
          );
        files.push({ path: e.path, size, sha256, gitSha1: sha256 ? undefined : e.oid });
      }
    }
  };
  await walk('', 0);
  return files;
}
