/**
 * The VLM's model folder: where it is, which files a dtype variant needs, and the settings read
 * from its JSON configs (config.json, preprocessor_config.json, processor_config.json,
 * generation_config.json). Everything is validated up front so a missing or corrupt file gives
 * one clear error naming it, instead of an onnxruntime failure deep inside a worker.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FolioError } from '../errors';
import { FolioErrorCodes } from '../../common/protocol';

/** transformers.js file-name suffixes of the export's variants. */
export const DTYPE_SUFFIX: Record<string, string> = {
  fp32: '',
  fp16: '_fp16',
  q8: '_quantized',
  quantized: '_quantized',
  int8: '_int8',
  uint8: '_uint8',
  q4: '_q4',
  q4f16: '_q4f16',
  bnb4: '_bnb4',
};

/** Folder names of the VLM inside a models root (the manager's name first). */
export const VLM_FOLDER_NAMES = ['granite-docling-258M-ONNX', 'granite-docling-258M'];

export const HOW_TO_GET = 'Run "Folio: Download models" in VS Code or `folio models pull` on the command line.';

export interface VlmConfig {
  dir: string;
  dtype: string;
  files: { vision: string; embed: string; decoder: string; tokenizer: string };
  imageTokenId?: number;
  text: { hidden: number; layers: number; kvHeads: number; headDim: number; vocab: number };
  preprocess: {
    longestEdge: number;
    tileSize: number;
    splitting: boolean;
    rescale: number;
    mean: [number, number, number];
    std: [number, number, number];
    /** Resampling filter, from PIL's `resample` code in the config (applied with Pillow's arithmetic). */
    kernel: 'nearest' | 'linear' | 'cubic' | 'lanczos3' | 'box' | 'hamming';
  };
  imageSeqLen: number;
  eosIds: number[];
  maxNewTokens: number;
}

export function modelError(message: string): FolioError {
  return new FolioError(FolioErrorCodes.ModelError, message);
}

/** The VLM folder: `dir` itself when it holds config.json, else a known subfolder. */
export function resolveVlmDir(dir: string): string {
  if (existsSync(join(dir, 'config.json'))) return dir;
  for (const name of VLM_FOLDER_NAMES) if (existsSync(join(dir, name, 'config.json'))) return join(dir, name);
  throw modelError(`No VLM model in ${dir} (expected ${VLM_FOLDER_NAMES[0]}/config.json). ${HOW_TO_GET}`);
}

/** The ONNX files (relative to the model folder) a dtype needs. */
export function onnxFilesFor(dtype: string): { vision: string; embed: string; decoder: string } {
  const suffix = DTYPE_SUFFIX[dtype];
  if (suffix === undefined) {
    throw modelError(`Unknown model dtype "${dtype}"; use one of ${Object.keys(DTYPE_SUFFIX).join(', ')}.`);
  }
  return {
    vision: `onnx/vision_encoder${suffix}.onnx`,
    embed: `onnx/embed_tokens${suffix}.onnx`,
    decoder: `onnx/decoder_model_merged${suffix}.onnx`,
  };
}

function readJson(dir: string, name: string, required: boolean): Record<string, unknown> | undefined {
  const p = join(dir, name);
  if (!existsSync(p)) {
    if (required) throw modelError(`The VLM model folder ${dir} lacks ${name}. ${HOW_TO_GET}`);
    return undefined;
  }
  try {
    return JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw modelError(`${p} is not valid JSON (${(e as Error).message}); the download may be damaged. ${HOW_TO_GET}`);
  }
}

function num(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

function triple(v: unknown, fallback: number): [number, number, number] {
  if (Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === 'number')) return v as [number, number, number];
  if (typeof v === 'number') return [v, v, v];
  return [fallback, fallback, fallback];
}

/** PIL resample codes: 0 nearest, 1 Lanczos, 2 bilinear, 3 bicubic, 4 box, 5 hamming (absent: Lanczos). */
function pilKernel(code: unknown): VlmConfig['preprocess']['kernel'] {
  switch (code) {
    case 0:
      return 'nearest';
    case 2:
      return 'linear';
    case 3:
      return 'cubic';
    case 4:
      return 'box';
    case 5:
      return 'hamming';
    case 1:
    case undefined:
      return 'lanczos3';
    default:
      throw modelError(`preprocessor_config.json has resample ${JSON.stringify(code)}, not one of PIL's codes 0–5.`);
  }
}

/** Reads and checks a VLM folder; throws a FolioError naming the first problem. */
export function loadVlmConfig(dirOrRoot: string, dtype = 'fp32'): VlmConfig {
  const dir = resolveVlmDir(dirOrRoot);
  const config = readJson(dir, 'config.json', true)!;
  const pre = readJson(dir, 'preprocessor_config.json', true)!;
  const proc = readJson(dir, 'processor_config.json', false) ?? {};
  const gen = readJson(dir, 'generation_config.json', false) ?? {};
  const onnx = onnxFilesFor(dtype);
  for (const rel of [...Object.values(onnx), 'tokenizer.json']) {
    const p = join(dir, rel);
    if (!existsSync(p)) {
      const hint = rel.startsWith('onnx/') ? ` (dtype ${dtype}; pick the dtype you downloaded or pull it)` : '';
      throw modelError(`The VLM model folder ${dir} lacks ${rel}${hint}. ${HOW_TO_GET}`);
    }
    if (statSync(p).size === 0) throw modelError(`${p} is empty; the download was interrupted. ${HOW_TO_GET}`);
  }
  const text = (config.text_config ?? {}) as Record<string, unknown>;
  const heads = num(text.num_attention_heads, 9);
  const hidden = num(text.hidden_size, 576);
  const maxSize = (pre.max_image_size ?? {}) as Record<string, unknown>;
  const size = (pre.size ?? {}) as Record<string, unknown>;
  const eos = gen.eos_token_id ?? config.eos_token_id;
  return {
    dir,
    dtype,
    files: {
      vision: join(dir, onnx.vision),
      embed: join(dir, onnx.embed),
      decoder: join(dir, onnx.decoder),
      tokenizer: join(dir, 'tokenizer.json'),
    },
    imageTokenId: typeof config.image_token_id === 'number' ? config.image_token_id : undefined,
    text: {
      hidden,
      layers: num(text.num_hidden_layers, 30),
      kvHeads: num(text.num_key_value_heads, 3),
      headDim: num(text.head_dim, hidden / heads),
      vocab: num(text.vocab_size, 100352),
    },
    preprocess: {
      longestEdge: num(size.longest_edge, 2048),
      tileSize: num(maxSize.longest_edge, 512),
      splitting: pre.do_image_splitting !== false,
      rescale: num(pre.rescale_factor, 1 / 255),
      mean: triple(pre.image_mean, 0.5),
      std: triple(pre.image_std, 0.5),
      kernel: pilKernel(pre.resample),
    },
    imageSeqLen: num(proc.image_seq_len, 64),
    eosIds: (Array.isArray(eos) ? eos : eos !== undefined ? [eos] : []).filter(
      (x): x is number => typeof x === 'number',
    ),
    maxNewTokens: num(gen.max_new_tokens, 8192),
  };
}
