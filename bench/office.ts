/**
 * `npm run bench -- --parts office` (issue 41): one document born structured per format (DOCX,
 * PPTX, XLSX, HTML: the LibreOffice-made and Docling-sample files of eval/office/made/) through
 * `folio convert`, timed against a baseline measured in the same run on the same document: its PDF
 * export (made by LibreOffice, eval/office/made/make.sh) through Folio's PDF path, and through
 * poppler's pdftotext. The runs alternate (Office file, its PDF, pdftotext) after one warm-up each;
 * medians are compared. Two figures per converter: the whole process (Node start included, what a
 * user waits for) and, for Folio, the conversion as the CLI reports it (`(N pages, X s)`).
 * Fails loudly when no file pair is found or when a conversion fails: a table of nothing is never
 * printed.
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { fmt, textTable } from '../eval/report/textTable';
import { runProcess } from '../eval/run';
import { cliPath } from '../eval/peers/folio';
import { pdftotextMissing } from '../eval/peers/pdftotext';
import { requireMeasured } from '../eval/report/nothingMeasured';

/** The formats measured, one file each (the first by name that has a PDF export beside it). */
export const OFFICE_BENCH_FORMATS = ['docx', 'pptx', 'xlsx', 'html'] as const;

export interface OfficePair {
  format: (typeof OFFICE_BENCH_FORMATS)[number];
  file: string;
  /** The same document's PDF export: `<stem>.pdf` beside it (for HTML, Writer's export of the DOCX made from it). */
  pdf: string;
}

/** One pair per format from `dir`: `<stem>.<format>` with `<stem>.pdf` beside it. */
export function officePairs(dir: string): OfficePair[] {
  if (!existsSync(dir)) return [];
  const names = readdirSync(dir).sort();
  const out: OfficePair[] = [];
  for (const format of OFFICE_BENCH_FORMATS) {
    const file = names.find((n) => extname(n).toLowerCase() === `.${format}` && names.includes(`${stem(n)}.pdf`));
    if (file) out.push({ format, file: join(dir, file), pdf: join(dir, `${stem(file)}.pdf`) });
  }
  return out;
}

const stem = (n: string) => basename(n).replace(/\.[^.]+$/, '');

export interface OfficeRow {
  format: string;
  file: string;
  pages: number;
  /** Whole-process medians, ms. */
  folioMs: number;
  pdfMs: number;
  pdftotextMs: number;
  /** The conversion as the CLI reports it, medians, ms. */
  folioConvertMs: number;
  pdfConvertMs: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** One `folio convert` run: whole-process ms, the CLI's own seconds and pages; throws on a failure. */
async function folioRun(
  repo: string,
  input: string,
  out: string,
): Promise<{ ms: number; convertMs: number; pages: number }> {
  const r = await runProcess(process.execPath, [cliPath(repo), 'convert', input, '-o', out, '--force'], {
    timeoutMs: 120_000,
    cwd: repo,
  });
  const said = /\((\d+) pages?, ([\d.]+) s[;)]/.exec(r.stdout + r.stderr);
  if (r.code !== 0 || !said)
    throw new Error(`folio convert ${basename(input)} failed (exit ${r.code}): ${(r.stderr || r.stdout).slice(-500)}`);
  return { ms: r.ms, convertMs: Number(said[2]) * 1000, pages: Number(said[1]) };
}

async function pdftotextRun(pdf: string, out: string): Promise<number> {
  const r = await runProcess('pdftotext', [pdf, out], { timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`pdftotext ${basename(pdf)} failed (exit ${r.code}): ${r.stderr.slice(-300)}`);
  return r.ms;
}

export async function benchOffice(repo: string, dir: string, work: string, runs: number): Promise<OfficeRow[]> {
  const pairs = officePairs(dir);
  requireMeasured(
    pairs.length,
    `the office set (${dir})`,
    `No ${OFFICE_BENCH_FORMATS.map((f) => `<name>.${f}`).join(', ')} with <name>.pdf beside it (eval/office/made/make.sh makes them).`,
  );
  const missing = pdftotextMissing();
  if (missing) throw new Error(missing);
  const out = join(work, 'office');
  mkdirSync(out, { recursive: true });
  const rows: OfficeRow[] = [];
  for (const p of pairs) {
    console.error(`bench: office: ${basename(p.file)} and ${basename(p.pdf)}…`);
    const office: { ms: number; convertMs: number; pages: number }[] = [];
    const pdf: { ms: number; convertMs: number }[] = [];
    const text: number[] = [];
    // One warm-up each (file cache, the bundle's first load), then alternating runs.
    for (let i = 0; i <= runs; i++) {
      const a = await folioRun(repo, p.file, join(out, `${p.format}-office.md`));
      const b = await folioRun(repo, p.pdf, join(out, `${p.format}-pdf.md`));
      const c = await pdftotextRun(p.pdf, join(out, `${p.format}.txt`));
      if (i === 0) continue;
      office.push(a);
      pdf.push(b);
      text.push(c);
    }
    rows.push({
      format: p.format,
      file: basename(p.file),
      pages: office[0]!.pages,
      folioMs: median(office.map((x) => x.ms)),
      folioConvertMs: median(office.map((x) => x.convertMs)),
      pdfMs: median(pdf.map((x) => x.ms)),
      pdfConvertMs: median(pdf.map((x) => x.convertMs)),
      pdftotextMs: median(text),
    });
  }
  console.log(
    `\n== office: ${rows.length} formats, one file each, whole process, medians of ${runs} (same run) ==\n` +
      textTable(
        [
          'format',
          'file',
          'pages',
          'Folio s',
          'Folio convert s',
          'its PDF via Folio s',
          'PDF convert s',
          'PDF ÷ Office',
          'pdftotext s',
        ],
        rows.map((r) => [
          r.format,
          r.file,
          String(r.pages),
          fmt(r.folioMs / 1000, 2),
          fmt(r.folioConvertMs / 1000, 2),
          fmt(r.pdfMs / 1000, 2),
          fmt(r.pdfConvertMs / 1000, 2),
          fmt(r.pdfMs / r.folioMs, 2),
          fmt(r.pdftotextMs / 1000, 2),
        ]),
      ),
  );
  return rows;
}
