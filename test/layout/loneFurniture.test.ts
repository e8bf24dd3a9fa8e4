/**
 * Issue 31 class 1, furniture on a page converted alone: stamp blocks of several lines (the
 * authorarchive package's "This is the author's version of the work …" under four classes'
 * layouts), a manual's two-line footer with its page reference, date and revision ("The TECkit
 * Language  Page 1 of 11 / Jonathan Kew  March 29, 2004  Rev: 20", LibreOffice), a browser's
 * print header cut short with an ellipsis (Firefox). Real pages from Debian's doc packages and the
 * shared corpus, each cut alone as the real-world set does; the checks are the set's own
 * person-checked tests, the look-alike body lines beside them included (the body line right
 * above a stamp, a footnote "Date: December 2, 2013.", a report's last line over its footer).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failingSetTests } from './setTests';

/** Furniture that leaves the body (absent tests). */
const FURNITURE = [
  'teckit-lang-p1-01',
  'teckit-lang-p1-02',
  'teckit-lang-p1-03',
  'teckit-lang-p4-01',
  'teckit-lang-p4-02',
  'authorarch-acm-p1-06',
  'authorarch-acm-p1-07',
  'authorarch-acm-p1-08',
  'authorarch-ieee-p1-06',
  'authorarch-ieee-p1-07',
  'authorarch-ieee-p1-08',
  'authorarch-llncs-p1-04',
  'authorarch-llncs-p1-05',
  'authorarch-llncs-p1-06',
  'authorarch-llncs-p1-07',
  'moz-support-fr-p1-01',
];
/** Body lines that look like furniture and stay (present tests). */
const BODY = [
  'teckit-lang-p1-08',
  'teckit-lang-p4-08',
  'authorarch-acm-p1-05',
  'authorarch-llncs-p1-08',
  'authorarch-lni-p1-05',
  'margin-notes-p1-07',
  'ccc-form-p1-05',
  'ua-report-p11-02',
  'fontconfig-user-p5-07',
  'moz-support-fr-p1-11',
];

test('a page alone: stamp blocks, two-line footers with a page reference, a date and a revision, and a print header cut short leave the body; the body lines beside them stay', async () => {
  const ids = [...FURNITURE, ...BODY];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
});
