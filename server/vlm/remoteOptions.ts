/** The CLI's --vlm-* flags as the conversion option `remoteVlm` (the API key may come from FOLIO_VLM_API_KEY). */
import type { ConvertOptions } from '../../common/protocol';

export const DEFAULT_REMOTE_MODEL = 'ibm-granite/granite-docling-258M';

export function remoteVlmOption(a: {
  vlmUrl?: string;
  vlmModel?: string;
  vlmApiKey?: string;
  vlmParallel?: number;
  vlmTimeoutMs?: number;
}): Pick<ConvertOptions, 'remoteVlm'> {
  if (!a.vlmUrl) return {};
  const apiKey = a.vlmApiKey ?? process.env.FOLIO_VLM_API_KEY;
  return {
    remoteVlm: {
      url: a.vlmUrl,
      model: a.vlmModel ?? DEFAULT_REMOTE_MODEL,
      ...(apiKey ? { apiKey } : {}),
      ...(a.vlmParallel ? { parallel: a.vlmParallel } : {}),
      ...(a.vlmTimeoutMs ? { timeoutMs: a.vlmTimeoutMs } : {}),
    },
  };
}
