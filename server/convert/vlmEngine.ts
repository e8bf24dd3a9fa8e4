/**
 * The seam between the orchestrator and the VLM engine (server/vlm). Kept in its own file so
 * the orchestrator does not depend on the VLM's internals.
 */
import type { ConvertOptions } from '../protocol';
import { FolioErrorCodes } from '../protocol';
import { FolioError } from '../errors';
import type { PageAnalysis } from '../pipeline/types';

export interface VlmPageEngine {
  convertPage(a: PageAnalysis, signal: AbortSignal): Promise<{ doctags: string; provider: string; warnings: string[] }>;
}

export async function vlmPageEngine(options: ConvertOptions, log: (m: string) => void): Promise<VlmPageEngine> {
  void log;
  if (!options.modelsDir) {
    throw new FolioError(FolioErrorCodes.ModelError, 'The VLM engine needs a model folder: pass --models <dir> or run `folio models pull`.');
  }
  throw new FolioError(FolioErrorCodes.ModelError, 'The VLM engine is not available in this build.');
}
