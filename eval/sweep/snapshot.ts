/**
 * A private copy of the built bundles for a long run. Other sessions rebuild dist/ while a
 * sweep of a thousand files runs; a worker script replaced mid-load looks like a crash of the
 * engine. The copy lives under out/ inside the repository so the bundles still resolve
 * node_modules (pdf.js, onnxruntime) by walking up from their folder.
 */
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export interface DistSnapshot {
  dir: string;
  cli: string;
  dispose(): void;
}

export function snapshotDist(repo: string): DistSnapshot {
  const src = join(repo, 'dist');
  if (!existsSync(join(src, 'cli.js')))
    throw new Error(`${join(src, 'cli.js')} is missing: run "node esbuild.mjs" first`);
  const dir = join(repo, 'out', `dist-snapshot-${process.pid}`);
  cpSync(src, dir, { recursive: true });
  return { dir, cli: join(dir, 'cli.js'), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
