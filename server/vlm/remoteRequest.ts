/**
 * The chat-completions request a remote VLM gets for one image, in the form Docling's VLM
 * pipeline sends to vLLM (docling/utils/api_image_request.py with the granite-docling API
 * spec): one user message holding the image as a PNG data URL, then the instruction; greedy
 * (temperature 0); stop strings `</doctag>` and `<|end_of_text|>`; `skip_special_tokens: false`
 * so the `<loc_…>` tokens reach us as text; streamed as server-sent events.
 */
export const STOP_STRINGS = ['</doctag>', '<|end_of_text|>'] as const;

export interface ChatRequestBody {
  model: string;
  messages: {
    role: 'user';
    content: ({ type: 'image_url'; image_url: { url: string } } | { type: 'text'; text: string })[];
  }[];
  temperature: number;
  max_tokens: number;
  stop: string[];
  skip_special_tokens: boolean;
  stream: true;
}

export function chatRequestBody(png: Buffer, instruction: string, model: string, maxTokens = 4096): ChatRequestBody {
  return {
    model,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
          { type: 'text', text: instruction },
        ],
      },
    ],
    temperature: 0,
    max_tokens: maxTokens,
    stop: [...STOP_STRINGS],
    skip_special_tokens: false,
    stream: true,
  };
}

/** `…/v1` → `…/v1/chat/completions` (a URL already naming the endpoint is kept). */
export function completionsUrl(base: string): string {
  const u = base.replace(/\/+$/, '');
  return u.endsWith('/chat/completions') ? u : `${u}/chat/completions`;
}
