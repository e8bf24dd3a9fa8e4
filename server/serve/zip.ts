/** A task's result as one zip (fflate): Markdown, DocTags, page JSON and the picture assets. */
import { zipSync, strToU8 } from 'fflate';
import type { TaskResult } from './tasks';

export function resultZip(r: TaskResult): Buffer {
  const stem = r.name.replace(/\.pdf$/i, '');
  const files: Record<string, Uint8Array> = {
    [`${stem}.md`]: strToU8(r.summary.markdown),
    [`${stem}.doctags.txt`]: strToU8(r.summary.doctags + '\n'),
    [`${stem}.folio-result.json`]: strToU8(JSON.stringify({ ...r.summary, pages: r.pages }, null, 2) + '\n'),
  };
  for (const [name, bytes] of r.assets) files[name] = new Uint8Array(bytes);
  return Buffer.from(zipSync(files, { level: 6 }));
}
