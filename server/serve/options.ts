/**
 * Conversion options of the HTTP API: the CLI's options under docling-serve-like names, one JSON
 * schema for both the multipart form fields (strings, coerced) and the JSON body of
 * /v1/convert/source. Unknown fields are errors, as on the command line.
 */
import Ajv from 'ajv';
import type { ConvertOptions } from '../../common/protocol';
import { CONVERT_OPTIONS as O, optionSchema, type ChoiceOf } from '../../common/requestModel';

/** The shared options' values (choices, ranges) are common/requestModel.ts's; the rest are the service's own. */
export const OPTIONS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    engine: optionSchema(O.engine),
    ocr: optionSchema(O.ocr),
    page_range: { type: 'string', pattern: '^[0-9 ,-]+$', maxLength: 200 },
    keep_furniture: optionSchema(O.keepFurniture),
    keep_hidden_text: optionSchema(O.keepHiddenText),
    scale: optionSchema(O.scale),
    layout_prior: optionSchema(O.layoutPrior),
    password: { type: 'string', maxLength: 1000 },
    include_images: { type: 'boolean' },
  },
} as const;

export interface ApiOptions {
  engine?: ChoiceOf<'engine'>;
  ocr?: ChoiceOf<'ocr'>;
  page_range?: string;
  keep_furniture?: boolean;
  /** Keep text a reader of the page cannot see (left out by default: security round 4, N9). */
  keep_hidden_text?: boolean;
  scale?: number;
  layout_prior?: ChoiceOf<'layoutPrior'>;
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
    engine: o.engine ?? base.engine ?? O.engine.default,
    ocr: o.ocr ?? base.ocr ?? O.ocr.default,
    keepFurniture: o.keep_furniture ?? base.keepFurniture ?? O.keepFurniture.default,
    scale: o.scale ?? base.scale ?? O.scale.default,
    layoutPrior: o.layout_prior ?? base.layoutPrior ?? O.layoutPrior.default,
    ...((o.keep_hidden_text ?? baseKeepsHidden) ? { keepHiddenText: true } : {}),
  };
}
