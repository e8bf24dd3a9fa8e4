/**
 * `@opendocsg/pdf2md` 0.2.1 (npm, a pdf.js-based PDF → Markdown converter; 0.3.2 writes
 * nothing under Node 20). It runs in a helper Node process so its own pdf.js copy and any
 * hang stay out of the harness.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runBatch } from './batchScript';
import type { Peer } from './types';

// The helper: read the list, convert each file, write `<i>.txt`, print one JSON line per file.
const SCRIPT = `
const fs = require('fs'), path = require('path');
const pdf2md = require('@opendocsg/pdf2md');
const [dir, list] = process.argv.slice(1);
(async () => {
  for (const [i, f] of JSON.parse(fs.readFileSync(list, 'utf8'))) {
    const t0 = performance.now();
    try {
      const md = await pdf2md(new Uint8Array(fs.readFileSync(f)));
      fs.writeFileSync(path.join(dir, i + '.txt'), md);
      console.log(JSON.stringify({ i, ms: performance.now() - t0 }));
    } catch (e) {
      console.log(JSON.stringify({ i, ms: performance.now() - t0, error: String(e && e.message || e).split('\\n')[0] }));
    }
  }
})();
`;

export function pdf2mdPeer(repo: string): Peer {
  return {
    name: 'pdf2md',
    format: 'markdown',
    unavailable: () =>
      existsSync(join(repo, 'node_modules/@opendocsg/pdf2md/package.json'))
        ? undefined
        : 'npm package @opendocsg/pdf2md@0.2.1 is not installed (npm ci)',
    convertAll: (pdfs, workDir, opts) =>
      runBatch({ cmd: process.execPath, args: ['-e', SCRIPT], cwd: repo }, pdfs, workDir, opts),
  };
}
