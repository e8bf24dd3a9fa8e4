/**
 * The robustness sweep: the CLI on each file in its own process (so one file's crash or hang
 * is that file's alone), with a per-file time limit and N files at once.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readManifest } from '../corpus';
import { cliPath } from '../peers/folio';
import { mapLimit, runProcess } from '../run';
import { classify, type Classified } from './classify';

export interface SweepFile {
  /** Path relative to the corpus root. */
  rel: string;
  pdf: string;
  set: string;
  /** Page count from the corpus manifest, when known (sets the file's time limit). */
  pages?: number;
}

export interface SweepResult extends SweepFile, Classified {
  code: number | null;
  signal: string | null;
  ms: number;
  peakRss: number;
  /** The last stderr lines of a crash or unclear error, for the findings list. */
  detail: string;
}

/** Every `*.pdf` under the given sets of the corpus (recursively), sorted, with manifest page counts. */
export function listSweepFiles(root: string, sets: readonly string[]): SweepFile[] {
  const pages = new Map(readManifest(root).map((e) => [e.rel, e.pages]));
  const out: SweepFile[] = [];
  const walk = (dir: string, set: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      const st = statSync(p, { throwIfNoEntry: false });
      if (st?.isDirectory()) walk(p, set);
      else if (st?.isFile() && /\.pdf$/i.test(name))
        out.push({ rel: relative(root, p), pdf: p, set, pages: pages.get(relative(root, p)) });
    }
  };
  for (const s of sets) {
    const dir = join(root, s);
    if (!existsSync(dir)) throw new Error(`sweep set ${s} not found at ${dir}`);
    walk(dir, s);
  }
  return out;
}

export interface SweepOptions {
  repo: string;
  /** The CLI bundle to run (default: dist/cli.js; the sweep script passes a private snapshot). */
  cli?: string;
  parallel: number;
  /** Time limit of a file: `timeoutMs` plus `perPageMs` per page (a 352-page book is not a hang). */
  timeoutMs: number;
  perPageMs?: number;
  workDir: string;
  onResult?: (r: SweepResult, done: number, total: number) => void;
}

export async function runSweep(files: SweepFile[], o: SweepOptions): Promise<SweepResult[]> {
  mkdirSync(o.workDir, { recursive: true });
  let done = 0;
  return mapLimit(files, o.parallel, async (f, i) => {
    const out = join(o.workDir, `${i}.md`);
    // --jobs 1: one worker thread per file, `parallel` files at once.
    const r = await runProcess(
      process.execPath,
      [o.cli ?? cliPath(o.repo), 'convert', f.pdf, '-o', out, '--jobs', '1', '-q'],
      {
        timeoutMs: o.timeoutMs + (f.pages ?? 0) * (o.perPageMs ?? 0),
        cwd: o.repo,
        maxOutput: 200_000,
      },
    );
    const outputWritten = existsSync(out);
    const c = classify({
      code: r.code,
      signal: r.signal,
      timedOut: r.timedOut,
      stderr: r.stderr,
      stdout: r.stdout,
      outputWritten,
    });
    rmSync(out, { force: true });
    rmSync(out.replace(/\.md$/, '.assets'), { recursive: true, force: true });
    const detail =
      c.outcome === 'crash' || c.outcome === 'unclear-error' ? r.stderr.trim().split('\n').slice(0, 12).join('\n') : '';
    const res: SweepResult = { ...f, ...c, code: r.code, signal: r.signal, ms: r.ms, peakRss: r.peakRss, detail };
    o.onResult?.(res, ++done, files.length);
    return res;
  });
}
