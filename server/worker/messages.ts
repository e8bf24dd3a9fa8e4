/**
 * Messages between the backend's main thread (the JSON-RPC thread) and a page worker. All
 * blocking work — pdf.js parsing and rendering, OCR's onnxruntime runs, image encoding — happens
 * in the worker, so the main thread keeps answering requests and `$/cancelRequest` at once.
 */
import type { BBox, RegionClass } from '../../common/protocol';
import type { DocItem } from '../model/items';
import type { AnalyzeOptions, PageAnalysis } from '../model/analysis';
import type { SerializedError } from '../errors';

/** The first message a page worker receives: the shared cancellation flag (see cancelFlag.ts). */
export interface WorkerInit {
  kind: 'init';
  cancel: Int32Array;
}

/** What one request may use inside pdf.js (server/worker/pdfBudget.ts); 0 or absent = no limit. */
export interface RequestBudget {
  memoryBytes?: number;
}

export type WorkerRequest =
  | { kind: 'open'; id: number; docId: string; path: string; password?: string; budget?: RequestBudget }
  | { kind: 'analyze'; id: number; docId: string; page: number; options: AnalyzeOptions; budget?: RequestBudget }
  | {
      kind: 'reparse';
      id: number;
      docId: string;
      page: number;
      bbox: BBox;
      cls: RegionClass;
      options: AnalyzeOptions;
      budget?: RequestBudget;
    }
  | { kind: 'close'; id: number; docId: string };

export type WorkerResponse =
  | { kind: 'opened'; id: number; numPages: number }
  | { kind: 'analyzed'; id: number; analysis: PageAnalysis }
  | { kind: 'reparsed'; id: number; item: DocItem }
  | { kind: 'closed'; id: number }
  | { kind: 'error'; id: number; error: SerializedError };
