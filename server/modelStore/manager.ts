/**
 * The model manager behind `folio models pull|list|remove` and the "Folio: Download models"
 * command (plain async functions, usable from the extension host; downloads need no worker).
 *
 * Install is all-or-nothing: files are downloaded into `<root>/.staging/<folder>/` (kept across
 * runs, so an interrupted pull resumes), each verified, and only when every file of the request
 * is good are they moved into `<root>/<folder>/` (one directory rename for a fresh install, else
 * one rename per file), after which `folio-model.json` records what is installed.
 *
 * Trust: the endpoint must be HTTPS (hub.ts); a branch is resolved to one commit, recorded in the
 * manifest; each file is checked against the catalog's pinned size and SHA-256 when it has one.
 * The hub's listing alone is not trusted: files without a pin are downloaded only when the
 * caller says it trusts the hub (`trustHub`), and a download larger than expected is cut off.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FolioError } from '../errors';
import { FolioErrorCodes } from '../../common/protocol';
import {
  CATALOG,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_TOTAL_BYTES,
  findEntry,
  isWeightFile,
  MAX_OTHER_FILE_BYTES,
  wantedFile,
  type CatalogEntry,
} from './catalog';
import { downloadFile, verifyFile } from './download';
import { hubEndpoint, listRepoFiles, resolveRevision, resolveUrl, type HubFile, type HubPolicy } from './hub';

export const MANIFEST = 'folio-model.json';

export interface PullProgress {
  model: string;
  file: string;
  /** Bytes of this file received so far, and its size. */
  received: number;
  total: number;
  /** Bytes of the whole pull received so far (files already present count), and its size. */
  overallReceived: number;
  overallTotal: number;
}

export interface PullOptions {
  /** Catalog name (`granite-docling`, `heron`) or a hub repository id. */
  repo: string;
  dtype?: string;
  /** Models root. */
  dir: string;
  /** Hub endpoint (default HF_ENDPOINT or https://huggingface.co). */
  baseUrl?: string;
  /** Branch, tag or commit; default the catalog's pinned commit, else `main` resolved to its commit. */
  revision?: string;
  /**
   * Accept files the catalog pins no checksum for, checked only against the hub's own listing
   * (the CLI's `--trust-hub`, the extension's confirmation).
   */
  trustHub?: boolean;
  /** Accept `http://` to a loopback address (a local test hub); HTTPS is required otherwise. */
  allowLoopbackHttp?: boolean;
  /** Waits on the hub (HubPolicy: API answers, a stalled transfer); the defaults suit a real hub. */
  requestMs?: number;
  idleMs?: number;
  onProgress?: (p: PullProgress) => void;
  signal?: AbortSignal;
  /** The catalog to look `repo` up in (default Folio's; tests pass entries with pins). */
  catalog?: readonly CatalogEntry[];
}

export interface InstalledModel {
  name: string;
  repo: string;
  folder: string;
  path: string;
  dtypes: string[];
  bytes: number;
  /** False when the folder lacks its manifest (a manual copy or an unfinished install). */
  managed: boolean;
}

interface Manifest {
  repo: string;
  revision: string;
  dtypes: string[];
  files: HubFile[];
  installedAt: string;
}

function entryFor(repo: string, catalog?: readonly CatalogEntry[]): CatalogEntry {
  const known = catalog
    ? catalog.find((e) => e.name === repo || e.repo === repo || e.folder === repo)
    : findEntry(repo);
  if (known) return known;
  if (!/^[\w.-]+\/[\w.-]+$/.test(repo)) {
    throw new FolioError(
      FolioErrorCodes.ModelError,
      `Unknown model "${repo}"; use ${CATALOG.map((c) => c.name).join(' or ')}, or a hub id like owner/name.`,
    );
  }
  return { name: repo, repo, folder: repo.split('/')[1], description: repo, variants: true };
}

/** The catalog's pin for a file replaces the listing's values; a listing that disagrees is refused. */
function withPin(entry: CatalogEntry, f: HubFile): HubFile {
  const pin = entry.pinned?.[f.path];
  if (!pin) return f;
  if (f.size !== pin.size || (f.sha256 !== undefined && f.sha256.toLowerCase() !== pin.sha256.toLowerCase())) {
    throw new FolioError(
      FolioErrorCodes.ModelError,
      `The hub lists ${f.path} of ${entry.repo} as ${f.size} bytes${f.sha256 ? ` with SHA-256 ${f.sha256}` : ''}, but Folio pins ${pin.size} bytes with SHA-256 ${pin.sha256}; nothing was downloaded.`,
    );
  }
  return { path: f.path, size: pin.size, sha256: pin.sha256.toLowerCase() };
}

/**
 * The catalog's caps, not the listing's word, bound every file before it is fetched (the listing
 * comes from the same server as the files). A pinned size is Folio's own and stands.
 */
function checkSizes(entry: CatalogEntry, files: readonly HubFile[]): void {
  const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;
  let total = 0;
  for (const f of files) {
    total += f.size;
    if (entry.pinned?.[f.path]) continue;
    const cap = isWeightFile(f.path) ? (entry.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES) : MAX_OTHER_FILE_BYTES;
    if (f.size > cap) {
      throw new FolioError(
        FolioErrorCodes.ModelError,
        `The hub lists ${f.path} of ${entry.repo} as ${mb(f.size)}, more than the ${mb(cap)} Folio allows for that file; nothing was downloaded.`,
      );
    }
  }
  const totalCap = entry.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES;
  if (total > totalCap) {
    throw new FolioError(
      FolioErrorCodes.ModelError,
      `The hub lists ${mb(total)} of files for ${entry.repo}, more than the ${mb(totalCap)} Folio allows for this model; nothing was downloaded.`,
    );
  }
}

function readManifest(folder: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(join(folder, MANIFEST), 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

/**
 * Throws when the files cannot be installed as asked: some carry no pinned checksum and the hub
 * is not trusted, or a model with variants has no ONNX file for the dtype.
 */
function refuseFileList(
  entry: CatalogEntry,
  all: HubFile[],
  files: HubFile[],
  o: { dtype: string; revision: string; trustHub: boolean },
): void {
  const { dtype, revision } = o;
  const unpinned = files.filter((f) => !entry.pinned?.[f.path]);
  if (unpinned.length > 0 && !o.trustHub) {
    throw new FolioError(
      FolioErrorCodes.ModelError,
      `Folio pins no checksum for ${unpinned.length} file(s) of ${entry.repo} (${unpinned[0].path}${unpinned.length > 1 ? ', …' : ''}): they could only be checked against the hub's own listing, which comes from the same server as the files. To accept that, pass --trust-hub (the commit used, ${revision}, is recorded in ${MANIFEST}).`,
    );
  }
  if (entry.variants && !files.some((f) => f.path.endsWith('.onnx'))) {
    const have = [...new Set(all.filter((f) => f.path.endsWith('.onnx')).map((f) => f.path))].join(', ');
    throw new FolioError(
      FolioErrorCodes.ModelError,
      `${entry.repo} has no ONNX files for dtype "${dtype}" (it has: ${have || 'none'}).`,
    );
  }
}

/** Moves the verified files from staging into the model folder (the whole folder when new). */
function install(target: string, staging: string, todo: HubFile[]): void {
  if (!existsSync(target)) {
    mkdirSync(staging, { recursive: true });
    renameSync(staging, target);
  } else {
    for (const f of todo) {
      mkdirSync(join(target, f.path, '..'), { recursive: true });
      renameSync(join(staging, f.path), join(target, f.path));
    }
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Downloads (or completes) a model; returns the installed folder. */
export async function pullModel(opts: PullOptions): Promise<string> {
  const entry = entryFor(opts.repo, opts.catalog);
  const dtype = opts.dtype ?? 'fp32';
  const policy: HubPolicy = {
    allowLoopbackHttp: opts.allowLoopbackHttp === true,
    requestMs: opts.requestMs,
    idleMs: opts.idleMs,
  };
  const endpoint = hubEndpoint(opts.baseUrl, policy);
  const revision = await resolveRevision(
    endpoint,
    entry.repo,
    opts.revision ?? entry.revision ?? 'main',
    policy,
    opts.signal,
  );
  const all = await listRepoFiles(endpoint, entry.repo, revision, policy, opts.signal);
  const files = all.filter((f) => wantedFile(entry, f.path, dtype)).map((f) => withPin(entry, f));
  checkSizes(entry, files);
  refuseFileList(entry, all, files, { dtype, revision, trustHub: opts.trustHub === true });
  mkdirSync(opts.dir, { recursive: true });
  const target = join(opts.dir, entry.folder);
  const staging = join(opts.dir, '.staging', entry.folder);
  const manifest = readManifest(target);
  const current = new Map((manifest?.files ?? []).map((f) => [f.path, f]));
  /** Files already installed with the same checksum are not fetched again. */
  const isInstalled = (f: HubFile) => {
    const m = current.get(f.path);
    return (
      !!m && existsSync(join(target, f.path)) && m.size === f.size && m.sha256 === f.sha256 && m.gitSha1 === f.gitSha1
    );
  };
  const todo = files.filter((f) => !isInstalled(f));
  const overallTotal = files.reduce((a, f) => a + f.size, 0);
  let overallDone = overallTotal - todo.reduce((a, f) => a + f.size, 0);
  for (const f of todo) {
    const dest = join(staging, f.path);
    if (existsSync(dest) && !(await verifyFile(dest, f))) {
      overallDone += f.size;
      continue;
    }
    const before = overallDone;
    await downloadFile(resolveUrl(endpoint, entry.repo, f.path, revision), dest, f, {
      endpoint,
      policy,
      signal: opts.signal,
      onProgress: (p) =>
        opts.onProgress?.({
          model: entry.name,
          file: f.path,
          received: p.received,
          total: p.total,
          overallReceived: before + p.received,
          overallTotal,
        }),
    });
    overallDone += f.size;
    opts.onProgress?.({
      model: entry.name,
      file: f.path,
      received: f.size,
      total: f.size,
      overallReceived: overallDone,
      overallTotal,
    });
  }
  // Every file is verified: install.
  install(target, staging, todo);
  const dtypes = [...new Set([...(manifest?.dtypes ?? []), ...(entry.variants ? [dtype] : [])])];
  const kept = (manifest?.files ?? []).filter((m) => !files.some((f) => f.path === m.path));
  const next: Manifest = {
    repo: entry.repo,
    revision,
    dtypes,
    files: [...kept, ...files],
    installedAt: new Date().toISOString(),
  };
  writeFileSync(join(target, `${MANIFEST}.tmp`), JSON.stringify(next, null, 2));
  renameSync(join(target, `${MANIFEST}.tmp`), join(target, MANIFEST));
  return target;
}

function folderBytes(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    n += st.isDirectory() ? folderBytes(p) : st.size;
  }
  return n;
}

/** Models under a root: managed installs (with a manifest) and known folders copied by hand. */
export function listModels(dir: string): InstalledModel[] {
  if (!existsSync(dir)) return [];
  const out: InstalledModel[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.')) continue;
    const path = join(dir, name);
    if (!statSync(path).isDirectory()) continue;
    const manifest = readManifest(path);
    const entry = manifest ? findEntry(manifest.repo) : findEntry(name);
    if (!manifest && !entry) continue;
    out.push({
      name: entry?.name ?? manifest!.repo,
      repo: manifest?.repo ?? entry!.repo,
      folder: name,
      path,
      dtypes: manifest?.dtypes ?? [],
      bytes: folderBytes(path),
      managed: !!manifest,
    });
  }
  return out;
}

/** Deletes an installed model (by catalog name, repo id or folder name) and its staging files. */
export function removeModel(dir: string, name: string): string {
  const found = listModels(dir).find((m) => m.name === name || m.repo === name || m.folder === name);
  if (!found) {
    throw new FolioError(
      FolioErrorCodes.ModelError,
      `No installed model "${name}" in ${dir}; \`folio models list\` shows what is installed.`,
    );
  }
  rmSync(found.path, { recursive: true, force: true });
  rmSync(join(dir, '.staging', found.folder), { recursive: true, force: true });
  return found.path;
}
