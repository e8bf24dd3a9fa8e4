/**
 * The extension's settings (`folio.*`, package.json `contributes.configuration`) read into one
 * object. The shared conversion options' choices and defaults are common/requestModel.ts's; the
 * test test/unit/requestModel.test.ts holds package.json and this reader to the same table.
 * Apart from src/context.ts (which owns the configuration) so that the reading runs in plain Node tests.
 */
import type * as vscode from 'vscode';
import type { PictureMode, RemoteVlmSettings } from '../common/protocol';
import { CONVERT_OPTIONS, formatNames, type ChoiceOf, type FormatName } from '../common/requestModel';
import { addSecret } from './logRedaction';

/** `folio.outputFormat`'s values: the formats common/requestModel.ts offers the extension, under their shown names. */
export type OutputFormat = FormatName<'extension'>;
export const OUTPUT_FORMATS: readonly OutputFormat[] = formatNames('extension');

export interface FolioConfig {
  outputDirectory: string;
  renderScale: number;
  keepPageHeaders: boolean;
  /** Keep text a reader of the page cannot see (a machine setting: a workspace cannot turn it on). */
  keepHiddenText: boolean;
  ocr: ChoiceOf<'ocr'>;
  engine: ChoiceOf<'engine'>;
  /** Model folder: the setting, else the extension's global storage. */
  modelsDir: string;
  providers: string[];
  layoutPrior: ChoiceOf<'layoutPrior'>;
  speculation: ChoiceOf<'speculation'>;
  /** What the convert commands write (src/commands/exportFile.ts for all but markdown). */
  outputFormat: OutputFormat;
  /** Pictures in the docling and chunks outputs. */
  images: PictureMode;
  /** `folio.vlm.remoteUrl` (machine scope) set: the VLM runs on that server (docs/remote-vlm.md). */
  remoteVlm?: RemoteVlmSettings;
  /**
   * `folio.limits.*` (machine scope: user settings only) as read, unchecked: a hand-edited
   * settings.json may hold anything, so src/convertClient.ts checks them before sending.
   */
  limits: { documentSeconds: unknown; pageMemoryMb: unknown; maxPages: unknown; maxCells?: unknown };
}

/** A setting's value when it is one of `values` (a hand-edited settings.json may hold anything), else the default. */
function oneOf<T extends string>(v: string | undefined, values: readonly T[], fallback: T): T {
  return values.includes(v as T) ? (v as T) : fallback;
}

/** The remote VLM from machine settings; the key only from the environment, never from a settings file. */
function remoteVlmFrom(c: Settings): RemoteVlmSettings | undefined {
  const url = c.get<string>('vlm.remoteUrl', '').trim();
  if (!url) return undefined;
  const model = c.get<string>('vlm.remoteModel', '').trim() || 'ibm-granite/granite-docling-258M';
  const apiKey = process.env.FOLIO_VLM_API_KEY;
  addSecret(apiKey);
  return { url, model, ...(apiKey ? { apiKey } : {}) };
}

/** What the reader needs of a `WorkspaceConfiguration`. */
type Settings = Pick<vscode.WorkspaceConfiguration, 'get'>;

/** The settings as Folio uses them; `defaultModelsDir` when `folio.models.path` is empty. */
export function readConfig(c: Settings, defaultModelsDir: string): FolioConfig {
  return {
    outputDirectory: c.get<string>('outputDirectory', ''),
    renderScale: c.get<number>('renderScale', CONVERT_OPTIONS.scale.default),
    keepPageHeaders: c.get<boolean>('keepPageHeaders', CONVERT_OPTIONS.keepFurniture.default),
    keepHiddenText: c.get<boolean>('keepHiddenText', CONVERT_OPTIONS.keepHiddenText.default) === true,
    ocr: c.get<ChoiceOf<'ocr'>>('ocr', CONVERT_OPTIONS.ocr.default),
    engine: c.get<ChoiceOf<'engine'>>('engine', CONVERT_OPTIONS.engine.default),
    modelsDir: c.get<string>('models.path', '').trim() || defaultModelsDir,
    providers: c.get<string[]>('vlm.providers', ['cuda', 'webgpu', 'cpu']),
    layoutPrior: c.get<ChoiceOf<'layoutPrior'>>('vlm.layoutPrior', CONVERT_OPTIONS.layoutPrior.default),
    speculation: oneOf(
      c.get<string>('vlm.speculation'),
      CONVERT_OPTIONS.speculation.choices,
      CONVERT_OPTIONS.speculation.default,
    ),
    outputFormat: oneOf(c.get<string>('outputFormat'), OUTPUT_FORMATS, 'markdown'),
    images: oneOf(c.get<string>('images'), ['link', 'embed', 'none'] as const, 'link'),
    remoteVlm: remoteVlmFrom(c),
    limits: {
      documentSeconds: c.get('limits.documentSeconds'),
      pageMemoryMb: c.get('limits.pageMemoryMb'),
      maxPages: c.get('limits.maxPages'),
      maxCells: c.get('limits.maxCells'),
    },
  };
}
