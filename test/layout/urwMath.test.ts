/**
 * Issue 40, class 5 (formulas): math set in URW's Times italic (mathptmx and `times` on Debian:
 * NimbusRomNo9L-ReguItal for the variables, StandardSymL for Ω and ∑, CMSY for "·" and "−").
 * The text layer does not read "-ReguItal" as italic (server/pdf/text.ts), so no variable counted
 * as math: DAFx's numbered display "X(e^{jΩ}) = ∑_{n=0}^{N−1} x(n) e^{−jΩn}" broke into its limits,
 * a line "X(e j$\Omega)=\sum$ x(n)e" and a formula of its exponent, and "x(n) = s(n) · w(n)"
 * stayed a line of text with its number under it. Now URW's italic names are italic to the math
 * detector and their family is the body's (server/layout/fontStyle.ts, math/detect.ts), and an
 * inline formula keeps the closing bracket of a bracket it opened ("$x(n)$", not "$x(n$)",
 * math/inline.ts). Look-alikes on the same page that stay: the italic captions ("Figure 1:
 * Sinusoid in time and frequency domain.") and prose, the headings, the table and the order.
 *
 * A page made for this test (test/fixtures/urwmath, pdfLaTeX with mathptmx): initials picked out
 * in that italic inside upright words ("\emph{m}ulti-\emph{o}bject") stay letters of their words,
 * not variables ("$m$ulti"), and an emphasised word stays text; its display formula, whose "·" is
 * a CMSY subset of one glyph that pdf.js calls monospace, is one formula with its number.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failingSetTests } from './setTests';
import { fileMarkdown, fixture } from './convertFile';

/** Each failed before the rule. */
const FIXED = ['dafx-p1-02', 'dafx-p1-03'];
/** Furniture, figure labels, order, headings and the caption on the same page. */
const STAY = ['dafx-p1-01', 'dafx-p1-04', 'dafx-p1-05', 'dafx-p1-06', 'dafx-p1-07', 'dafx-p1-08', 'dafx-p1-10'];

test("display formulas in URW's Times italic are found whole; captions and prose in that italic stay text", async () => {
  const ids = [...FIXED, ...STAY];
  let md = '';
  const { failed, ran } = await failingSetTests(ids, async (file) => (md = await fileMarkdown(file)));
  assert.equal(ran.length, ids.length, 'every test id is in the set');
  assert.deepEqual(failed, []);
  // The inline variables of the prose keep their closing bracket; the italic caption is text.
  assert.match(md, /where the sequence \$x\(n\)\$ in equation \(1\)/);
  assert.match(md, /^Figure 1: Sinusoid in time and frequency domain\.$/m);
});

test("initials in URW's italic inside upright words stay letters; emphasis stays text; a display with a lone CMSY '·' is whole", async () => {
  const md = await fileMarkdown(fixture('urwmath', 'urwmath.pdf'));
  assert.match(md, /propose a multi-object rectified attention network \(MORAN\)/);
  assert.match(md, /read it as the network of record\./);
  assert.match(md, /the source \$s\(n\)\$ and the window \$w\(n\)\$/);
  assert.match(md, /^\$\$x\(n\)=s\(n\)\\cdot w\(n\) \\tag\{1\}\$\$$/m);
  assert.match(md, /where \$n\$ counts the samples and \$N\$ is the length/);
});
