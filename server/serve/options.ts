/**
 * Conversion options of the HTTP API: the CLI's options under docling-serve-like names, one JSON
 * schema for both the multipart form fields (strings, coerced) and the JSON body of
 * /v1/convert/source. Unknown fields are errors, as on the command line.
 */
import Ajv from 'ajv';
import type { ConvertOptions } from '../../common/protocol';

export const OPTIONS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    engine: { type: 'string', enum: ['pipeline', 'vlm'] },
    ocr: { type: 'string', enum: ['auto', 'always', 'never'] },
    page_range: { type: 'string', pattern: '^[0-9 ,-]+$', maxLength: 200 },
    keep_furniture: { type: 'boolean' },
    keep_hidden_text: { type: 'boolean' },
    scale: { type: 'number', minimum: 0.25, maximum: 8 },
    layout_prior: { type: 'string', enum: ['auto', 'on', 'off'] },
    password: { type: 'string', maxLength: 1000 },
    include_images: { type: 'boolean' },
  },
} as const;

export interface ApiOptions {
  engine?: 'pipeline' | 'vlm';
  ocr?: 'auto' | 'always' | 'never';
  page_range?: string;
  keep_furniture?: boolean;
  /** Keep text a reader of the page cannot see (left out by default: security round 4, N9). */
  keep_hidden_text?: boolean;
  scale?: number;
  layout_prior?: 'auto' | 'on' | 'off';
  password?: string;
  include_images?: boolean;
}

const ajv = new Ajv({ coerceTypes: true, allErrors: false });
const validate = ajv.compile<ApiOptions>(OPTIONS_SCHEMA);

export class OptionsError extends Error {}

/** Validates (and coerces form strings such as "true" or "1.5"); throws an OptionsError naming the field. */
export function parseApiOptions(raw: Record<string, unknown>): ApiOptions {
  const copy = { ...raw };
  if (!validate(copy)) {
    const e = validate.errors?.[0];
    const field = e?.instancePath
      ? e.instancePath.slice(1)
      : (e?.params as { additionalProperty?: string })?.additionalProperty;
    throw new OptionsError(
      `option ${field ? `"${field}" ` : ''}${e?.message ?? 'is invalid'}${e?.keyword === 'enum' ? ` (${(e.params as { allowedValues: string[] }).allowedValues.join(', ')})` : ''}`,
    );
  }
  return copy;
}

/** The service's own settings decide what the engine may touch (models, remote VLM); the request only picks among them. */
export function toConvertOptions(o: ApiOptions, base: ConvertOptions): ConvertOptions {
  // Sent only when on (as the CLI and the extension send it); a request's `false` wins over the base.
  const { keepHiddenText: baseKeepsHidden, ...rest } = base;
  return {
    ...rest,
    engine: o.engine ?? base.engine ?? 'pipeline',
    ocr: o.ocr ?? base.ocr ?? 'auto',
    keepFurniture: o.keep_furniture ?? base.keepFurniture ?? false,
    scale: o.scale ?? base.scale ?? 2,
    layoutPrior: o.layout_prior ?? base.layoutPrior ?? 'off',
    ...((o.keep_hidden_text ?? baseKeepsHidden) ? { keepHiddenText: true } : {}),
  };
}
