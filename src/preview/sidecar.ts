/**
 * The sidecar `<name>.folio.json` beside a converted `<name>.md`: the PDF it came from, the
 * conversion options, and per page its DocTags, Markdown as written, offset in the `.md`, and
 * regions (box, class, order, current range, text). It lets a reopened `.md` show its preview
 * again; ranges are re-anchored by content on load, so edits made without the preview open are
 * tolerated.
 */
import * as vscode from 'vscode';
import type { ConvertOptions } from '../../server/protocol';
import type { MappedPage } from './regionMap';

export const SIDECAR_VERSION = 1;

export interface Sidecar {
  folio: typeof SIDECAR_VERSION;
  pdf: string;
  options: ConvertOptions;
  pages: MappedPage[];
}

export function sidecarUri(mdUri: vscode.Uri): vscode.Uri {
  const name = mdUri.path.split('/').pop() ?? 'document.md';
  return vscode.Uri.joinPath(mdUri, '..', name.replace(/\.(md|markdown)$/i, '') + '.folio.json');
}

export async function writeSidecar(mdUri: vscode.Uri, data: Sidecar): Promise<void> {
  await vscode.workspace.fs.writeFile(sidecarUri(mdUri), Buffer.from(JSON.stringify(data), 'utf8'));
}

/** Reads and checks a sidecar; returns undefined when there is none, throws with the file name when it is unusable. */
export async function readSidecar(mdUri: vscode.Uri): Promise<Sidecar | undefined> {
  const uri = sidecarUri(mdUri);
  let bytes: Uint8Array;
  try {
    bytes = await vscode.workspace.fs.readFile(uri);
  } catch {
    return undefined;
  }
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (e) {
    throw new Error(`${uri.fsPath} is not valid JSON (${(e as Error).message}); delete it and convert the PDF again.`);
  }
  const d = data as Partial<Sidecar>;
  if (d.folio !== SIDECAR_VERSION || typeof d.pdf !== 'string' || !Array.isArray(d.pages)) {
    throw new Error(`${uri.fsPath} is not a Folio ${SIDECAR_VERSION} sidecar; delete it and convert the PDF again.`);
  }
  for (const p of d.pages) {
    if (!p || typeof p.page !== 'number' || !Array.isArray(p.regions) || typeof p.width !== 'number' || typeof p.height !== 'number') {
      throw new Error(`${uri.fsPath} has a malformed page entry; delete it and convert the PDF again.`);
    }
  }
  return { folio: SIDECAR_VERSION, pdf: d.pdf, options: d.options ?? {}, pages: d.pages };
}
