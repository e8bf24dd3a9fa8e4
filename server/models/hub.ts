/**
 * The Hugging Face hub's HTTP layout, as the hub's clients use it:
 *   GET {endpoint}/api/models/{repo}/tree/{revision}[/{folder}]  → JSON list of
 *       { type: "file" | "directory", path, size, oid, lfs?: { oid: <sha256>, size } }
 *       (for LFS files `lfs.oid` is the SHA-256 of the content; for small files `oid` is the git
 *       blob SHA-1, i.e. sha1("blob <size>\0" + content));
 *   GET {endpoint}/{repo}/resolve/{revision}/{path}  → the file (LFS files redirect to a CDN;
 *       Range requests are honoured, which makes resuming possible).
 * The endpoint defaults to https://huggingface.co and follows HF_ENDPOINT like the hub's own
 * clients (mirrors, tests against a loopback server).
 */
import { FolioError } from '../errors';
import { FolioErrorCodes } from '../protocol';

export interface HubFile {
  path: string;
  size: number;
  /** SHA-256 of the content (LFS files). */
  sha256?: string;
  /** Git blob SHA-1 (non-LFS files). */
  gitSha1?: string;
}

export function hubEndpoint(baseUrl?: string): string {
  return (baseUrl ?? process.env.HF_ENDPOINT ?? 'https://huggingface.co').replace(/\/+$/, '');
}

export function resolveUrl(endpoint: string, repo: string, path: string, revision = 'main'): string {
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
async function getTree(endpoint: string, repo: string, revision: string, folder: string, signal?: AbortSignal): Promise<TreeEntry[]> {
  const all: TreeEntry[] = [];
  let url: string | undefined = `${endpoint}/api/models/${repo}/tree/${encodeURIComponent(revision)}${folder ? '/' + folder : ''}`;
  for (let pages = 0; url && pages < 100; pages++) {
    const { entries, next } = await getTreePage(endpoint, url, repo, signal);
    all.push(...entries);
    url = next ? new URL(next, url).href : undefined;
  }
  return all;
}

async function getTreePage(endpoint: string, url: string, repo: string, signal?: AbortSignal): Promise<{ entries: TreeEntry[]; next?: string }> {
  let res: Response;
  try {
    res = await fetch(url, { signal, headers: { accept: 'application/json' } });
  } catch (e) {
    if (signal?.aborted) throw e;
    throw offlineError(endpoint, e);
  }
  if (res.status === 404) throw new FolioError(FolioErrorCodes.ModelError, `The model repository ${repo} was not found at ${endpoint} (${url}).`);
  if (!res.ok) throw new FolioError(FolioErrorCodes.ModelError, `${url} answered HTTP ${res.status}; try again later.`);
  const body = (await res.json()) as unknown;
  if (!Array.isArray(body)) throw new FolioError(FolioErrorCodes.ModelError, `${url} did not return a file list.`);
  const next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
  return { entries: body as TreeEntry[], next };
}

/** Every file of a repository at a revision, with sizes and checksums (folders listed recursively). */
export async function listRepoFiles(endpoint: string, repo: string, revision = 'main', signal?: AbortSignal): Promise<HubFile[]> {
  const files: HubFile[] = [];
  const seen = new Set<string>();
  const walk = async (folder: string, depth: number) => {
    for (const e of await getTree(endpoint, repo, revision, folder, signal)) {
      if (seen.has(e.path)) continue;
      seen.add(e.path);
      if (e.type === 'directory') {
        if (depth < 4) await walk(e.path, depth + 1);
      } else if (e.type === 'file') {
        const sha256 = e.lfs?.oid ?? e.lfs?.sha256;
        files.push({ path: e.path, size: e.lfs?.size ?? e.size ?? 0, sha256, gitSha1: sha256 ? undefined : e.oid });
      }
    }
  };
  await walk('', 0);
  return files;
}
