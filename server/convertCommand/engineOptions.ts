/**
 * The conversion options `folio convert` passes the same way whether it converts in-process or
 * submits to the queue (engine, OCR, scale, furniture, models, VLM and speculation), built in
 * one place so a new flag reaches both paths.
 */
import type { ConvertOptions } from '../../common/protocol';
import type { ConvertArgs } from './args';
import { remoteVlmOption } from '../vlm/remoteOptions';

export function engineOptions(args: ConvertArgs): ConvertOptions {
  return {
    engine: args.engine,
    ocr: args.ocr,
    scale: args.scale,
    keepFurniture: args.keepFurniture,
    ...(args.keepHiddenText ? { keepHiddenText: true } : {}),
    modelsDir: args.models,
    providers: args.providers,
    layoutPrior: args.layoutPrior,
    speculation: args.speculation,
    ...remoteVlmOption(args),
  };
}
