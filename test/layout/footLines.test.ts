/**
 * Issue 40, class 5 (furniture on a page alone), lines at the foot and a running head beside the
 * page number (server/convert/furniture.ts `furnitureByForm`, server/layout/stages/captions.ts
 * `bottomRow`). Before these rules each of these stayed in the body:
 * - a journal's line under the footnotes, higher than the bottom band, with twice its height of
 *   white space over it: CJE's "ISSN: 0000-0000 / 20XX / pp. 1–21 / © Canadian Economics
 *   Association" (83.4 % down) and "Canadian Journal of Economics / Revue canadienne d’économique
 *   20XX 00(0)", a citation line that ends in volume(issue);
 * - a month and a year alone at the foot (NRC's "Nov. 2002");
 * - a publisher's 95-character address line beside the page number (the made annual report);
 * - a class's "typeset using PTPTeX.cls ⟨Ver.0.9⟩" set right under PTP's footnotes (85.7 %);
 * - APA's running head "WEISS" on the row of the page number "2".
 * Look-alikes on the same pages that stay: the footnotes right above those lines, the text's
 * last paragraph, the headings, tables and order (person-checked tests of the set). Real pages,
 * each cut alone as the set cuts it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failingSetTests } from './setTests';

/** Each failed before its rule. */
const FIXED = ['cje-p1-03', 'cje-p4-02', 'nrc-p1-02', 'madereport-p1-02', 'ptptex-p1-02', 'apa7short-p2-01'];
/** Body text, footnotes, headings and tables on the same pages. */
const STAY = [
  'ptptex-p1-04',
  'ptptex-p1-06',
  'ptptex-p1-07',
  'cje-p1-06',
  'cje-p1-07',
  'cje-p1-08',
  'cje-p1-09',
  'cje-p4-03',
  'cje-p4-07',
  'nrc-p1-05',
  'nrc-p1-06',
  'nrc-p1-07',
  'madereport-p1-05',
  'madereport-p1-06',
  'madereport-p1-15',
  'madereport-p1-16',
  'apa7short-p2-02',
  'apa7short-p2-03',
  'apa7short-p2-05',
];

test('a page alone: journal lines under the footnotes, a month and year, a publisher line and a running head beside the page number leave; footnotes and text stay', async () => {
  const ids = [...FIXED, ...STAY];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length, 'every test id is in the set');
  assert.deepEqual(failed, []);
});
