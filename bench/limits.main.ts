/**
 * Resource limits against hostile PDFs (docs/limits.md): time and peak RSS of `folio convert`
 * on a decompression bomb (one page whose content stream inflates to 400 MB), six pages sharing
 * one 100 MB stream, and a 14.4-million-point page, each next to an ordinary one-page PDF
 * converted in the same run (the baseline: ratios, since this machine is shared and noisy).
 *
 *   node esbuild.mjs --only bench/limits && node out/scripts/bench/limits.main.js [path/to/cli.js] [extra convert flags…]
 *
 * The CLI defaults to this checkout's dist/cli.js; pass another build's to compare before/after.
 * Peak RSS is the child's maximum resident set (getrusage of the finished child, via /usr/bin/time).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { deflateSync } from 'node:zlib';
import { writeStreamPdf } from '../test/helpers/pdfWriter';

const cli = resolve(process.argv[2] ?? join(__dirname, '..', '..', '..', 'dist', 'cli.js'));
const extra = process.argv.slice(3);
if (!existsSync(cli)) {
  process.stderr.write(`bench/limits: ${cli} does not exist; build first (node esbuild.mjs)\n`);
  process.exit(1);
}
try {
  execFileSync('/usr/bin/time', ['-f', '%M', 'true'], { stdio: 'ignore' });
} catch {
  process.stderr.write('bench/limits: /usr/bin/time is needed (Debian package "time")\n');
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), 'folio-bench-limits-'));
const text = Buffer.from('BT /F1 12 Tf 72 720 Td (Hello) Tj ET\n', 'latin1');
const zeros = (mb: number) => deflateSync(Buffer.concat([text, Buffer.alloc(mb * 1024 * 1024)]), { level: 9 });
const files: Record<string, Buffer> = {
  'baseline.pdf': writeStreamPdf([{ width: 612, height: 792, stream: text }]),
  'bomb-400MB.pdf': writeStreamPdf([{ width: 612, height: 792, stream: zeros(400), flate: true }]),
  'shared-6x100MB.pdf': writeStreamPdf(
    Array.from({ length: 6 }, () => ({ width: 612, height: 792, stream: Buffer.alloc(0), sharedStream: 0 })),
    [{ stream: zeros(100), flate: true }],
  ),
  'huge-page.pdf': writeStreamPdf([{ width: 14_400_000, height: 14_400_000, stream: text }]),
};

function run(name: string): { s: number; mb: number; code: number | null; note: string } {
  const pdf = join(dir, name);
  const t0 = Date.now();
  const r = spawnSync(
    '/usr/bin/time',
    [
      '-f',
      'maxrss_kb=%M',
      process.execPath,
      cli,
      'convert',
      pdf,
      '-o',
      join(dir, 'out', name + '.md'),
      '--images',
      '-q',
      ...extra,
    ],
    {
      encoding: 'utf8',
      timeout: 900_000,
    },
  );
  const s = (Date.now() - t0) / 1000;
  const kb = Number(/maxrss_kb=(\d+)/.exec(r.stderr)?.[1] ?? NaN);
  const note = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('folio:'))
    .map((l) => l.slice(0, 140))
    .join(' | ');
  return { s, mb: kb / 1024, code: r.status, note };
}

let measured = 0;
try {
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes);
  process.stdout.write(`cli: ${cli} ${extra.join(' ')}\n`);
  const base = run('baseline.pdf');
  process.stdout.write(
    `baseline.pdf (${files['baseline.pdf'].length} B): ${base.s.toFixed(1)} s, peak RSS ${base.mb.toFixed(0)} MB, exit ${base.code}\n`,
  );
  for (const name of Object.keys(files).filter((n) => n !== 'baseline.pdf')) {
    const r = run(name);
    if (Number.isFinite(r.mb)) measured++;
    process.stdout.write(
      `${name} (${(files[name].length / 1024).toFixed(0)} KB): ${r.s.toFixed(1)} s (${(r.s / base.s).toFixed(1)}× baseline), peak RSS ${r.mb.toFixed(0)} MB (${(r.mb / base.mb).toFixed(1)}×), exit ${r.code}${r.note ? `\n    ${r.note}` : ''}\n`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (measured === 0) {
  process.stderr.write('bench/limits: nothing was measured\n');
  process.exit(1);
}
