import type { PdfHandle } from '../pdf/open';

export type H = PdfHandle;
