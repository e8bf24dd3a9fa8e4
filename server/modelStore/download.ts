/**
 * One file from the hub to disk: streamed into `<dest>.part`, resumed with an HTTP Range request
 * when a partial file is already there (a 200 answer instead of 206 restarts from zero), then
 * checked against the expected size and checksum (SHA-256 for LFS files, git blob SHA-1 for small
 * ones). A mismatch deletes the partial file and throws; the caller installs nothing. A server
 * that sends more than the expected size (a lying or broken hub) is cut off at that size: the
 * transfer stops, the partial file is deleted, and progress never passes 100%. A hub that does
 * not answer within the policy's request time, or a transfer that receives nothing for its idle
 * time, is stopped (the partial file stays for the next pull to resume).
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { FolioError } from '../errors';
import { FolioErrorCodes } from '../../common/protocol';
import { DEFAULT_IDLE_MS, DEFAULT_REQUEST_MS, hubFetch, offlineError, type HubFile, type HubPolicy } from './hub';

export interface FileProgress {
  path: string;
  received: number;
  total: number;
}

async function fileDigest(path: string, algo: 'sha256' | 'sha1', prefix?: string): Promise<string> {
  const h = createHash(algo);
  if (prefix) h.update(prefix);
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** Checks a complete file against the hub's metadata; returns a problem or undefined. */
export async function verifyFile(path: string, meta: HubFile): Promise<string | undefined> {
  const size = statSync(path).size;
  if (size !== meta.size) return `size ${size} bytes, expected ${meta.size}`;
  if (meta.sha256) {
    const got = await fileDigest(path, 'sha256');
    if (got !== meta.sha256.toLowerCase()) return `SHA-256 ${got}, expected ${meta.sha256}`;
  } else if (meta.gitSha1) {
    const got = await fileDigest(path, 'sha1', `blob ${size}\0`);
    if (got !== meta.gitSha1.toLowerCase()) return `git SHA-1 ${got}, expected ${meta.gitSha1}`;
  }
  return undefined;
}

/** Downloads `url` to `dest` (via `dest.part`), resuming and verifying; `dest` appears only when valid. */
export async function downloadFile(
  url: string,
  dest: string,
  meta: HubFile,
  opts: { onProgress?: (p: FileProgress) => void; signal?: AbortSignal; endpoint: string; policy?: HubPolicy },
): Promise<void> {
  const oversize = () => {
    if (existsSync(part)) unlinkSync(part);
    return new FolioError(
      FolioErrorCodes.ModelError,
      `The hub sent more than the ${meta.size} bytes expected for ${meta.path}; the transfer was stopped and deleted, nothing was installed. The hub or a proxy is misbehaving: try again later or another endpoint.`,
    );
  };
  mkdirSync(dirname(dest), { recursive: true });
  const part = `${dest}.part`;
  let have = existsSync(part) ? statSync(part).size : 0;
  if (have > meta.size) {
    unlinkSync(part);
    have = 0;
  }
  if (have < meta.size || meta.size === 0) {
    const policy = opts.policy ?? {};
    const requestMs = policy.requestMs ?? DEFAULT_REQUEST_MS;
    const idleMs = policy.idleMs ?? DEFAULT_IDLE_MS;
    // One controller for the hub's silence: first until the answer's headers, then between chunks.
    const quiet = new AbortController();
    let stalled: 'answer' | 'transfer' | undefined;
    let timer = setTimeout(() => ((stalled = 'answer'), quiet.abort()), requestMs);
    const rearm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => ((stalled = 'transfer'), quiet.abort()), idleMs);
    };
    const signal = opts.signal ? AbortSignal.any([opts.signal, quiet.signal]) : quiet.signal;
    try {
      let res: Response;
      try {
        res = await hubFetch(url, { signal, headers: have > 0 ? { range: `bytes=${have}-` } : {} }, policy);
      } catch (e) {
        if (opts.signal?.aborted || e instanceof FolioError) throw e;
        if (stalled)
          throw new FolioError(
            FolioErrorCodes.ModelError,
            `The model hub did not answer the request for ${meta.path} within ${requestMs / 1000} s; run the download again later.`,
          );
        throw offlineError(opts.endpoint, e);
      }
      rearm();
      if (res.status === 416 && have === meta.size) {
        // Already complete.
      } else if (!res.ok || !res.body) {
        throw new FolioError(
          FolioErrorCodes.ModelError,
          `Downloading ${meta.path} failed: HTTP ${res.status} from ${url}.`,
        );
      } else {
        const append = res.status === 206 && have > 0;
        if (!append) have = 0;
        // A declared length past what is left is refused before a byte is written.
        const declared = Number(res.headers.get('content-length') ?? NaN);
        if (Number.isFinite(declared) && have + declared > meta.size) {
          await res.body.cancel().catch(() => undefined);
          throw oversize();
        }
        const out = createWriteStream(part, { flags: append ? 'a' : 'w' });
        const done = new Promise<void>((resolve, reject) => {
          out.on('finish', resolve);
          out.on('error', reject);
        });
        try {
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
            rearm();
            if (have + chunk.length > meta.size) throw oversize();
            if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
            have += chunk.length;
            opts.onProgress?.({ path: meta.path, received: have, total: meta.size });
          }
        } catch (e) {
          out.end();
          await done.catch(() => undefined);
          if (opts.signal?.aborted) throw e;
          if (e instanceof FolioError) {
            // The over-size check: the stream is closed now, so the partial file can go.
            if (existsSync(part)) unlinkSync(part);
            throw e;
          }
          // The partial file stays: the next pull resumes from it.
          const why = stalled ? `nothing arrived for ${idleMs / 1000} s` : (e as Error).message;
          throw new FolioError(
            FolioErrorCodes.ModelError,
            `The download of ${meta.path} was interrupted at ${have} of ${meta.size} bytes (${why}); run the download again to resume.`,
          );
        }
        out.end();
        await done;
      }
    } finally {
      clearTimeout(timer);
    }
  }
  const problem = await verifyFile(part, meta);
  if (problem) {
    unlinkSync(part);
    throw new FolioError(
      FolioErrorCodes.ModelError,
      `The downloaded ${meta.path} is corrupt (${problem}); it was deleted and nothing was installed. Run the download again.`,
    );
  }
  renameSync(part, dest);
}
