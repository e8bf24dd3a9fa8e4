/**
 * Command-line parsing for `folio convert`: its flag table (groups declared in server/flags) read
 * strictly, so a typo is an error, not a silent default. Shared by the in-process runner (server/cli) and the queue submitter (server/queue), so
 * it lives in neither: both import it, it imports neither.
 */
import type { ConvertLimits } from '../../common/protocol';
import type { ChoiceOf, OutputFormat } from '../../common/requestModel';
import { UsageError } from '../errors';
import { parseFlags, pick, usageText } from '../flags/table';
import {
  DOCUMENT_FLAGS,
  ENGINE_FLAGS,
  LIMIT_FLAGS,
  OUTPUT_FLAGS,
  QUEUE_FLAGS,
  RUN_FLAGS,
  VLM_FLAGS,
  VLM_PACE_FLAGS,
} from '../flags/groups';

export type { OutputFormat };
export type PictureMode = 'link' | 'embed' | 'none';

export interface ConvertArgs {
  inputs: string[];
  output?: string;
  pages?: string;
  format: OutputFormat;
  password?: string;
  jobs: number;
  images: boolean;
  /** Pictures in the output: linked files (default), data URIs, or placeholders. */
  pictures: PictureMode;
  chunkSize: number;
  chunkUnit: 'chars' | 'tokens';
  /** chunks: docling-core's DocChunk lines (default, with `<name>.docling.json` beside) or Folio's flat lines. */
  chunkSchema: 'docling' | 'flat';
  engine: ChoiceOf<'engine'>;
  models?: string;
  providers?: string[];
  keepFurniture: boolean;
  /** Keep text a reader of the page cannot see (docs/text-layer.md). */
  keepHiddenText: boolean;
  ocr: ChoiceOf<'ocr'>;
  layoutPrior: ChoiceOf<'layoutPrior'>;
  /** VLM speculative decoding. */
  speculation: ChoiceOf<'speculation'>;
  scale: number;
  quiet: boolean;
  /** Print the engine's info lines too (provider chosen and why, WebGPU adapter). */
  verbose: boolean;
  /** Replace existing outputs folio did not write (or that changed since). */
  force: boolean;
  /** Resource limits given on the command line (docs/limits.md); the rest take the defaults. */
  limits: ConvertLimits;
  /** Submit to the BullMQ queue at this Redis URL instead of converting here (server/queue). */
  queue?: string;
  rangePages?: number;
  /** Remote VLM over the OpenAI-compatible API (server/vlm/remote*). */
  vlmUrl?: string;
  vlmModel?: string;
  vlmApiKey?: string;
  vlmParallel?: number;
  vlmTimeoutMs?: number;
}

/** `folio convert`'s flags: its groups, in the order its help lists them (server/flags/groups.ts). */
export const CONVERT_FLAGS = {
  ...OUTPUT_FLAGS,
  ...DOCUMENT_FLAGS,
  ...RUN_FLAGS,
  ...ENGINE_FLAGS,
  ...LIMIT_FLAGS,
  ...pick(QUEUE_FLAGS, 'queue', 'range-pages'),
  ...VLM_FLAGS,
  ...VLM_PACE_FLAGS,
};

export const CONVERT_USAGE = usageText(
  'usage: folio convert <file.pdf|scan.png|jpg|tiff|dir>... [options]',
  CONVERT_FLAGS,
);

const PICTURE_MODES = ['link', 'embed', 'none'];

/**
 * `--images <mode>` takes its value only when a mode follows; a bare `--images` keeps its old
 * meaning, `--page-images`. Rewritten before reading, so the table holds plain flags.
 */
function legacyImages(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] !== '--images') out.push(argv[i]);
    else if (PICTURE_MODES.includes(argv[i + 1])) out.push(`--images=${argv[++i]}`);
    else out.push('--page-images');
  }
  return out;
}

export function parseConvertArgs(argv: string[]): ConvertArgs {
  const { values: v, positionals } = parseFlags(CONVERT_FLAGS, legacyImages(argv));
  if (positionals.length === 0) throw new UsageError('no input: name one or more PDF files or folders');
  const chunkUnit = v['chunk-unit'] ?? 'chars';
  const limits: ConvertArgs['limits'] = {};
  if (v['max-document-seconds'] !== undefined) limits.documentSeconds = v['max-document-seconds'];
  if (v['max-page-memory'] !== undefined) limits.pageMemoryMb = v['max-page-memory'];
  if (v['max-pages'] !== undefined) limits.maxPages = v['max-pages'];
  if (v['max-cells'] !== undefined) limits.maxCells = v['max-cells'];
  return {
    inputs: positionals,
    output: v.output,
    pages: v.pages,
    format: v.format,
    password: v.password,
    jobs: v.jobs,
    images: v['page-images'],
    pictures: v.images ?? 'link',
    chunkSize: v['chunk-size'] ?? (chunkUnit === 'tokens' ? 512 : 2000),
    chunkUnit,
    chunkSchema: v['chunk-schema'] ?? 'docling',
    engine: v.engine,
    models: v.models,
    providers: v.providers,
    keepFurniture: v['keep-furniture'],
    keepHiddenText: v['keep-hidden-text'],
    ocr: v.ocr,
    layoutPrior: v['layout-prior'],
    speculation: v.speculation,
    scale: v.scale,
    quiet: v.quiet,
    verbose: v.verbose,
    force: v.force,
    limits,
    queue: v.queue,
    rangePages: v['range-pages'],
    vlmUrl: v['vlm-url'],
    vlmModel: v['vlm-model'],
    vlmApiKey: v['vlm-api-key'],
    vlmParallel: v['vlm-parallel'],
    vlmTimeoutMs: v['vlm-timeout'] === undefined ? undefined : v['vlm-timeout'] * 1000,
  };
}
