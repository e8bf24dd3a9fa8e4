/**
 * `node out/scripts/eval/hiddenText.main.js [--every N] [--pages P] [FILE.pdf ...]`: what the
 * hidden-text rules (server/pdf/hiddenText.ts, issue 39) leave out of real pages, for a person
 * to check against the rendered page. Without files it takes every Nth PDF of the shared corpus
 * (default every 4th, first 3 pages each). Prints each page where something was left out (the
 * warning and the spans' text) and a count; fails loudly when it read no page.
 */
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { openPdf } from '../server/pdf/open';
import { readPage } from '../server/pipeline/pageContent';
import { pdfjsWork } from '../server/pdf/guard';

function corpusFiles(every: number): string[] {
  const root = process.env.FOLIO_CORPUS ?? join(__dirname, '..', '..', '..', '..', 'shared', 'corpus');
  const rows = readFileSync(join(root, 'MANIFEST.tsv'), 'utf8').split('\n').slice(1);
  return rows
    .map((r) => r.split('\t')[0])
    .filter((f) => f && f.endsWith('.pdf'))
    .filter((_, i) => i % every === 0)
    .map((f) => join(root, f));
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const opt = (name: string, def: number) => {
    const i = args.indexOf(name);
    if (i < 0) return def;
    const v = Number(args[i + 1]);
    args.splice(i, 2);
    return v;
  };
  const every = opt('--every', 4);
  const pagesEach = opt('--pages', 3);
  const files = args.length > 0 ? args : corpusFiles(every);
  let pages = 0;
  let flagged = 0;
  let docs = 0;
  for (const file of files) {
    let doc;
    try {
      doc = await openPdf(file);
    } catch {
      continue; // encrypted or broken inputs are other tests' business
    }
    docs++;
    try {
      for (let p = 1; p <= Math.min(doc.numPages, pagesEach); p++) {
        const page = await pdfjsWork(() => doc.doc.getPage(p));
        try {
          const seen = await readPage(page, p);
          const all = await readPage(page, p, { keepHiddenText: true });
          pages++;
          if (!seen.hiddenText) continue;
          flagged++;
          const kept = new Set(seen.content.spans.map((s) => s.text));
          const left = all.content.spans.filter((s) => !kept.has(s.text)).map((s) => s.text);
          console.log(`${file} p${p}: ${seen.hiddenText}`);
          for (const t of left.slice(0, 12)) console.log(`    - ${JSON.stringify(t.slice(0, 100))}`);
        } finally {
          page.cleanup();
        }
      }
    } catch (e) {
      console.log(`${file}: not read (${(e as Error).message})`);
    } finally {
      await doc.close().catch(() => undefined);
    }
  }
  if (pages === 0) {
    console.error('hiddenText: no page was read (no corpus? set FOLIO_CORPUS, or name PDFs)');
    return 1;
  }
  console.log(`${flagged} of ${pages} pages (${docs} documents) had text left out`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
