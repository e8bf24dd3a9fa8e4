import type { PdfHandle } from '../../pipeline/index';

export type H = PdfHandle;
