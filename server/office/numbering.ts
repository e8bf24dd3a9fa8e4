/**
 * Word list numbering (`word/numbering.xml`): each list instance (`w:num`) points at an abstract
 * definition whose levels give the format (`decimal`, `lowerLetter`, `bullet`, …), the printed
 * text (`%1.%2.`) and the start; `w:lvlOverride` restarts a level. Counters run per list instance,
 * and a level's use resets the levels below it, as Word prints them.
 */
import { kid, kids, type XmlElement } from './xml';

interface Level {
  fmt: string;
  text: string;
  start: number;
}

export interface ListLabel {
  ordered: boolean;
  /** The printed label ("3.", "a)", "1.2") for an ordered list; undefined for bullets. */
  label?: string;
  /** The level's own number (for headings numbered by a list). */
  numbers: number[];
}

function roman(n: number): string {
  const table: [number, string][] = [
    [1000, 'm'],
    [900, 'cm'],
    [500, 'd'],
    [400, 'cd'],
    [100, 'c'],
    [90, 'xc'],
    [50, 'l'],
    [40, 'xl'],
    [10, 'x'],
    [9, 'ix'],
    [5, 'v'],
    [4, 'iv'],
    [1, 'i'],
  ];
  let out = '';
  for (const [v, s] of table)
    while (n >= v) {
      out += s;
      n -= v;
    }
  return out;
}

function letters(n: number): string {
  let out = '';
  while (n > 0) {
    n--;
    out = String.fromCharCode(97 + (n % 26)) + out;
    n = Math.floor(n / 26);
  }
  return out;
}

function format(n: number, fmt: string): string {
  switch (fmt) {
    case 'lowerLetter':
      return letters(n);
    case 'upperLetter':
      return letters(n).toUpperCase();
    case 'lowerRoman':
      return roman(n);
    case 'upperRoman':
      return roman(n).toUpperCase();
    case 'decimalZero':
      return n < 10 ? `0${n}` : String(n);
    default:
      return String(n);
  }
}

const attr = (el: XmlElement | undefined) => el?.attrs['w:val'];

export class Numbering {
  private readonly abstract = new Map<string, Map<number, Level>>();
  private readonly nums = new Map<string, { abstractId: string; starts: Map<number, number> }>();
  private readonly counters = new Map<string, number[]>();

  constructor(root: XmlElement | undefined) {
    for (const a of kids(root, 'w:abstractNum')) {
      const levels = new Map<number, Level>();
      for (const l of kids(a, 'w:lvl')) {
        levels.set(Number(l.attrs['w:ilvl'] ?? 0), {
          fmt: attr(kid(l, 'w:numFmt')) ?? 'decimal',
          text: attr(kid(l, 'w:lvlText')) ?? '',
          start: Number(attr(kid(l, 'w:start')) ?? 1),
        });
      }
      this.abstract.set(a.attrs['w:abstractNumId'] ?? '', levels);
    }
    for (const n of kids(root, 'w:num')) {
      const starts = new Map<number, number>();
      for (const o of kids(n, 'w:lvlOverride')) {
        const s = attr(kid(o, 'w:startOverride'));
        if (s !== undefined) starts.set(Number(o.attrs['w:ilvl'] ?? 0), Number(s));
      }
      this.nums.set(n.attrs['w:numId'] ?? '', { abstractId: attr(kid(n, 'w:abstractNumId')) ?? '', starts });
    }
  }

  private level(numId: string, ilvl: number): Level | undefined {
    const num = this.nums.get(numId);
    const lvl = num ? this.abstract.get(num.abstractId)?.get(ilvl) : undefined;
    if (!lvl || !num) return lvl;
    const start = num.starts.get(ilvl);
    return start === undefined ? lvl : { ...lvl, start };
  }

  /** Whether this list instance prints a visible marker at this level (a numbered heading does). */
  visible(numId: string, ilvl: number): boolean {
    const lvl = this.level(numId, ilvl);
    return lvl !== undefined && lvl.fmt !== 'none' && lvl.text.trim() !== '';
  }

  /** Counts one paragraph of list `numId` at `ilvl` and answers its label. `numId` 0 is "no list". */
  next(numId: string, ilvl: number): ListLabel | undefined {
    if (numId === '0' || !this.nums.has(numId)) return undefined;
    const lvl = this.level(numId, ilvl);
    if (!lvl) return { ordered: false, numbers: [] };
    const counts = this.counters.get(numId) ?? [];
    for (let i = 0; i < ilvl; i++) if (counts[i] === undefined) counts[i] = this.level(numId, i)?.start ?? 1;
    counts[ilvl] = counts[ilvl] === undefined ? lvl.start : counts[ilvl] + 1;
    counts.length = ilvl + 1;
    this.counters.set(numId, counts);
    if (lvl.fmt === 'bullet' || lvl.fmt === 'none') return { ordered: false, numbers: counts.slice() };
    const label = lvl.text.replace(/%(\d)/g, (_, d: string) => {
      const i = Number(d) - 1;
      const l = this.level(numId, i);
      return format(counts[i] ?? 1, i === ilvl ? lvl.fmt : (l?.fmt ?? 'decimal'));
    });
    return { ordered: true, label: label.trim() || undefined, numbers: counts.slice() };
  }
}
