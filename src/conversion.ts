/**
 * Events of a conversion run by the "Convert PDF to Markdown" command, for whoever shows it
 * (the preview, src/preview). The command owns the conversion; listeners only observe.
 */
import * as vscode from 'vscode';
import type { ConvertOptions, ConvertSummary, PagePartialParams, PageResult } from '../common/protocol';
import { messageOf } from '../common/errorKinds';

export interface ConversionEvents {
  /**
   * The command knows the PDF and its `.md`, before the backend is asked: the preview opens its
   * panel now, so VS Code's webview start overlaps the backend's work (docs/preview.md, "First
   * page"). Either `started` or `failed` (or `finished`) follows.
   */
  preparing?(e: { pdfUri: vscode.Uri; mdUri: vscode.Uri; commandAt: number }): void;
  /**
   * The conversion ended without a summary (an error, or no password given): a view opened for
   * it closes when it has no page, else it says the conversion stopped.
   */
  failed?(e: { pdfUri: vscode.Uri; mdUri: vscode.Uri; message: string }): void;
  /**
   * The .md was created (empty) and conversion is starting. `conversionId` (the request's
   * partial-result token) is what `partial` events carry.
   */
  started(e: {
    pdfUri: vscode.Uri;
    mdUri: vscode.Uri;
    options: ConvertOptions;
    conversionId?: string;
    /** When the command ran and when the backend answered (Date.now), for the view's first-paint trace. */
    timing?: { commandAt: number; backendAt: number };
  }): void;
  /**
   * The backend's page count so far (`done` of `total`), from the PDF's opening (0 of N, before
   * any page) on; the preview shows "converting page N of M" from it.
   */
  progress?(e: { pdfUri: vscode.Uri; mdUri: vscode.Uri; done: number; total: number }): void;
  /** A page the VLM is still writing (`folio/pagePartial`), before that page's `page` event. */
  partial?(e: { pdfUri: vscode.Uri; mdUri: vscode.Uri; conversionId: string; partial: PagePartialParams }): void;
  /**
   * One page finished; `mdOffset` is where this page's markdown starts in the .md text as
   * written (pages are joined with "\n\n"; the region `mdRange`s in `page` are relative to the page).
   */
  page(e: { pdfUri: vscode.Uri; mdUri: vscode.Uri; page: PageResult; mdOffset: number }): void;
  /** `writtenHash`: SHA-256 of the `.md` as Folio last wrote it to disk (kept in the sidecar). */
  finished(e: { pdfUri: vscode.Uri; mdUri: vscode.Uri; summary: ConvertSummary; writtenHash?: string }): void;
}

/** The set of listeners; each call reaches every listener, and one failing does not stop the others. */
export class ConversionListeners {
  private readonly listeners = new Set<ConversionEvents>();

  constructor(private readonly output: vscode.OutputChannel) {}

  add(listener: ConversionEvents): vscode.Disposable {
    this.listeners.add(listener);
    return new vscode.Disposable(() => this.listeners.delete(listener));
  }

  emit<K extends keyof ConversionEvents>(event: K, arg: Parameters<NonNullable<ConversionEvents[K]>>[0]): void {
    for (const l of this.listeners) {
      const handler = l[event] as ((a: typeof arg) => void) | undefined;
      if (!handler) continue; // an optional event this listener does not follow
      try {
        handler.call(l, arg);
      } catch (e) {
        this.output.appendLine(`[error] conversion listener (${event}): ${messageOf(e)}`);
      }
    }
  }
}
