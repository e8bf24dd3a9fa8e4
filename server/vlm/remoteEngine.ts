/**
 * The VLM engine over a remote OpenAI-compatible server: the page image (the PNG the pipeline
 * rendered) goes out with the page prompt and, when enabled, the `<layout>` prior; a region
 * reparse sends the crop with its class prompt. The answer goes through the same DocTags clean-up
 * as the local model's. Errors are thrown: the orchestrator falls back to the pipeline for that
 * page with a warning, exactly as for the local engine.
 */
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import type { BBox, RegionClass, RemoteVlmSettings } from '../../common/protocol';
import { type DocItem, toGrid } from '../model/items';
import { parseDocTags } from '../doctags/parse';
import { serializeItem } from '../doctags/serialize';
import {
  PAGE_INSTRUCTION,
  layoutPrior,
  regionInstruction,
  stripWrapper,
  usePrior,
  type LayoutPriorSetting,
} from './prompt';
import { cropRect } from './preprocess';
import { regionItem } from './convert';
import { RemoteVlmClient } from './remoteClient';

export interface RemotePage {
  image: { path: string };
  page: number;
  width: number;
  height: number;
  priors?: DocItem[];
}

export interface RemoteOutput {
  doctags: string;
  provider: string;
  warnings: string[];
}

export interface RemoteVlmEngine {
  readonly provider: string;
  convertPage(p: RemotePage, signal: AbortSignal, onText?: (soFar: string) => void): Promise<RemoteOutput>;
  parseRegion(p: RemotePage, bbox: BBox, cls: RegionClass, signal: AbortSignal): Promise<RemoteOutput>;
}

export function remoteVlmEngine(settings: RemoteVlmSettings, prior: LayoutPriorSetting = 'auto'): RemoteVlmEngine {
  const client = new RemoteVlmClient(settings);
  const provider = `remote ${settings.model} at ${settings.url}`;
  return {
    provider,
    async convertPage(p, signal, onText) {
      const png = await readFile(p.image.path);
      const instruction = PAGE_INSTRUCTION + (usePrior(prior, p.priors, true) ? layoutPrior(p.priors!) : '');
      const ans = await client.complete(png, instruction, signal, onText);
      const doctags = stripWrapper(ans.text);
      if (!doctags) throw new Error('the server answered with no text');
      if ((parseDocTags(doctags)[0]?.items ?? []).length === 0)
        throw new Error(`the answer is not DocTags (${doctags.slice(0, 60)}…)`);
      const warnings =
        ans.finishReason === 'length'
          ? [`Page ${p.page}: the remote VLM stopped at its token bound; the page may be cut short.`]
          : [];
      if (ans.attempts > 1) warnings.push(`Page ${p.page}: the remote VLM answered on attempt ${ans.attempts}.`);
      return { doctags, provider, warnings };
    },
    async parseRegion(p, bbox, cls, signal) {
      const meta = await sharp(p.image.path).metadata();
      const rect = cropRect(bbox, p, { width: meta.width ?? 0, height: meta.height ?? 0 });
      const png = await sharp(p.image.path).extract(rect).png().toBuffer();
      const ans = await client.complete(png, regionInstruction(cls), signal);
      const prior: DocItem = { cls, bbox, grid: toGrid(bbox, p), text: '' };
      const item = regionItem(prior, {
        text: ans.text,
        tokens: [],
        reason: ans.finishReason === 'length' ? 'max' : 'stop',
      });
      if (!item)
        throw new Error(
          `the remote VLM wrote nothing usable for the ${cls} region on page ${p.page}; the pipeline's text is kept`,
        );
      return { doctags: serializeItem(item), provider, warnings: [] };
    },
  };
}
