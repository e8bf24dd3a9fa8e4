/**
 * Issue 31 class 1, furniture on a page converted alone, round 3: stamp blocks set a line under
 * the body's last paragraph, out of the furniture bands (authorarchive's LNI layout, llncsconf's
 * "The final publication is available at Springer via …"); a journal's identifier lines at the
 * top (aomart's and ejpecp's DOI and ISSN, Sprouts' ISSN) with the journal lines over them; a
 * lone line centred at the very foot (aomart's "Proof: page numbers may be temporary" on three
 * pages, AIAA's "American Institute of Aeronautics and Astronautics") or a few words with a web
 * link there (Sprouts' footer); an italic running head in the header band (fontconfig's
 * "fonts-conf", which came out as `### fonts-conf`); a section's running head whose number was
 * read as a list label, beside the page number (amsldoc's "16 … 4. MISCELLANEOUS MATHEMATICAL
 * FEATURES"); a journal's name set as a heading beside its ISSN (Sprouts'
 * "Working Papers on Information Systems"); a firm's name at the foot ("Antenna House, Inc."). Real pages from Debian's doc packages and the
 * shared corpus, each cut alone as the real-world set does; every check is the set's own
 * person-checked test and every furniture one failed before this round. The body lines beside
 * them stay: the paragraph right above each stamp, the titles under the identifier lines, the
 * last body line over a foot line, centred sentences at a page's foot.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failingSetTests } from './setTests';
import { isIdentifierLine } from '../../server/convert/stampZone';

/** Furniture that leaves the body (absent tests); each failed before this round. */
const FURNITURE = [
  'authorarch-lni-p1-06',
  'authorarch-lni-p1-07',
  'authorarch-lni-p1-08',
  'llncs-p1-03',
  'llncs-p1-04',
  'aom-p1-03',
  'aomfr-p1-06',
  'ejpecp-p1-01',
  'ejpecp-p1-02',
  'sprouts-p1-02',
  'sprouts-p1-03',
  'aom-p2-03',
  'aom-p3-02',
  'aom-p28-02',
  'aiaa-p1-05',
  'fontconfig-user-p2-01',
  'amsldoc-p20-01',
  'ah-links-p1-01',
  'sprouts-p1-01',
];
/** Body lines that look like furniture, or stand right beside it, and stay (present tests). */
const BODY = [
  'authorarch-lni-p1-05',
  'llncs-p1-05',
  'aom-p1-01',
  'aom-p1-04',
  'aomfr-p1-01',
  'ejpecp-p1-03',
  'sprouts-p1-04',
  'aom-p2-07',
  'aom-p28-05',
  'aiaa-p1-07',
  'ua-coursetext-p2-01',
  'ua-coursetext-p2-02',
  'fontconfig-user-p2-05',
  'fontconfig-user-p2-06',
  'amsldoc-p20-03',
  'amsldoc-p20-08',
];

test('a page alone: stamps under the body, identifier lines, lone foot lines and italic running heads leave the body; the lines beside them stay', async () => {
  const ids = [...FURNITURE, ...BODY];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
});

test('isIdentifierLine: one identifier, or a DOI and an ISSN read as one block; not a reference citing a DOI', () => {
  for (const t of [
    'ISSN 1535-6078',
    'https://doi.org/10.4007/annals.2008.160.1.12',
    'DOI: 10.1214/ECP.v19-3807',
    'https://doi.org/10.1214/YY-TN\nISSN: 1083-589X',
    'https://doi.org/10.1214/YY-TN ISSN: 1083-589X',
  ])
    assert.equal(isIdentifierLine(t), true, t);
  for (const t of [
    'A. Author. A title. J. Prob. 3 (2001). doi:10.1214/abc',
    'Electron. Commun. Probab. 0 (2020), article no. 0, 1–5.',
    'ISSN',
    '',
  ])
    assert.equal(isIdentifierLine(t), false, t);
});
