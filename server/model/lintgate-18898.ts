import type { Line } from '../layout/lines/line';

export type L = Line;
