/**
 * Slides as pages: LibreOffice (`soffice --headless --convert-to pdf`) prints a PPTX to a PDF in a
 * temporary folder, whose pages the backend then renders like any PDF's (sourceView.ts). LibreOffice
 * runs as its own process (never on the extension host's thread), in a fresh profile folder (a
 * LibreOffice the user has open is not disturbed, and it cannot run two conversions in one
 * profile), bounded by a timeout, and killed with its children on cancel. No `vscode` import: it is
 * unit-tested in Node with the real LibreOffice (test/preview/libreOffice.test.ts).
 *
 * Only files the caller checked are given to it (sourceView.ts: inside a workspace folder); the
 * path is passed as one argument, never through a shell.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** How long one deck may take (a cold LibreOffice start alone took ~20 s on a loaded 2-core machine). */
export const LIBREOFFICE_TIMEOUT_MS = 180_000;

/**
 * The `soffice` to run: `FOLIO_SOFFICE` when set (a path, or `none` to act as if LibreOffice were
 * missing: the tests' way to see the outline fallback), else `soffice` or `libreoffice` on PATH.
 */
export async function findSoffice(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const forced = env.FOLIO_SOFFICE;
  if (forced === 'none') return undefined;
  const candidates = forced
    ? [forced]
    : (env.PATH ?? '')
        .split(delimiter)
        .filter(Boolean)
        .flatMap((dir) => ['soffice', 'libreoffice'].map((name) => join(dir, name)));
  for (const c of candidates) {
    try {
      await access(c, constants.X_OK);
      return c;
    } catch {
      // not this one
    }
  }
  return undefined;
}

export class LibreOfficeError extends Error {}

/**
 * Prints `input` to a PDF with LibreOffice and hands its path to `use` while it exists; the
 * temporary folder (PDF and profile) is removed afterwards, whatever happens.
 */
export async function withPdfExport<T>(
  soffice: string,
  input: string,
  use: (pdf: string) => Promise<T>,
  signal?: AbortSignal,
  timeoutMs = LIBREOFFICE_TIMEOUT_MS,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'folio-slides-'));
  try {
    const out = join(dir, 'out');
    await runSoffice(
      soffice,
      [
        `-env:UserInstallation=${pathToFileURL(join(dir, 'profile')).href}`,
        '--headless',
        '--invisible',
        '--nodefault',
        '--nolockcheck',
        '--nologo',
        '--norestore',
        '--convert-to',
        'pdf',
        '--outdir',
        out,
        input,
      ],
      signal,
      timeoutMs,
    );
    const pdfs = (await readdir(out).catch(() => [])).filter((f) => f.toLowerCase().endsWith('.pdf'));
    if (!pdfs.length)
      throw new LibreOfficeError(`LibreOffice wrote no PDF for ${basename(input)} (is it a presentation it can open?)`);
    return await use(join(out, pdfs[0]!));
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Runs soffice in its own process group, so a timeout or a cancel ends its `soffice.bin` too. */
function runSoffice(
  soffice: string,
  args: string[],
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new LibreOfficeError('cancelled'));
    const child = spawn(soffice, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'], shell: false });
    let stderr = '';
    let why: string | undefined;
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    const kill = (reason: string) => {
      why ??= reason;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => kill(`LibreOffice took more than ${Math.round(timeoutMs / 1000)} s`), timeoutMs);
    const onAbort = () => kill('cancelled');
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = (e?: Error) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (e) reject(e);
      else resolve();
    };
    child.on('error', (e) => done(new LibreOfficeError(`LibreOffice could not start: ${e.message}`)));
    child.on('exit', (code, sig) => {
      if (why) return done(new LibreOfficeError(why));
      if (code === 0) return done();
      const last = stderr
        .trim()
        .split('\n')
        .filter((l) => !/javaldx/.test(l))
        .pop();
      done(new LibreOfficeError(`LibreOffice failed (${sig ?? `exit ${code}`})${last ? `: ${last}` : ''}`));
    });
  });
}
