/**
 * The extension's one conversion call (as rust-analyzer's commands send their typed requests of
 * `lsp_ext.ts`): `convertParams` builds the `folio/convert` request from the PDF's URI, the user's
 * settings, the password and the command's own options, and `convert` sends it with the
 * work-done and partial-result tokens its caller follows. Every command that converts (convert,
 * convert to…, the folder, the language-model tool, the view's sharper pages) goes through here,
 * so a new setting reaches all of them, and settings flow one way: the limits (`folio.limits.*`)
 * are sent with the request like every other setting, never asked for by the backend.
 */
import type * as vscode from 'vscode';
import { randomUUID } from 'node:crypto';
import type { WorkDoneProgressReport } from 'vscode-languageclient/node';
import {
  ConvertRequest,
  LIMIT_RANGES,
  type ConvertLimits,
  type ConvertOptions,
  type ConvertParams,
  type ConvertSummary,
  type PagePartialParams,
  type PageResult,
} from '../common/protocol';
import type { FolioConfig, FolioContext } from './context';
import { modelsDirOption } from './paths';
import { forwardWorkDone } from './workDoneProgress';

/** One conversion a command asks for. */
export interface ConversionCall {
  pdfUri: vscode.Uri;
  password?: string;
  /** Page selection, e.g. "1-3,7" (1-based); all pages when absent. */
  pages?: string;
  /** The command's own options (page images, the Markdown and assets folders), over the shared ones. */
  options: ConvertOptions;
  /**
   * false: `options` alone, without the settings' shared options (the view's sharper page images
   * are the pipeline's, without OCR, whatever the settings say). The limits are sent either way.
   */
  shared?: boolean;
}

/** What the caller follows while the request runs; each one present asks the backend for it. */
export interface ConvertHandlers {
  /** The notification whose bar the backend's `page i/N` fills. */
  progress?: vscode.Progress<{ message?: string; increment?: number }>;
  /** Each work-done report too (the Markdown command reads the page count from it). */
  onWorkDone?: (r: WorkDoneProgressReport) => void;
  /** Each page as it is done, in page order; without it the summary carries `pages`. */
  onPage?: (page: PageResult) => void;
  /** A page the VLM is still writing (`folio/pagePartial`); needs `onPage`. */
  onPartial?: (partial: PagePartialParams) => void;
  /** The partial-result token (listeners of the conversion's events know it by this id). */
  conversionId?: string;
}

/**
 * The options every conversion shares — page images' scale, OCR, furniture, cache and the engine
 * with its VLM settings — from the user's settings.
 */
export function sharedConvertOptions(config: FolioConfig, cacheDir: string): ConvertOptions {
  return {
    scale: config.renderScale,
    ocr: config.ocr,
    keepFurniture: config.keepPageHeaders,
    ...(config.keepHiddenText ? { keepHiddenText: true } : {}),
    cacheDir,
    engine: config.engine,
    modelsDir: modelsDirOption(config.modelsDir),
    providers: config.providers,
    layoutPrior: config.layoutPrior,
    speculation: config.speculation,
    ...(config.remoteVlm ? { remoteVlm: config.remoteVlm } : {}),
  };
}

/** The options of one conversion as sent: the shared ones, then the command's own. */
export function conversionOptions(config: FolioConfig, cacheDir: string, call: ConversionCall): ConvertOptions {
  return call.shared === false ? { ...call.options } : { ...sharedConvertOptions(config, cacheDir), ...call.options };
}

/**
 * The user's `folio.limits.*`, checked against the ranges the backend enforces, so a bad value in
 * a hand-edited settings.json is an error naming the setting (the backend would name only
 * `limits.…`). An unset setting reads as its package.json default, the backend's default too.
 */
export function limitsFromSettings(limits: FolioConfig['limits']): ConvertLimits {
  const out: ConvertLimits = {};
  for (const key of Object.keys(LIMIT_RANGES) as (keyof ConvertLimits)[]) {
    const v = limits[key];
    if (v === undefined || v === null) continue;
    const { min, max } = LIMIT_RANGES[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
      throw new Error(
        `the setting folio.limits.${key} must be a whole number from ${min} to ${max}, not ${JSON.stringify(v)}; correct it in your user settings.`,
      );
    out[key] = v;
  }
  return out;
}

/** The `folio/convert` request of one conversion: the only place in src/ that builds one. */
export function convertParams(
  config: FolioConfig,
  cacheDir: string,
  call: ConversionCall,
  tokens: Pick<ConvertParams, 'workDoneToken' | 'partialResultToken' | 'pagePartials'> = {},
): ConvertParams {
  return {
    uri: call.pdfUri.toString(),
    ...(call.pages !== undefined ? { pages: call.pages } : {}),
    ...(call.password !== undefined ? { password: call.password } : {}),
    options: conversionOptions(config, cacheDir, call),
    limits: limitsFromSettings(config.limits),
    ...tokens,
  };
}

/**
 * Sends one conversion and follows it with `handlers` until it answers; `token` cancels it.
 * `config`: the settings the caller already read (a folder batch reads them once), else now.
 */
export async function convert(
  ctx: FolioContext,
  call: ConversionCall,
  token: vscode.CancellationToken,
  handlers: ConvertHandlers = {},
  config: FolioConfig = ctx.config,
): Promise<ConvertSummary> {
  const client = await ctx.client();
  const workDoneToken = handlers.progress ? randomUUID() : undefined;
  const partialResultToken = handlers.onPage ? (handlers.conversionId ?? randomUUID()) : undefined;
  const params = convertParams(config, ctx.cacheDir.fsPath, call, {
    ...(workDoneToken ? { workDoneToken } : {}),
    ...(partialResultToken ? { partialResultToken } : {}),
    ...(partialResultToken && handlers.onPartial ? { pagePartials: true } : {}),
  });
  const subs: vscode.Disposable[] = [];
  if (workDoneToken && handlers.progress)
    subs.push(forwardWorkDone(client, workDoneToken, handlers.progress, 1, handlers.onWorkDone));
  if (partialResultToken && handlers.onPage) {
    subs.push(client.onProgress(ConvertRequest.partialResult, partialResultToken, handlers.onPage));
    if (handlers.onPartial) subs.push(ctx.pagePartials.follow(partialResultToken, handlers.onPartial));
  }
  try {
    return await client.sendRequest(ConvertRequest.type, params, token);
  } finally {
    for (const s of subs) s.dispose();
  }
}
