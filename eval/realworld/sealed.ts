/**
 * The sealed part of the real-world set (issue 40): a quarter of its pages, fixed by a hash, whose
 * failing tests nobody opens while working. `npm run eval` reports the sealed part's pass rates
 * beside the working part's, never its test ids or its pages' outputs; a rule counts when the
 * sealed part moves too.
 *
 * The rule, fixed once: a page is sealed when the first byte of SHA-256 (UTF-8) of its page key is
 * below 64. The page key is the key the set's pages are cut by (`materializePages`): the test's
 * `pdf` field, `#`, its 1-based `page` — e.g. `debian/revtex-apssamp#1`,
 * `raster200/debian/revtex-apssamp#1`, `corpus/pdfjs-test-pdfs/issue918.pdf#1`. A rasterized twin
 * is its own page with its own key. Whether a page is sealed never depends on its tests, the set's
 * size or the order of tests.jsonl, so growing the set never moves a page between the parts.
 *
 * Tests of rules (test/**) read only working pages: `assertWorkingTests` refuses sealed ones.
 */
import { createHash } from 'node:crypto';

/** Pages whose key's SHA-256 starts with a byte below this are sealed (64/256: a quarter). */
export const SEALED_FIRST_BYTE_BELOW = 64;

export type Part = 'working' | 'sealed';

/** The key a page of the set is known by: `<pdf>#<page>`. */
export function pageKey(pdf: string, page: number): string {
  return `${pdf}#${page}`;
}

export function isSealedPage(pdf: string, page: number): boolean {
  return createHash('sha256').update(pageKey(pdf, page), 'utf8').digest()[0] < SEALED_FIRST_BYTE_BELOW;
}

/** The part a test (or any `{ pdf, page }`) belongs to. */
export function partOf(t: { pdf: string; page: number }): Part {
  return isSealedPage(t.pdf, t.page) ? 'sealed' : 'working';
}

/** The tests (or pages) of one part, in their order. */
export function inPart<T extends { pdf: string; page: number }>(items: readonly T[], part: Part): T[] {
  return items.filter((t) => partOf(t) === part);
}

export class SealedPageError extends Error {}

/**
 * Throws when any of `tests` is on a sealed page: a test of a rule must be written on working
 * pages (the message names the page keys, which are public; never a sealed test's outcome).
 */
export function assertWorkingTests(tests: readonly { id?: string; pdf: string; page: number }[]): void {
  const sealed = tests.filter((t) => partOf(t) === 'sealed');
  if (sealed.length)
    throw new SealedPageError(
      `${sealed.length} test(s) on sealed pages of the real-world set (${[
        ...new Set(sealed.map((t) => pageKey(t.pdf, t.page))),
      ].join(', ')}): write rule tests on working pages (eval/realworld/sealed.ts)`,
    );
}
