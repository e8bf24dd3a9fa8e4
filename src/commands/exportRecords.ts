/**
 * What Folio last wrote to each non-Markdown output (`.docling.json`, `.chunks.jsonl`,
 * `.doctags.txt`): the SHA-256 of the text and of the PDF it came from, by absolute path, in the
 * extension's global state. The Markdown keeps these hashes in its sidecar, which describes the
 * `.md`'s regions for the preview; the other outputs have no preview, so a record is all they
 * need. It decides, as for the `.md` (markdownGuard), whether an existing file may be replaced
 * without asking, and lets "Convert All PDFs in Folder" skip a PDF whose output is up to date.
 * No `vscode` import: plain Node tests check it.
 */
export interface ExportRecord {
  /** SHA-256 (hex) of the text Folio wrote. */
  sha256: string;
  /** SHA-256 (hex) of the PDF converted. */
  pdfSha256: string;
  /** When it was written (ms), to keep the newest records. */
  at: number;
}

/** The part of `vscode.Memento` used here. */
export interface RecordStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

const KEY = 'folio.exportRecords';
/** Records kept: each is ~200 bytes of global state; older ones only cost a question later. */
export const MAX_RECORDS = 2000;

export class ExportRecords {
  constructor(private readonly store: RecordStore) {}

  private all(): Record<string, ExportRecord> {
    const v = this.store.get<unknown>(KEY);
    return typeof v === 'object' && v !== null ? (v as Record<string, ExportRecord>) : {};
  }

  get(path: string): ExportRecord | undefined {
    const r = this.all()[path];
    return r && typeof r.sha256 === 'string' && typeof r.pdfSha256 === 'string' ? r : undefined;
  }

  async set(path: string, record: Omit<ExportRecord, 'at'>, now = Date.now()): Promise<void> {
    const all = { ...this.all(), [path]: { ...record, at: now } };
    const paths = Object.keys(all);
    if (paths.length > MAX_RECORDS) {
      paths.sort((a, b) => (all[b]!.at ?? 0) - (all[a]!.at ?? 0));
      for (const p of paths.slice(MAX_RECORDS)) delete all[p];
    }
    await this.store.update(KEY, all);
  }
}
