/**
 * The seam between the orchestrator and the VLM engine (server/vlm). The engine (a worker
 * thread holding the ONNX sessions) is loaded once per model folder and provider list and kept
 * for later conversions in the same process: loading the real model takes seconds.
 */
import { FolioErrorCodes, type BBox, type ConvertOptions, type RegionClass } from '../../common/protocol';
import { FolioError } from '../errors';
import type { PageAnalysis } from '../model/analysis';
// Loaded when a VLM conversion starts (`await import`), not with the converter: they bring
// onnxruntime-node and sharp, which a pipeline conversion never needs (CLI start-up, issue 22).
import type { VlmEngine } from '../vlm/index';

export interface VlmPageEngine {
  readonly provider: string;
  /**
   * `onText`, when given, is called with the page's whole answer so far each time the engine has
   * more of it (the orchestrator throttles it into `folio/pagePartial`). The remote engine calls
   * it per streamed event; the local engine does not call it yet.
   */
  convertPage(
    a: PageAnalysis,
    signal: AbortSignal,
    onText?: (soFar: string) => void,
  ): Promise<{ doctags: string; provider: string; warnings: string[] }>;
  /** One region of a rendered page, with the class-specific prompt on its crop (region reparse). */
  parseRegion(
    a: PageAnalysis,
    bbox: BBox,
    cls: RegionClass,
    signal: AbortSignal,
  ): Promise<{ doctags: string; provider: string; warnings: string[] }>;
  /** The page that comes after the one converting: the local engine preprocesses it meanwhile. */
  prefetch?(a: PageAnalysis): void;
}

const engines = new Map<string, Promise<VlmEngine>>();

export async function vlmPageEngine(options: ConvertOptions, log: (m: string) => void): Promise<VlmPageEngine> {
  // A remote OpenAI-compatible server needs no model folder: same seam, same fallback.
  if (options.remoteVlm) {
    const { remoteVlmEngine } = await import('../vlm/remoteEngine');
    const remote = remoteVlmEngine(options.remoteVlm, options.layoutPrior ?? 'off');
    return {
      provider: remote.provider,
      convertPage: async (a, signal, onText) => {
        if (!a.image) throw new Error('the page image was not rendered');
        return remote.convertPage(
          { image: { path: a.image.path }, page: a.page, width: a.width, height: a.height, priors: a.items },
          signal,
          onText,
        );
      },
      parseRegion: async (a, bbox, cls, signal) => {
        if (!a.image) throw new Error('the page image was not rendered');
        return remote.parseRegion(
          { image: { path: a.image.path }, page: a.page, width: a.width, height: a.height },
          bbox,
          cls,
          signal,
        );
      },
    };
  }
  const modelsDir = options.modelsDir;
  if (!modelsDir) {
    throw new FolioError(
      FolioErrorCodes.ModelError,
      'The VLM engine needs a model folder: pass --models <dir> (or set folio.models.path), or run `folio models pull` / "Folio: Download models".',
    );
  }
  const key = JSON.stringify([
    modelsDir,
    options.providers ?? null,
    options.layoutPrior ?? 'off',
    options.speculation ?? 'auto',
  ]);
  let loading = engines.get(key);
  if (!loading) {
    loading = import('../vlm/index').then(({ loadVlm }) =>
      loadVlm({
        modelsDir,
        providers: options.providers,
        layoutPrior: options.layoutPrior ?? 'off',
        speculation: options.speculation,
        log,
      }),
    );
    engines.set(key, loading);
    loading.catch(() => engines.delete(key));
  }
  return localPageEngine(await loading);
}

/** The orchestrator's seam over the local engine: pages by their rendered image file. */
function localPageEngine(engine: VlmEngine): VlmPageEngine {
  return {
    provider: engine.provider,
    prefetch: (a) => {
      if (a.image) engine.prefetch({ path: a.image.path });
    },
    convertPage: async (a, signal) => {
      if (!a.image) throw new Error('the page image was not rendered');
      return engine.convertPage({
        image: { path: a.image.path },
        page: a.page,
        width: a.width,
        height: a.height,
        priors: a.items,
        signal,
      });
    },
    parseRegion: async (a, bbox, cls, signal) => {
      if (!a.image) throw new Error('the page image was not rendered');
      return engine.parseRegion({
        image: { path: a.image.path },
        page: a.page,
        width: a.width,
        height: a.height,
        bbox,
        cls,
        signal,
      });
    },
  };
}

/** Stops every loaded VLM worker (backend shutdown, CLI exit). */
export async function disposeVlmEngines(): Promise<void> {
  const all = [...engines.values()];
  engines.clear();
  await Promise.all(all.map((p) => p.then((e) => e.dispose()).catch(() => undefined)));
}
