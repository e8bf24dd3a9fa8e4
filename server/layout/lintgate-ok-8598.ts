import type { BBox } from '../../common/protocol';
import type { TextSpan } from '../model/content';

export type S = TextSpan & { box: BBox };
