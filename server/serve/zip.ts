/**
 * Results as one zip (fflate). Per document: the outputs asked for (`<stem>.md`, `<stem>.json` —
 * the DoclingDocument —, `<stem>.txt`), always `<stem>.doctags.txt` and Folio's page JSON
 * (`<stem>.folio-result.json`), and the picture assets. Two documents with the same name get
 * `-2`, `-3` stems.
 */
import { zipSync, strToU8 } from 'fflate';
import type { TaskResult } from './tasks';
import type { ExportDocument } from './doclingResult';

export interface ZipEntry {
  result: TaskResult;
  document: ExportDocument;
}

/**
 * Asset names as runners give them: `<stem>.assets/<file>`, nothing else. Letters of any script
 * (a PDF named `café.pdf` has crops `café-p1-1.png`, as in-process runs write them); a file part
 * made only of dots is never a picture.
 */
const ASSET = /^[^/\\]+\.assets\/(?!\.+$)[\p{L}\p{N}._~-]+$/u;

export function isZipAssetName(name: string): boolean {
  return ASSET.test(name);
}

/**
 * A second document with the same stem gets `<stem>-2.assets/`: every link to one of its pictures
 * (Markdown, HTML, the DoclingDocument's image URIs, Folio's page JSON) is rewritten with it, as
 * written and URI-encoded (security round 3, F10). The names are the task's own asset names
 * (a content hash and page numbers), so no other text matches them.
 */
function relinker(moves: Map<string, string>): (text: string) => string {
  const pairs: [string, string][] = [];
  for (const [from, to] of moves) {
    pairs.push([from, to]);
    if (encodeURI(from) !== from) pairs.push([encodeURI(from), encodeURI(to)]);
  }
  return (text) => pairs.reduce((t, [from, to]) => t.split(from).join(to), text);
}

export function resultsZip(entries: readonly ZipEntry[]): Buffer {
  const files: Record<string, Uint8Array> = {};
  const used = new Set<string>();
  for (const { result: r, document: d } of entries) {
    const base = r.name.replace(/\.[^.]+$/, '');
    let stem = base;
    for (let i = 2; used.has(stem); i++) stem = `${base}-${i}`;
    used.add(stem);
    const moves = new Map<string, string>();
    for (const name of r.assets.keys()) {
      if (!isZipAssetName(name)) continue;
      moves.set(name, stem === base ? name : name.replace(/^[^/]+\.assets\//, `${stem}.assets/`));
    }
    const relink = stem === base ? (t: string) => t : relinker(moves);
    if (d.md_content !== null) files[`${stem}.md`] = strToU8(relink(d.md_content));
    if (d.json_content !== null) files[`${stem}.json`] = strToU8(relink(JSON.stringify(d.json_content)));
    if (d.text_content !== null) files[`${stem}.txt`] = strToU8(relink(d.text_content));
    files[`${stem}.doctags.txt`] = strToU8(r.summary.doctags + '\n');
    files[`${stem}.folio-result.json`] = strToU8(
      relink(JSON.stringify({ ...r.summary, pages: r.pages }, null, 2)) + '\n',
    );
    for (const [name, to] of moves) files[to] = new Uint8Array(r.assets.get(name)!);
  }
  return Buffer.from(zipSync(files, { level: 6 }));
}
