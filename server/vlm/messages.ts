/**
 * Messages between `VlmEngine` (backend main thread) and the VLM worker thread. Plain data only
 * (structured clone). Cancellation goes through a shared Int32Array instead of a message,
 * because `session.run` blocks the worker's event loop: a message would only be read after
 * the whole page was generated, while the shared flag is read between decoder steps.
 */
import type { SerializedError } from '../errors';
import type { BBox, RegionClass } from '../../common/protocol';
import type { DocItem } from '../model/items';
import type { LoopGuardOptions } from '../util/loopGuard';
import type { ImageInput } from './preprocess';
import type { LayoutPriorSetting } from './prompt';
import type { Timings } from './model';
import type { SpecMode } from '../speculative/types';
import type { SpeculationSetting } from '../speculative/defaults';

/** Slots of the shared cancel array: requests in flight at once stay far below this. */
export const CANCEL_SLOTS = 1024;

export interface WorkerInit {
  modelsDir: string;
  providers?: string[];
  dtype?: string;
  threads?: number;
  layoutPrior: LayoutPriorSetting;
  maxNewTokens?: number;
  loopGuard?: LoopGuardOptions | false;
  /** Use the heron detector for layout priors when it is installed (default true). */
  detector?: boolean;
  /** Page decoding with the pipeline's drafts (folio.vlm.speculation; default auto). */
  speculation?: SpeculationSetting;
  /** Request `id` is cancelled when cancel[id % CANCEL_SLOTS] === id (a slot per recent request). */
  cancel: SharedArrayBuffer;
}

export interface PageJob {
  image: ImageInput;
  page: number;
  /** Page size in points. */
  width: number;
  height: number;
  priors?: DocItem[];
  /** `page`: one pass over the page image; `regions`: each prior region parsed on its crop. */
  mode?: 'page' | 'regions';
}

export interface RegionJob {
  image: ImageInput;
  page: number;
  width: number;
  height: number;
  bbox: BBox;
  cls: RegionClass;
}

export type ToWorker =
  | { type: 'init'; init: WorkerInit }
  | { type: 'page'; id: number; job: PageJob }
  | { type: 'region'; id: number; job: RegionJob }
  /** The page image that comes next: its tiles are computed ahead, while the current page decodes. */
  | { type: 'prefetch'; image: ImageInput }
  | { type: 'dispose' };

export interface VlmPageOutput {
  doctags: string;
  provider: string;
  tokens: number;
  warnings: string[];
  fellBackRegions?: number;
  timings?: Timings;
  /** How the page was decoded (page conversions only). */
  speculation?: SpeculationReport;
}

/** Which decoding ran for a page and what it cost in decoder passes. */
export interface SpeculationReport {
  /** The setting asked for. */
  setting: SpeculationSetting;
  /** The mode that ran: `ar` for off, and for pages without pipeline text to draft from. */
  mode: SpecMode;
  /** Decoder passes after the prefill (greedy: one per token after the first). */
  passes: number;
  /** Drafted tokens accepted (each pass also adds the model's own next token). */
  accepted: number;
  /** Longest drafted chain and chains per pass (speculative modes). */
  K?: number;
  chains?: number;
}

export type FromWorker =
  | { type: 'ready'; provider: string; fallbacks: { provider: string; reason: string }[]; detector?: string }
  | { type: 'initError'; error: SerializedError }
  | { type: 'log'; message: string }
  | { type: 'done'; id: number; result: VlmPageOutput }
  | { type: 'failed'; id: number; error: SerializedError };
