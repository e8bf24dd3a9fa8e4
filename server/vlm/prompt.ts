/**
 * The text around the image: granite-docling's chat template, the instruction for a page or a
 * region class (the model card's prompts), and the optional layout prior (the detector's or the
 * pipeline's boxes as DocTags inside `<layout>…</layout>`, after the instruction).
 */
import type { RegionClass } from '../../common/protocol';
import type { DocItem } from '../model/items';
import { serializePage } from '../doctags/serialize';

export const PAGE_INSTRUCTION = 'Convert this page to docling.';

/** Instruction for a region of a given class (model card: table → OTSL, formula → LaTeX, code → text). */
export function regionInstruction(cls: RegionClass | 'page'): string {
  switch (cls) {
    case 'page':
      return PAGE_INSTRUCTION;
    case 'table':
      return 'Convert table to OTSL.';
    case 'formula':
      return 'Convert formula to LaTeX.';
    case 'code':
      return 'Convert code to text.';
    case 'chart':
      return 'Convert chart to table.';
    default:
      return 'Convert this page to docling.';
  }
}

export type LayoutPriorSetting = 'auto' | 'on' | 'off';

/**
 * The prior block: boxes and classes only (text left empty), so the model is told where the
 * blocks are without being fed the pipeline's possibly wrong text.
 */
export function layoutPrior(items: readonly DocItem[]): string {
  const boxes = items.filter((i) => i.grid).map((i) => ({ ...i, text: '', caption: undefined, table: undefined }));
  if (boxes.length === 0) return '';
  return `<layout>${serializePage(boxes).replace(/\n/g, '')}</layout>`;
}

/**
 * Chat template of granite-docling (from its chat_template): user turn with the image and the
 * instruction, then the assistant turn opened for generation. `image` is the expanded image
 * text (see `imagePromptString`).
 */
export function chatPrompt(image: string, instruction: string, prior = ''): string {
  return `<|start_of_role|>user<|end_of_role|>${image}${instruction}${prior}<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>`;
}

/** Whether to send the prior: `auto` sends it when boxes are available and the request is a page. */
export function usePrior(setting: LayoutPriorSetting, items: readonly DocItem[] | undefined, isPage: boolean): boolean {
  if (setting === 'off' || !items || items.length === 0) return false;
  return setting === 'on' || isPage;
}

/** The model's DocTags without the `<doctag>` wrapper and end-of-text, trimmed. */
export function stripWrapper(text: string): string {
  return text
    .replace(/<\|end_of_text\|>/g, '')
    .replace(/^\s*<doctag>/, '')
    .replace(/<\/doctag>\s*$/, '')
    .trim();
}
