import { b } from './b';

export const a = (): number => b + 1;
