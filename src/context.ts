/**
 * The extension's context object: it owns the backend client, the output channel, the
 * configuration and every disposable, so commands are small factories that take it.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { createClient, PagePartialRouter } from './client';
import { ConversionListeners } from './conversion';
import { PagePartialNotification, type PictureMode, type RemoteVlmSettings } from '../common/protocol';
import { addSecret, redactingLog } from './logRedaction';
import { ExportRecords } from './commands/exportRecords';

export type OutputFormat = 'markdown' | 'docling' | 'chunks' | 'doctags';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['markdown', 'docling', 'chunks', 'doctags'];

export interface FolioConfig {
  outputDirectory: string;
  renderScale: number;
  keepPageHeaders: boolean;
  /** Keep text a reader of the page cannot see (a machine setting: a workspace cannot turn it on). */
  keepHiddenText: boolean;
  ocr: 'auto' | 'always' | 'never';
  engine: 'pipeline' | 'vlm';
  /** Model folder: the setting, else the extension's global storage. */
  modelsDir: string;
  providers: string[];
  layoutPrior: 'auto' | 'on' | 'off';
  speculation: 'auto' | 'off' | 'page' | 'hsd';
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
function remoteVlmFrom(c: vscode.WorkspaceConfiguration): RemoteVlmSettings | undefined {
  const url = c.get<string>('vlm.remoteUrl', '').trim();
  if (!url) return undefined;
  const model = c.get<string>('vlm.remoteModel', '').trim() || 'ibm-granite/granite-docling-258M';
  const apiKey = process.env.FOLIO_VLM_API_KEY;
  addSecret(apiKey);
  return { url, model, ...(apiKey ? { apiKey } : {}) };
}

export class FolioContext implements vscode.Disposable {
  readonly output: vscode.LogOutputChannel;
  readonly conversions: ConversionListeners;
  /** Page-image cache (the preview's localResourceRoots include it). */
  readonly cacheDir: vscode.Uri;
  /** What Folio last wrote to each DoclingDocument / chunks / DocTags output (overwrite and up-to-date checks). */
  readonly exportRecords: ExportRecords;
  /** Routes `folio/pagePartial` to the conversion that asked for it (by partial-result token). */
  readonly pagePartials = new PagePartialRouter();
  private clientPromise: Promise<LanguageClient> | undefined;
  /** Disposed when the client stops (rust-analyzer's pushClientCleanup): handlers on the client. */
  private readonly clientCleanups: vscode.Disposable[] = [];
  private client_: LanguageClient | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(readonly extension: vscode.ExtensionContext) {
    // Every line Folio logs is redacted (src/logRedaction.ts): no password or key in the log file.
    this.output = redactingLog(vscode.window.createOutputChannel('Folio', { log: true }));
    this.conversions = new ConversionListeners(this.output);
    this.cacheDir = vscode.Uri.joinPath(extension.globalStorageUri, 'pages');
    this.exportRecords = new ExportRecords(extension.globalState);
    this.disposables.push(this.output);
  }

  get config(): FolioConfig {
    const c = vscode.workspace.getConfiguration('folio');
    return {
      outputDirectory: c.get<string>('outputDirectory', ''),
      renderScale: c.get<number>('renderScale', 2),
      keepPageHeaders: c.get<boolean>('keepPageHeaders', false),
      keepHiddenText: c.get<boolean>('keepHiddenText', false) === true,
      ocr: c.get<'auto' | 'always' | 'never'>('ocr', 'auto'),
      engine: c.get<'pipeline' | 'vlm'>('engine', 'pipeline'),
      modelsDir:
        c.get<string>('models.path', '').trim() ||
        vscode.Uri.joinPath(this.extension.globalStorageUri, 'models').fsPath,
      providers: c.get<string[]>('vlm.providers', ['cuda', 'webgpu', 'cpu']),
      layoutPrior: c.get<'auto' | 'on' | 'off'>('vlm.layoutPrior', 'off'),
      speculation: oneOf(c.get<string>('vlm.speculation'), ['auto', 'off', 'page', 'hsd'] as const, 'auto'),
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

  /** The started backend client (started on first use, so activation stays cheap). */
  client(): Promise<LanguageClient> {
    if (!this.clientPromise) {
      const client = createClient(this.extension, this.output);
      this.client_ = client;
      this.pushClientCleanup(client.onNotification(PagePartialNotification.type, (p) => this.pagePartials.dispatch(p)));
      this.clientPromise = client.start().then(
        () => client,
        (e: unknown) => {
          this.clientPromise = undefined;
          throw e;
        },
      );
    }
    return this.clientPromise;
  }

  /** Ties `d` to the backend client's lifetime: disposed when the client stops. */
  pushClientCleanup(d: vscode.Disposable): void {
    this.clientCleanups.push(d);
  }

  push(...d: vscode.Disposable[]): void {
    this.disposables.push(...d);
  }

  async stop(): Promise<void> {
    for (const d of this.clientCleanups.splice(0)) d.dispose();
    await this.client_?.stop().catch(() => undefined);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
