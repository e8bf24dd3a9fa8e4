/**
 * Font styles the text layer's name test (server/pdf/text.ts) does not read. URW's fonts for TeX
 * (the Times, Helvetica, Palatino and Bookman clones that `times`, `mathptmx`, `helvet` and
 * `palatino` set on Debian) name their italics "-Ital", "-ReguItal", "-MediItal", "-LighItal"
 * (NimbusRomNo9L-ReguItal, URWPalladioL-Ital). They stay upright to the text layer, so as not to
 * move every page set in them; the stages that need the slant read it here.
 */
export function isUrwItalic(fontName: string): boolean {
  return /-(regu|medi|bold|demi|book|ligh)?ital$/i.test(fontName);
}
