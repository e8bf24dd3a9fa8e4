/**
 * Glyphs a page draws that decode to no character at all (issue 31 class 2): a font whose
 * digits have no Unicode mapping (a TeX document set in Open Sans with old-style figures) shows
 * "Version 1.1" and "November 3, 2011" while its text layer says "Version ." and "November , ".
 * pdf.js keeps such glyphs in the operator list with their advance width and a `unicode` that is
 * empty or a control character, and leaves them out of the text content, so they are counted here; a page with any is read by
 * OCR and its lines patched where the OCR reading has characters the layer lacks (textRepair.ts).
 */
import type { OpsCodes } from '../pdf/graphics';

interface Glyph {
  unicode?: unknown;
  width?: unknown;
  isSpace?: unknown;
}

/**
 * Nothing, or control characters only: pdf.js gives an unmapped glyph its character code as a
 * C0/C1 control ("\x81" for an old-style "1"), which the text content then drops.
 */
const NO_TEXT = /^[\u0000-\u0008\u000e-\u001f\u007f-\u009f]*$/;

/** How many drawn glyphs (non-space, with an advance) have no Unicode text. */
export function countLostGlyphs(fnArray: number[], argsArray: unknown[], OPS: OpsCodes): number {
  const { showText, showSpacedText } = OPS;
  let lost = 0;
  for (let i = 0; i < fnArray.length; i++) {
    if (fnArray[i] !== showText && fnArray[i] !== showSpacedText) continue;
    const glyphs = (argsArray[i] as unknown[] | null)?.[0];
    if (!Array.isArray(glyphs)) continue;
    for (const g of glyphs as unknown[]) {
      if (!g || typeof g !== 'object') continue;
      const { unicode, width, isSpace } = g as Glyph;
      if (typeof unicode === 'string' && NO_TEXT.test(unicode) && !isSpace && typeof width === 'number' && width > 0)
        lost++;
    }
  }
  return lost;
}
