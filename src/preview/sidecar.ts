/**
 * The sidecar `<name>.folio.json` beside a converted `<name>.md`: the PDF it came from, the
 * options that shaped the text, the hash of the `.md` as Folio last wrote it, and per page its
 * DocTags, Markdown as written, offset in the `.md`, and regions (box, class, order, current
 * range, text). It lets a reopened `.md` show its preview again; ranges are re-anchored by
 * content on load, so edits made without the preview open are tolerated.
 *
 * A sidecar is untrusted (a repository can ship one): it is checked by sidecarSchema.ts, and a
 * bad one counts as no sidecar, with a warning naming the file and the reason.
 */
import * as vscode from 'vscode';
import { lstat, readFile, realpath } from 'node:fs/promises';
import { fitFileName, isInside } from '../../common/safeWrite';
import { localPath, writeLocalFile, writeRoot } from '../localFiles';
import { parseSidecar, SIDECAR_LIMITS, type Sidecar } from './sidecarSchema';

export { SIDECAR_VERSION, sidecarOptions, type Sidecar } from './sidecarSchema';

export function sidecarUri(mdUri: vscode.Uri): vscode.Uri {
  const name = mdUri.path.split('/').pop() ?? 'document.md';
  return vscode.Uri.joinPath(mdUri, '..', fitFileName(name.replace(/\.(md|markdown)$/i, ''), '.folio.json'));
}

export async function writeSidecar(mdUri: vscode.Uri, data: Sidecar): Promise<void> {
  await writeLocalFile(sidecarUri(mdUri), JSON.stringify(data));
}

/**
 * Reads and checks a sidecar. Undefined when there is none or it is unusable; `warn` gets the
 * reason for an unusable one (the file is then ignored, never half-used).
 */
export async function readSidecar(mdUri: vscode.Uri, warn: (message: string) => void): Promise<Sidecar | undefined> {
  const uri = sidecarUri(mdUri);
  const bad = (why: string) => {
    warn(`ignored ${uri.fsPath}: ${why}. Convert the PDF again to replace it.`);
    return undefined;
  };
  let path: string;
  try {
    path = localPath(uri);
  } catch (e) {
    return bad((e as Error).message);
  }
  const st = await lstat(path).catch(() => undefined);
  if (!st) return undefined;
  if (!st.isFile()) return bad('it is not a regular file (a link?)');
  if (st.size > SIDECAR_LIMITS.fileBytes) return bad(`it is larger than ${SIDECAR_LIMITS.fileBytes / 1024 / 1024} MB`);
  const root = writeRoot(mdUri);
  const checked = parseSidecar(await readFile(path, 'utf8'), localPath(mdUri), root);
  if ('problem' in checked) return bad(checked.problem);
  // A PDF reached through a link must still be inside the folder (no `doc.pdf → ~/private.pdf`).
  const [realPdf, realRoot] = await Promise.all([
    realpath(checked.pdfPath).catch(() => undefined),
    realpath(root).catch(() => root),
  ]);
  if (realPdf && !isInside(realRoot, realPdf)) return bad(`its PDF ${checked.pdfPath} leads outside ${root}`);
  return checked.sidecar;
}
