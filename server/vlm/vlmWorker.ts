/**
 * The VLM worker thread (bundled as dist/vlmWorker.js). Owns the onnxruntime sessions, because
 * `session.run` blocks its thread for the length of each decoder pass. Jobs run one at a time
 * in arrival order; a job is cancelled through the shared flag (see messages.ts).
 */
import { parentPort } from 'node:worker_threads';
import { dirname } from 'node:path';
import { serializeError } from '../errors';
import { convertPageOn, parseRegionOn, type ConvertSettings } from './convert';
import { findDetector, HeronDetector } from './detector';
import { CANCEL_SLOTS, type FromWorker, type PageJob, type ToWorker, type WorkerInit } from './messages';
import { VlmModel } from './model';
import { resolveVlmDir } from './config';
import type { DocItem } from '../model/items';
import { describeAdapter, softwareAdapterWarning } from '../onnx/webgpuAdapter';
import { PreprocessAhead } from './preprocessAhead';
import { setPreprocessSource } from './preprocess';

if (!parentPort) throw new Error('vlmWorker.js must run as a worker thread');
const port = parentPort;
const send = (m: FromWorker) => port.postMessage(m);

let model: VlmModel | undefined;
let detector: HeronDetector | undefined;
let init: WorkerInit | undefined;
let cancel: Int32Array | undefined;
let queue: Promise<void> = Promise.resolve();
/** The next page's tiles, computed on another thread while this one decodes (preprocessAhead.ts). */
let ahead: PreprocessAhead | undefined;

async function start(i: WorkerInit): Promise<void> {
  init = i;
  cancel = new Int32Array(i.cancel);
  try {
    const log = (message: string) => send({ type: 'log', message });
    model = await VlmModel.load({
      modelsDir: i.modelsDir,
      providers: i.providers,
      dtype: i.dtype,
      threads: i.threads,
      log,
      // On WebGPU the cache stays on the device between passes; Folio decodes greedily there
      // (specModeFor), the one loop that needs no CPU-side cache edits.
      deviceCache: true,
    });
    if (i.detector !== false && i.layoutPrior !== 'off') {
      // The detector may sit in the models root beside the VLM folder.
      const path = findDetector(i.modelsDir) ?? findDetector(dirname(resolveVlmDir(i.modelsDir)));
      if (path) {
        try {
          detector = await HeronDetector.load(path, i.providers ?? ['cpu'], i.threads);
          log(`VLM: layout priors from ${path} (${detector.provider})`);
        } catch (e) {
          log(
            `VLM: the layout detector ${path} could not be loaded (${(e as Error).message}); using the pipeline's layout as prior`,
          );
        }
      }
    }
    ahead = new PreprocessAhead(undefined, 2, log);
    setPreprocessSource(ahead);
    send({
      type: 'ready',
      provider: model.provider,
      fallbacks: model.fallbacks,
      detector: detector ? 'heron' : undefined,
      adapter: model.adapter ? describeAdapter(model.adapter) : undefined,
    });
  } catch (e) {
    send({ type: 'initError', error: serializeError(e) });
  }
}

function settingsFor(id: number): ConvertSettings {
  const flag = cancel!;
  return {
    layoutPrior: init!.layoutPrior,
    maxNewTokens: init!.maxNewTokens,
    loopGuard: init!.loopGuard,
    speculation: init!.speculation,
    signal: {
      get aborted() {
        return Atomics.load(flag, id % CANCEL_SLOTS) === id;
      },
    },
  };
}

async function runPage(id: number, job: PageJob): Promise<void> {
  const s = settingsFor(id);
  let detected: DocItem[] | undefined;
  let detectorWarning: string | undefined;
  if (detector && s.layoutPrior !== 'off' && job.mode !== 'regions') {
    try {
      detected = await detector.detect(job.image, job);
    } catch (e) {
      // A detector error never fails the page: the pipeline's items stay the prior.
      detectorWarning = `Page ${job.page}: the layout detector failed (${(e as Error).message.split('\n')[0]}); the pipeline's layout was used as the prior.`;
      send({ type: 'log', message: `VLM: ${detectorWarning}` });
    }
  }
  const result = await convertPageOn(model!, job, s, detected);
  if (detectorWarning) result.warnings.unshift(detectorWarning);
  const software = model!.adapter && softwareAdapterWarning(model!.adapter);
  if (software) result.warnings.push(`Page ${job.page}: ${software}.`);
  const sp = result.speculation;
  if (sp) {
    const how =
      sp.mode === 'ar'
        ? 'greedy'
        : `${sp.mode}, K=${sp.K}, ${sp.chains} chain(s), ${sp.accepted} drafted tokens accepted`;
    send({
      type: 'log',
      message: `VLM: page ${job.page}: speculation ${sp.setting} → ${how}: ${result.tokens} tokens in ${sp.passes} decoder passes (${(result.tokens / (sp.passes + 1)).toFixed(1)} tokens per pass, prefill included)`,
    });
  }
  send({ type: 'done', id, result });
}

port.on('message', (m: ToWorker) => {
  switch (m.type) {
    case 'init':
      void start(m.init);
      break;
    case 'page':
    case 'region':
      queue = queue.then(async () => {
        try {
          if (!model) throw new Error('the VLM worker has no model loaded');
          if (m.type === 'page') await runPage(m.id, m.job);
          else {
            const result = await parseRegionOn(model, m.job, settingsFor(m.id));
            const software = model.adapter && softwareAdapterWarning(model.adapter);
            if (software) result.warnings.push(`Page ${m.job.page}: ${software}.`);
            send({ type: 'done', id: m.id, result });
          }
        } catch (e) {
          send({ type: 'failed', id: m.id, error: serializeError(e) });
        }
      });
      break;
    case 'prefetch':
      // Not queued: it starts now, beside the page that is decoding.
      if (model) ahead?.prefetch(m.image, model.config.preprocess);
      break;
    case 'dispose':
      queue = queue.then(async () => {
        await ahead?.close();
        await model?.release();
        await detector?.release();
        port.close();
      });
      break;
  }
});
