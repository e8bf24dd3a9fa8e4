/**
 * Issue 40 item 3, LibreOffice's narrow-gutter twin: `twocol-a` typeset by LibreOffice with
 * columns 0.15 in apart, scanned by the narrow twins' generator with the set's seed for it
 * (eval/gen/multicol `multicol-scan-narrow`: 200 dpi, tilt, blur, noise, JPEG q75). LibreOffice
 * stretches the spaces of a narrow justified column to two or three ems; on page 1 the wide
 * spaces of three left-column and right-column rows lined up, alignment took the words for a
 * 4-column table across the gutter, and a paragraph of the left column was read after the
 * right column's. The words are pieces of justified lines (from a column's left edge to its
 * right edge, evenly spaced): prose. Look-alike on page 2: the real table (station, numbers,
 * uneven gaps) stays a table.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pagesToMarkdown } from '../../server/export/images';
import { analyzePage, openPdf } from '../../server/pipeline/index';
import { markFurniture } from '../../server/convert/furniture';
import { SCAN_PROFILES, scanVariant } from '../../eval/gen/multicol/scan';
import { options } from './analyze';

const FIXTURE = join(
  __dirname,
  '..',
  '..',
  '..',
  'test',
  'fixtures',
  'multicol',
  'twocol-a.libreoffice.gutter3.81mm.pdf',
);
/** The seed build.ts gives twocol-a × LibreOffice's narrow twin (first document, third producer, + 4000). */
const SEED = 4003;

test("a narrow justified column's wide spaces are no table; the scan's real table stays one", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-narrowjust-'));
  try {
    const pdf = join(dir, 'scan.pdf');
    await scanVariant(FIXTURE, pdf, SEED, 200, SCAN_PROFILES.narrow);
    const doc = await openPdf(pdf);
    const md: string[] = [];
    try {
      for (const p of [1, 2]) {
        const page = await analyzePage(doc, p, options({ ocr: 'auto' }));
        assert.equal(page.ocr, true, 'the image-only page went through OCR');
        markFurniture([page], 0);
        md.push(pagesToMarkdown([page], false));
      }
    } finally {
      await doc.close();
    }
    const [one, two] = md as [string, string];
    const tables1 = one.split('\n').filter((l) => l.startsWith('|'));
    assert.deepEqual(tables1, [], `page 1 has a table:\n${tables1.join('\n')}`);
    const flat = one.replace(/\s+/g, ' ');
    // The left column's paragraph reads on where its wide-spaced lines were taken for cells…
    assert.match(flat, /window careful\.? \.? ?Gives its public/, `the paragraph is broken:\n${one}`);
    assert.match(flat, /leaves understanding surrounding circumstances/, `the paragraph is broken:\n${one}`);
    // …before the right column's section heading.
    assert.ok(
      flat.indexOf('leaves understanding') < flat.indexOf('Observations along the river'),
      `the left column's paragraph is read after the right column:\n${one}`,
    );
    const rows = two.split('\n').filter((l) => l.startsWith('|'));
    assert.ok(
      rows.some((r) => /North 2 \| 10 \| 49\.5 \| 2\.31/.test(r)),
      `the real table on page 2 was lost:\n${two}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
