/**
 * Where `folio convert` writes each input's output, and whether it may replace what is there.
 *
 * - Several inputs under `-o`: the folder structure below each folder named on the command line
 *   is kept (`folio convert docs -o out`: `docs/d1/same.pdf` → `out/d1/same.md`, `docs/d2/same.PDF`
 *   → `out/d2/same.md`); files named one by one go straight into `out/`. Two inputs that still
 *   meet (`same.pdf` and `same.PDF`, even on a case-insensitive disk) get `same-2.md`. Names longer than a file name may be are shortened with a hash (fitFileName).
 * - An existing output is replaced only when folio wrote it and it has not changed since (a
 *   record of what was written, by path hash, in the per-user cache), when it is empty, or with
 *   `--force`: the CLI never overwrites a file someone else wrote or edited.
 */
import { lstatSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fitFileName, safeWriteFileSync } from '../../common/safeWrite';
import { sha256Hex } from '../../common/sha256';
import { ensurePrivateDir, readPrivateCacheFile, userCacheRoot } from '../util/cache';

export interface OutputPlan {
  pdf: string;
  out: string;
  /** Folder every created folder must stay inside (the `-o` folder), when there is one. */
  root?: string;
}

export function planOutputs(
  files: { path: string; base: string }[],
  ext: string,
  output: string | undefined,
  many: boolean,
): OutputPlan[] {
  const taken = new Set<string>();
  const root = output !== undefined && many ? resolve(output) : undefined;
  return files.map(({ path: pdf, base }) => {
    // A Markdown input keeps its `.md` (`notes.md` → `notes.md.md`, as Docling names it): never its own output.
    const stem = basename(pdf).replace(
      /\.(pdf|png|jpe?g|tiff?|docx|docm|dotx|pptx|pptm|ppsx|xlsx|xlsm|html?|xhtml|csv)$/i,
      '',
    );
    let folder: string;
    if (output === undefined) folder = dirname(resolve(pdf));
    else if (!many) return { pdf, out: resolve(output) };
    else folder = join(root!, relative(base, dirname(resolve(pdf))));
    // Lower case: `same.pdf` and `same.PDF` must not meet on a case-insensitive disk either.
    let out = join(folder, fitFileName(stem, ext));
    for (let n = 2; taken.has(out.toLowerCase()); n++) out = join(folder, fitFileName(stem, `-${n}${ext}`));
    taken.add(out.toLowerCase());
    return root ? { pdf, out, root } : { pdf, out };
  });
}

function recordPath(out: string, env: NodeJS.ProcessEnv): string {
  return join(userCacheRoot(env), 'written', sha256Hex(resolve(out)).slice(0, 32));
}

/** Undefined when `out` may be written; otherwise why not (naming the file and what to do). */
export function overwriteProblem(out: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const st = lstatSync(out, { throwIfNoEntry: false });
  if (!st) return undefined;
  if (!st.isFile()) return `${out} exists and is not a regular file (a link or a folder); folio will not replace it`;
  if (st.size === 0) return undefined;
  // Only a record in folders that are this user's alone counts (cache.ts): a planted one would
  // let a hand-written file be replaced without --force (security round 3, F9).
  const recorded = readPrivateCacheFile('written', basename(recordPath(out, env)), env)?.trim();
  if (recorded && recorded === sha256Hex(readFileSync(out))) return undefined;
  return `${out} already exists and ${recorded ? 'was changed since folio wrote it' : 'was not written by folio'}; pass --force to replace it, or -o to write elsewhere`;
}

/** Writes an output (never through a link) and records what was written. */
export function writeOutput(plan: OutputPlan, text: string, env: NodeJS.ProcessEnv = process.env): void {
  safeWriteFileSync(plan.out, text, plan.root ? { root: plan.root } : {});
  const rec = recordPath(plan.out, env);
  try {
    ensurePrivateDir(userCacheRoot(env));
    ensurePrivateDir(dirname(rec));
    safeWriteFileSync(rec, sha256Hex(text) + '\n', { mode: 0o600 });
  } catch {
    // Without the record the next run asks for --force: safe, only less convenient.
  }
}

const PRUNE_EVERY_MS = 86_400_000;

/**
 * Forgets records of outputs written more than `days` ago (one small file each; the sweep writes
 * thousands). The folder is read at most once a day (a `.pruned` stamp beside the records): every
 * `folio convert` ends here, and reading 3,700 records took ~15 ms of a one-page run's start-up
 * (issue 22).
 */
export function pruneWriteRecords(days = 90, env: NodeJS.ProcessEnv = process.env, now = Date.now()): void {
  const dir = join(userCacheRoot(env), 'written');
  const stamp = join(dir, '.pruned');
  const last = lstatSync(stamp, { throwIfNoEntry: false });
  if (last?.isFile() && now - last.mtimeMs < PRUNE_EVERY_MS && last.mtimeMs <= now) return;
  const cutoff = now - days * 86_400_000;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    if (!/^[0-9a-f]{32}$/.test(n)) continue;
    const st = lstatSync(join(dir, n), { throwIfNoEntry: false });
    if (st?.isFile() && st.mtimeMs < cutoff) rmSync(join(dir, n), { force: true });
  }
  try {
    safeWriteFileSync(stamp, '', { mode: 0o600 });
  } catch {
    // Without the stamp the next run prunes again: slower, not wrong.
  }
}
