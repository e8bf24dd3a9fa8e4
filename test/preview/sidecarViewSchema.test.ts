/**
 * Issue 34 / E4: the sidecar schema accepted region ids and boxes the webview refuses (`intro`,
 * an inverted box, a box of 1e6 pt); the webview then dropped the whole `init` and the view stayed
 * empty with no word. Now the schema applies the webview's rules (`isRegionId`, `isBBox` from
 * common/viewMessages.ts), so such a file is refused with its reason like any bad sidecar, and a
 * refused `init` shows a notice in the view (`refusalNotice`, used by media/preview/main.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { parseSidecar } from '../../src/preview/sidecarSchema';
import { pageViewOf } from '../../src/preview/pageView';
import { RegionMap } from '../../src/preview/regionMap';
import * as viewMessages from '../../common/viewMessages';
import type { PageView } from '../../common/viewMessages';

const ws = '/home/u/project';
const md = `${ws}/docs/report.md`;

type RegionIn = { id: unknown; bbox: unknown };
const sidecar = (regions: RegionIn[], page = 1) => ({
  folio: 1,
  pdf: pathToFileURL(`${ws}/docs/report.pdf`).href,
  pages: [
    {
      page,
      width: 612,
      height: 792,
      regions: regions.map((r, k) => ({ ...r, page, cls: 'text', grid: [1, 2, 3, 4], order: k, text: `t${k}` })),
    },
  ],
});
const check = (regions: RegionIn[], page = 1) => parseSidecar(JSON.stringify(sidecar(regions, page)), md, ws);
const box = (x0: number, y0: number, x1: number, y1: number) => ({ x0, y0, x1, y1 });

const initOf = (pages: PageView[]) => ({
  type: 'init',
  uri: 'file:///home/u/project/docs/report.md',
  version: 1,
  title: 'report.pdf',
  pdfUri: 'file:///home/u/project/docs/report.pdf',
  pages,
  converting: false,
});

test('E4: the three mismatches of the audit are refused by the sidecar schema, with the reason', () => {
  const refused = (regions: RegionIn[], why: RegExp) => {
    const r = check(regions);
    assert.ok('problem' in r, `accepted: ${JSON.stringify(regions)}`);
    assert.match(r.problem, why);
  };
  refused([{ id: 'intro', bbox: box(1, 2, 3, 4) }], /regions\[0\]\.id must be p1-<letter><number>/);
  refused([{ id: 'p1-r0', bbox: box(300, 2, 100, 4) }], /regions\[0\]\.bbox must have x0 < x1 and y0 < y1/);
  refused([{ id: 'p1-r0', bbox: box(0, 0, 1e6, 10) }], /regions\[0\]\.bbox\.x1 must be a number from -1 to 15000/);
  // The id names the region's page (the view finds a region's page from its id).
  refused([{ id: 'p2-r0', bbox: box(1, 2, 3, 4) }], /id must be p1-/);
  assert.ok(
    'sidecar' in
      check([
        { id: 'p1-r0', bbox: box(1, 2, 3, 4) },
        { id: 'p1-n7', bbox: box(0, 0, 612, 792) },
      ]),
  );
});

test('E4: one schema — every sidecar the host accepts makes pages the webview accepts', () => {
  const ids = [
    'p1-r0',
    'p1-r1',
    'p1-r2',
    'p1-n0',
    'p1-n3',
    'p1-r999999',
    'p1-z12',
    'intro',
    'p1-R0',
    'p1-r',
    'p1-rr0',
    'p2-r0',
    'a:b',
    'p1-r0.x',
  ];
  const starts = [-2, -1, -0.5, 0, 0.25, 3, 612, 14_999.5, 15_000, 1e6];
  const sizes = [-10, -0.1, 0, 0.1, 1, 5, 50, 100, 1e6];
  let seed = 99;
  const pick = <T>(xs: T[]): T => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return xs[(seed >>> 0) % xs.length]!;
  };
  let accepted = 0;
  let refused = 0;
  for (let i = 0; i < 3000; i++) {
    const regions = Array.from({ length: 1 + (i % 4 === 0 ? 1 : 0) }, () => {
      const x0 = pick(starts);
      const y0 = pick(starts);
      return { id: pick(ids), bbox: box(x0, y0, x0 + pick(sizes), y0 + pick(sizes)) };
    });
    const r = check(regions);
    if ('problem' in r) {
      refused++;
      continue;
    }
    accepted++;
    // As the view restores a sidecar: its pages unlinked, then linked to the `.md` by their text.
    const unlinked = viewMessages.parseHostMessage(initOf(r.sidecar.pages.map((p) => pageViewOf(p, undefined))));
    assert.notEqual(
      typeof unlinked,
      'string',
      `host accepted ${JSON.stringify(regions)}, the webview refused it: ${unlinked}`,
    );
    const map = new RegionMap();
    for (const p of r.sidecar.pages) map.restorePage(p);
    const md = r.sidecar.pages.flatMap((p) => p.regions.map((x) => x.text)).join('\n\n');
    map.anchor(md);
    const pages = map.allPages().map((p) => pageViewOf(p, md));
    assert.ok(pages.every((p) => p.blocks.length === p.regions.length && p.regions.every((x) => x.linked)));
    const linked = viewMessages.parseHostMessage(initOf(pages));
    assert.notEqual(
      typeof linked,
      'string',
      `host accepted ${JSON.stringify(regions)}, the webview refused it linked: ${linked}`,
    );
  }
  assert.ok(accepted > 50 && refused > 50, `accepted ${accepted}, refused ${refused}: both sides exercised`);
});

test('E4: a refused init shows a notice in the view that names the page and region, not an empty view', () => {
  const page: PageView = {
    page: 3,
    width: 612,
    height: 792,
    regions: [{ id: 'intro', cls: 'text', bbox: box(1, 2, 3, 4), grid: [1, 2, 3, 4], order: 0, linked: true }],
    blocks: [],
    ocr: false,
    warnings: [],
  };
  const raw = initOf([page]);
  const problem = viewMessages.parseHostMessage(raw);
  assert.equal(typeof problem, 'string');
  assert.match(problem as string, /page 3 has a region "intro"/);
  const notice = viewMessages.refusalNotice(raw, problem as string);
  assert.match(notice!, /^Folio cannot show this document: init: page 3 has a region "intro" .*convert the PDF again/);
  // Messages that draw nothing (a stale highlight) are only logged, as before.
  assert.equal(viewMessages.refusalNotice({ type: 'highlight' }, 'highlight: bad regionId'), undefined);
});
