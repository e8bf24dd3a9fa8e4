import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classify, type RunFacts } from '../../eval/sweep/classify';
import { seededSample } from '../../eval/sweep/sample';
import { groupsWithUniqueNames, failureLines } from '../../eval/peers/folio';

const base: RunFacts = { code: 0, signal: null, timedOut: false, stderr: '', stdout: '', outputWritten: true };

test('classify: the six outcomes of a CLI run', () => {
  assert.equal(classify(base).outcome, 'converted');
  assert.equal(classify({ ...base, timedOut: true, signal: 'SIGKILL' }).outcome, 'timeout');
  assert.equal(classify({ ...base, code: null, signal: 'SIGSEGV' }).outcome, 'crash');
  const enc = classify({
    ...base,
    code: 1,
    outputWritten: false,
    stderr: 'folio: a/b.pdf: b.pdf is encrypted: give the password with --password\n',
  });
  assert.deepEqual(enc, { outcome: 'clear-error', reason: 'b.pdf is encrypted: give the password with --password' });
  assert.equal(
    classify({ ...base, code: 1, outputWritten: false, stderr: 'folio: x.pdf: not a PDF file (no %PDF header)\n' })
      .outcome,
    'clear-error',
  );
  // A page warning with the same prefix comes first; the failure line is the last one.
  assert.deepEqual(
    classify({
      ...base,
      code: 1,
      outputWritten: false,
      stderr: 'folio: x.pdf: page 1: odd font\nfolio: x.pdf: x.pdf is damaged: no pages found\n',
    }),
    { outcome: 'clear-error', reason: 'x.pdf is damaged: no pages found' },
  );
  // A JavaScript exception's message is not a reason a user can act on.
  assert.equal(
    classify({
      ...base,
      code: 1,
      outputWritten: false,
      stderr: "folio: x.pdf: Cannot read properties of undefined (reading 'x')\n",
    }).outcome,
    'unclear-error',
  );
  assert.equal(
    classify({ ...base, code: 1, outputWritten: false, stderr: 'folio: x.pdf: something happened\n' }).outcome,
    'unclear-error',
  );
  const stack = classify({
    ...base,
    code: 1,
    outputWritten: false,
    stderr: 'TypeError: boom\n    at f (/w/dist/cli.js:10:5)\n    at g (node:internal/x:1:2)\n',
  });
  assert.equal(stack.outcome, 'crash');
  assert.match(stack.reason, /TypeError: boom/);
  assert.equal(
    classify({
      ...base,
      code: 134,
      outputWritten: false,
      stderr: 'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory',
    }).outcome,
    'crash',
  );
  assert.equal(classify({ ...base, code: 1, outputWritten: false, stderr: 'weird\n' }).outcome, 'crash');
  assert.equal(
    classify({ ...base, code: 1, outputWritten: true, stdout: 'x.pdf → x.md (3 pages, 1.0 s; 1 page(s) failed)' })
      .outcome,
    'partial',
  );
  assert.equal(classify({ ...base, outputWritten: false }).outcome, 'crash');
});

test('seededSample: fixed for a seed, independent of input order, distinct items', () => {
  const items = Array.from({ length: 500 }, (_, i) => `f${i}.pdf`);
  const a = seededSample(items, 100, 42, (x) => x);
  const b = seededSample([...items].reverse(), 100, 42, (x) => x);
  assert.deepEqual(a, b);
  assert.equal(new Set(a).size, 100);
  assert.notDeepEqual(
    a,
    seededSample(items, 100, 43, (x) => x),
  );
  assert.notDeepEqual(a, [...items].sort().slice(0, 100));
});

test('Folio CLI helpers: unique output names per call, failure lines by file', () => {
  assert.deepEqual(groupsWithUniqueNames(['/a/x.pdf', '/b/x.pdf', '/a/y.pdf', '/c/x.PDF']), [
    ['/a/x.pdf', '/a/y.pdf'],
    ['/b/x.pdf'],
    ['/c/x.PDF'],
  ]);
  const m = failureLines('folio: warning about fonts\nfolio: dir/a b.pdf: password required\n');
  assert.equal(m.get('dir/a b.pdf'), 'password required');
  assert.equal(m.size, 1);
});
