/**
 * OCR benchmark: seconds per scanned page on this machine, with stage times and word recall.
 *
 *   node esbuild.mjs --only ocr && node out/scripts/bench/ocr.main.js [--batch N] [--squeeze F] [--threads N] [--pages N] [--only SUBSTRING] [--print]
 *
 * Pages are born-digital corpus pages rendered at 200 dpi and skewed by 1° (a realistic scan),
 * plus the corpus's real scanned-and-rotated OCR test pages.
 */
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { getOcr } from '../server/ocr/index';
import { corpusPath } from '../test/helpers/corpus';
import { scanPdfPage, tokenize, wordRecall } from '../test/ocr/scan';
import { requireMeasured } from '../eval/report/nothingMeasured';

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};

const PAGES: [string, number, number][] = [
  ['docling-src-rendered/docx/lorem_ipsum.docx.pdf', 1, 1],
  ['docling-src-rendered/docx/textbox.docx.pdf', 1, 1],
  ['docling-src-rendered/docx/equations.docx.pdf', 1, 1],
  ['docling/pdf/2305.03393v1-pg9.pdf', 1, 1],
  ['selfmade-example/sample.xelatex-2col.pdf', 1, 1],
  ['docling/ocr/ocr_test.pdf', 1, 0],
  ['docling/ocr/ocr_test_rotated_90.pdf', 1, 0],
  ['docling/ocr/ocr_test_rotated_180.pdf', 1, 0],
  ['docling/ocr/ocr_test_rotated_270.pdf', 1, 0],
];

async function main(): Promise<void> {
  const t0 = performance.now();
  const ocr = await getOcr({ threads: opt('--threads', 2) });
  const loadS = (performance.now() - t0) / 1000;
  const batch = opt('--batch', 1);
  ocr.tuning = {
    ...ocr.tuning,
    batching: {
      maxBatch: batch,
      maxWaste: opt('--waste', 1.3),
      squeeze: opt('--squeeze', ocr.tuning.batching.squeeze),
    },
  };
  const oi = args.indexOf('--only');
  const pages = oi >= 0 ? PAGES.filter(([rel]) => rel.includes(args[oi + 1])) : PAGES;
  const n = Math.min(pages.length, opt('--pages', pages.length));
  requireMeasured(
    n,
    'the OCR page list',
    `--only ${oi >= 0 ? args[oi + 1] : '(none)'} and --pages ${opt('--pages', pages.length)} leave no page; --only matches part of a corpus path.`,
  );
  console.log(
    `models loaded in ${loadS.toFixed(2)} s (provider ${ocr.provider}); recognition batch ≤ ${batch}, squeeze ${ocr.tuning.batching.squeeze}`,
  );
  let total = 0;
  // CPU seconds too: on a shared machine wall time includes waiting for other processes.
  let totalCpu = 0;
  for (const [rel, page, skew] of pages.slice(0, n)) {
    const scan = await scanPdfPage(corpusPath(rel), page, { dpi: 200, skewDeg: skew, noise: skew ? 6 : 0 });
    const s = performance.now();
    const c = process.cpuUsage();
    const res = await ocr.recognize(scan.image);
    const sec = (performance.now() - s) / 1000;
    const cu = process.cpuUsage(c);
    const cpu = (cu.user + cu.system) / 1e6;
    total += sec;
    totalCpu += cpu;
    const t = ocr.lastTimings!;
    const found = tokenize(res.lines.map((l) => l.text).join('\n'));
    // Scans have no text layer: their ground truth is the .md beside them.
    // (The rotated copies' own .md files are another engine's reading of them, partly garbled;
    // the upright page's .md is the truth for all four.)
    const md = corpusPath(rel.replace(/_rotated_\d+/, '').replace(/\.pdf$/, '.md'));
    const truth = scan.words.length > 0 ? scan.words : existsSync(md) ? tokenize(readFileSync(md, 'utf8')) : [];
    const recall = truth.length > 0 ? wordRecall(truth, found).toFixed(3) : 'n/a';
    console.log(
      `${rel} p${page}: ${sec.toFixed(2)} s wall, ${cpu.toFixed(2)} s CPU (detect ${(t.detectMs / 1000).toFixed(2)}, rotation ${(t.rotationMs / 1000).toFixed(2)}, recognize ${(t.recognizeMs / 1000).toFixed(2)}; ${t.lines} lines) rotation ${res.rotation} recall ${recall}`,
    );
    if (args.includes('--print'))
      for (const l of res.lines) console.log('   ', l.score.toFixed(2), JSON.stringify(l.text));
  }
  console.log(
    `OCR: ${(total / n).toFixed(2)} s/page wall, ${(totalCpu / n).toFixed(2)} CPU-s/page over ${n} pages (target ≤ 3 s/page on 2 cores); load average ${loadavg()[0].toFixed(1)}`,
  );
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
