/**
 * The extension's context object: it owns the backend client, the output channel, the
 * configuration and every disposable, so commands are small factories that take it.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { createClient } from './client';
import { ConversionListeners } from './conversion';
import type { PictureMode } from '../server/protocol';
import { ExportRecords } from './commands/exportRecords';

export type OutputFormat = 'markdown' | 'docling' | 'chunks' | 'doctags';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['markdown', 'docling', 'chunks', 'doctags'];

export interface FolioConfig {
  outputDirectory: string;
  renderScale: number;
  keepPageHeaders: boolean;
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
}

/** A setting's value when it is one of `values` (a hand-edited settings.json may hold anything), else the default. */
function oneOf<T extends string>(v: string | undefined, values: readonly T[], fallback: T): T {
  return values.includes(v as T) ? (v as T) : fallback;
}

export class FolioContext implements vscode.Disposable {
  readonly output: vscode.LogOutputChannel;
  readonly conversions: ConversionListeners;
  /** Page-image cache (the preview's localResourceRoots include it). */
  readonly cacheDir: vscode.Uri;
  /** What Folio last wrote to each DoclingDocument / chunks / DocTags output (overwrite and up-to-date checks). */
  readonly exportRecords: ExportRecords;
  private clientPromise: Promise<LanguageClient> | undefined;
  private client_: LanguageClient | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(readonly extension: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel('Folio', { log: true });
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
      ocr: c.get<'auto' | 'always' | 'never'>('ocr', 'auto'),
      engine: c.get<'pipeline' | 'vlm'>('engine', 'pipeline'),
      modelsDir: c.get<string>('models.path', '').trim() || vscode.Uri.joinPath(this.extension.globalStorageUri, 'models').fsPath,
      providers: c.get<string[]>('vlm.providers', ['cuda', 'webgpu', 'cpu']),
      layoutPrior: c.get<'auto' | 'on' | 'off'>('vlm.layoutPrior', 'auto'),
      speculation: oneOf(c.get<string>('vlm.speculation'), ['auto', 'off', 'page', 'hsd'] as const, 'auto'),
      outputFormat: oneOf(c.get<string>('outputFormat'), OUTPUT_FORMATS, 'markdown'),
      images: oneOf(c.get<string>('images'), ['link', 'embed', 'none'] as const, 'link'),
    };
  }

  /** The started backend client (started on first use, so activation stays cheap). */
  client(): Promise<LanguageClient> {
    if (!this.clientPromise) {
      const client = createClient(this.extension, this.output);
      this.client_ = client;
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

  push(...d: vscode.Disposable[]): void {
    this.disposables.push(...d);
  }

  async stop(): Promise<void> {
    await this.client_?.stop().catch(() => undefined);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
