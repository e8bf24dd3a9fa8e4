import { Tokenizer } from '../vlm/tokenizer';

export const T = Tokenizer;
