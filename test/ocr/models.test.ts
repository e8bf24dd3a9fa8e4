import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getOcr } from '../../server/ocr/index';
import { MODEL_FILES, modelDir } from '../../server/ocr/models';
import { isFolioError } from '../../server/errors';
import { FolioErrorCodes } from '../../common/protocol';

/** A copy of the real model folder in which one file is damaged or missing. */
function brokenModels(damage: (dir: string) => void): string {
  const real = modelDir();
  const dir = mkdtempSync(join(tmpdir(), 'folio-ocr-models-'));
  for (const f of Object.values(MODEL_FILES)) copyFileSync(join(real, f), join(dir, f));
  damage(dir);
  return dir;
}

async function withModels<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const before = process.env.FOLIO_OCR_MODELS;
  process.env.FOLIO_OCR_MODELS = dir;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.FOLIO_OCR_MODELS;
    else process.env.FOLIO_OCR_MODELS = before;
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a truncated model file gives a model error naming the file and the remedy', async () => {
  const dir = brokenModels((d) => {
    const p = join(d, MODEL_FILES.rec);
    writeFileSync(p, readFileSync(p).subarray(0, 100_000));
  });
  await withModels(dir, async () => {
    await assert.rejects(getOcr(), (e: unknown) => {
      assert.ok(isFolioError(e), `a FolioError, got ${String(e)}`);
      assert.equal((e as { code: number }).code, FolioErrorCodes.ModelError);
      assert.match((e as Error).message, new RegExp(MODEL_FILES.rec.replace(/\./g, '\\.')));
      assert.match((e as Error).message, /reinstall the extension/);
      return true;
    });
  });
});

test('a missing model file gives a model error naming it', async () => {
  const dir = brokenModels((d) => rmSync(join(d, MODEL_FILES.det)));
  await withModels(dir, async () => {
    await assert.rejects(getOcr(), /OCR model file is missing: .*ch_PP-OCRv4_det_infer\.onnx; reinstall the extension/);
  });
});

test('a key file that does not match the recognizer is refused', async () => {
  const dir = brokenModels((d) => writeFileSync(join(d, MODEL_FILES.keys), 'a\nb\nc\n'.repeat(50)));
  await withModels(dir, async () => {
    await assert.rejects(getOcr(), /ppocr_keys_v1\.txt does not match the recognition model/);
  });
});

test('bad images and a cancelled signal are refused with clear errors', async () => {
  const ocr = await getOcr();
  await assert.rejects(
    ocr.recognize({ data: new Uint8ClampedArray(10), width: 100, height: 100 }),
    /OCR input is too short: 10 bytes for 100×100 RGBA/,
  );
  await assert.rejects(ocr.recognize({ data: new Uint8ClampedArray(0), width: 0, height: 5 }), /invalid size 0×5/);
  const ac = new AbortController();
  ac.abort();
  const white = new Uint8ClampedArray(64 * 64 * 4).fill(255);
  await assert.rejects(
    ocr.recognize({ data: white, width: 64, height: 64 }, { signal: ac.signal }),
    (e: unknown) => (e as Error).name === 'AbortError',
  );
  // A blank page is not an error: no lines.
  const res = await ocr.recognize({ data: white, width: 64, height: 64 });
  assert.equal(res.lines.length, 0);
  assert.equal(res.rotation, 0);
});
