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

/** Characters no Windows file name may hold (`:` also makes `C:evil.md` drive-relative), and C0 controls. */
const WINDOWS_BAD = /[<>:"|?*\u0000-\u001f]/g;
/** Windows device names, whatever the extension (`con.md` opens the console). */
const DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

/**
 * A document's stem as a zip entry name any extractor writes as a plain file in the folder it
 * extracts to: no character Windows refuses or reads as a drive (`C:evil`), no trailing dot or
 * space (Windows drops them), no device name, never empty (security round 4, N8).
 */
export function zipStem(name: string): string {
  let stem = name
    .replace(/\.[^.]+$/, '')
    .replace(WINDOWS_BAD, '_')
    .replace(/[. ]+$/, (m) => '_'.repeat(m.length));
  if (/^\.*$/.test(stem)) stem = `document${stem}`;
  if (DEVICE.test(stem.split('.')[0]!)) stem = `_${stem}`;
  return stem;
}

/** The entry names a document with `stem` may write, besides its pictures (which go under `<stem>.assets/`). */
const entryNames = (stem: string) => [
  `${stem}.md`,
  `${stem}.json`,
  `${stem}.txt`,
  `${stem}.doctags.txt`,
  `${stem}.folio-result.json`,
  `${stem}.assets/`,
];

/**
 * Every entry name is unique ignoring case, across every kind of entry and every document: two
 * documents `a.pdf` and `a.doctags.pdf` would both write `a.doctags.txt` (one's DocTags, the
 * other's text), `a.folio-result.pdf` would replace `a.folio-result.json`, and `A.pdf`/`a.pdf`
 * would overwrite each other on a case-insensitive disk (security round 4, N8). A document whose
 * names meet one already taken gets the stem `<stem>-2`, `-3`, …; its pictures move with it.
 */
export function resultsZip(entries: readonly ZipEntry[]): Buffer {
  const files: Record<string, Uint8Array> = {};
  const used = new Set<string>();
  const taken = (n: string) =>
    used.has(n.toLowerCase()) || (n.endsWith('/') && [...used].some((u) => u.startsWith(n.toLowerCase())));
  const put = (n: string, bytes: Uint8Array) => {
    used.add(n.toLowerCase());
    files[n] = bytes;
  };
  for (const { result: r, document: d } of entries) {
    const base = zipStem(r.name);
    let stem = base;
    for (let i = 2; entryNames(stem).some(taken); i++) stem = `${base}-${i}`;
    for (const n of entryNames(stem)) used.add(n.toLowerCase());
    // The pictures go to `<stem>.assets/`, whatever folder the runner named (links rewritten to match).
    const moves = new Map<string, string>();
    const inFolder = new Set<string>();
    for (const name of r.assets.keys()) {
      if (!isZipAssetName(name)) continue;
      const file = name.slice(name.indexOf('/') + 1);
      let to = `${stem}.assets/${file}`;
      for (let i = 2; inFolder.has(to.toLowerCase()); i++)
        to = `${stem}.assets/${file.replace(/(\.png)?$/i, `-${i}$1`)}`;
      inFolder.add(to.toLowerCase());
      moves.set(name, to);
    }
    const moved = [...moves].some(([from, to]) => from !== to);
    const relink = moved ? relinker(new Map([...moves].filter(([from, to]) => from !== to))) : (t: string) => t;
    if (d.md_content !== null) put(`${stem}.md`, strToU8(relink(d.md_content)));
    if (d.json_content !== null) put(`${stem}.json`, strToU8(relink(JSON.stringify(d.json_content))));
    if (d.text_content !== null) put(`${stem}.txt`, strToU8(relink(d.text_content)));
    put(`${stem}.doctags.txt`, strToU8(r.summary.doctags + '\n'));
    put(`${stem}.folio-result.json`, strToU8(relink(JSON.stringify({ ...r.summary, pages: r.pages }, null, 2)) + '\n'));
    for (const [name, to] of moves) put(to, new Uint8Array(r.assets.get(name)!));
  }
  return Buffer.from(zipSync(files, { level: 6 }));
}
