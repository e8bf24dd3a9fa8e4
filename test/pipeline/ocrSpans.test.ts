/**
 * OCR lines → layout spans on a narrow-column scan (issue 15). The fixture is the engine's real
 * result for page 1 of the generated three-column XeLaTeX scan (eval/gen/multicol, 200 dpi):
 * DB's line boxes there are taller than the line pitch, and justified lines are split into
 * pieces at wide spaces. Layout must still read each column's last line in its column (not as a
 * page footer) and keep a split line's pieces together.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ocrToSpans } from '../../server/pipeline/ocrPage';
import { layoutPage } from '../../server/layout/index';
import type { OcrResult } from '../../server/ocr/index';

const FIXTURE = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'ocr', 'threecol-page1.ocr.json');
const SCALE = 200 / 72;

function load(): OcrResult {
  return JSON.parse(readFileSync(FIXTURE, 'utf8')) as OcrResult;
}

test('the recorded boxes overlap their neighbours, the spans of one column do not', () => {
  const res = load();
  // The premise: DB's boxes of consecutive lines in a column overlap vertically.
  const col1 = res.lines.filter((l) => l.upright.x1 < 600 && l.upright.y0 > 300).map((l) => l.upright);
  const overlapping = col1.filter((b, i) => i > 0 && col1[i - 1].y1 - b.y0 > 2 && b.x0 < col1[i - 1].x1 && col1[i - 1].x0 < b.x1);
  assert.ok(overlapping.length >= 10, `recorded boxes overlap (${overlapping.length})`);
  const { spans } = ocrToSpans(res, res.width, res.height, SCALE);
  const eol = spans.filter((s) => s.eol && s.bbox.x1 < 600 / SCALE && s.bbox.y0 > 300 / SCALE);
  let worst = 0;
  for (let i = 1; i < eol.length; i++) {
    const a = eol[i - 1].bbox, b = eol[i].bbox;
    if (b.y0 > a.y0 + 5) worst = Math.max(worst, a.y1 - b.y0);
  }
  // Under a point of overlap: layout then sees the line above a column's last line.
  assert.ok(worst < 1, `neighbouring lines' spans overlap by ${worst.toFixed(2)} pt`);
  // The body size still comes from the whole box (layout's em thresholds were set with it).
  const sizes = spans.map((s) => s.fontSize).sort((a, b) => a - b);
  assert.ok(sizes[sizes.length >> 1] > 12.5, `median size ${sizes[sizes.length >> 1]}`);
});

test('a three-column scan page: last lines stay in their columns, split lines stay whole', () => {
  const res = load();
  const os = ocrToSpans(res, res.width, res.height, SCALE);
  const hist = new Map<number, number>();
  for (const s of os.spans) hist.set(Math.round(s.fontSize), (hist.get(Math.round(s.fontSize)) ?? 0) + 1);
  const bodySize = [...hist].sort((a, b) => b[1] - a[1])[0][0];
  const laid = layoutPage({
    content: { page: 1, width: os.width, height: os.height, spans: os.spans, rules: [], graphics: [] },
    stats: { bodySize, headingSizes: [...hist.keys()].filter((s) => s >= bodySize * 1.3) },
    marks: [],
    tables: [],
  });
  const texts = laid.items.map((i) => ('text' in i ? String(i.text) : '').replace(/\s+/g, ' '));
  const find = (s: string) => {
    const k = texts.findIndex((t) => t.includes(s));
    assert.ok(k >= 0, `"${s}" not found in: ${texts.join('\n')}`);
    return k;
  };
  // Column 1's last line continues its paragraph, which then runs on into column 2.
  assert.ok(texts[find('local against information steady')].includes('agricultural local against information steady their.'), texts[find('local against information steady')]);
  // Column 2's last line ("…relation-" / "ship information structure deter-" / "mination…").
  assert.ok(texts[find('ship information structure')].includes('information structure determination account'), texts[find('ship information structure')]);
  // Two pieces DB split one justified line into, with a row of another column between their
  // middles, stay one line of one paragraph.
  assert.ok(texts[find('most follows and other.')].includes('other. Island letter as appears'), texts[find('most follows and other.')]);
  assert.ok(texts[find('representative morning many')].includes('morning many ordinary reduces market'), texts[find('representative morning many')]);
  // Nothing of the page foot is left over after column 3.
  assert.ok(!/^(local against|ship information)/.test(texts[texts.length - 1]), texts[texts.length - 1]);
});
