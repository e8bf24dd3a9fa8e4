/**
 * The backend's work-done progress (`page i/N` with a percentage) shown in a VS Code progress
 * notification, which takes increments rather than totals: one place for every command that
 * converts under a notification. `share`: the part of the notification's bar this piece of work
 * fills (one model of two downloads fills half). `onReport` sees each report too (one handler per
 * token is all the client allows).
 */
import type * as vscode from 'vscode';
import type { LanguageClient, WorkDoneProgressReport } from 'vscode-languageclient/node';
// The progress type from the protocol package (which the client re-exports): this module, and the
// request builder beside it (src/convertClient.ts), then load outside VS Code for unit tests.
import { WorkDoneProgress } from 'vscode-languageserver-protocol';

export function forwardWorkDone(
  client: LanguageClient,
  workDoneToken: string,
  progress: vscode.Progress<{ message?: string; increment?: number }>,
  share = 1,
  onReport?: (r: WorkDoneProgressReport) => void,
): vscode.Disposable {
  let lastPercent = 0;
  return client.onProgress(WorkDoneProgress.type, workDoneToken, (v) => {
    if (v.kind !== 'report') return;
    const r = v as WorkDoneProgressReport;
    const pct = r.percentage ?? lastPercent;
    progress.report({ message: r.message, increment: (pct - lastPercent) * share });
    lastPercent = pct;
    onReport?.(r);
  });
}
