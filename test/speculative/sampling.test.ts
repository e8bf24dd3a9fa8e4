/**
 * The sampling verifiers keep the target's distribution: exactly (by enumeration) and
 * empirically (chi-square, fixed seed), for tokenwise and hierarchical verification; the
 * hierarchical one accepts at least as many tokens on average. Also: the decode loop's sampling
 * mode with deterministic drafts matches the target's own distribution.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blockStopProbabilities, draw, hierarchicalVerify, tokenwiseVerify } from './sampling';
import { mulberry32 } from '../../server/speculative/random';
import { decodePage } from '../../server/speculative/hsd';
import { toyTokenInfo } from './toyTarget';
import { makeDrafts, pagePrompt, pages, toyModelFor } from './toyPages';

const V = 3;
const GAMMA = 2;
const L = GAMMA + 1; // compare distributions of the first L output tokens

/** Random context-dependent distributions over V tokens (memoized per prefix). */
function table(seed: number, sharp: number): (prefix: readonly number[]) => Float64Array {
  const memo = new Map<string, Float64Array>();
  return (prefix) => {
    const key = prefix.join(',');
    let d = memo.get(key);
    if (!d) {
      const r = mulberry32(seed * 1000 + hashKey(key));
      const w = Array.from({ length: V }, () => Math.pow(r() + 0.02, sharp));
      const s = w.reduce((a, b) => a + b, 0);
      d = Float64Array.from(w, (x) => x / s);
      memo.set(key, d);
    }
    return d;
  };
}
function hashKey(s: string): number {
  let h = 7;
  for (const c of s) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h % 100000;
}

const target = table(1, 2);
const drafter = table(2, 3);

type Verifier = typeof tokenwiseVerify;

/** One speculative round, then plain target sampling up to L tokens. */
function sampleOutput(verify: Verifier, rand: () => number): { out: number[]; accepted: number } {
  const x: number[] = [];
  const q: Float64Array[] = [];
  for (let i = 0; i < GAMMA; i++) {
    q.push(drafter(x));
    x.push(draw(q[i], rand));
  }
  const p = Array.from({ length: GAMMA + 1 }, (_, i) => target(x.slice(0, i)));
  const r = verify(x, p, q, rand);
  const out = r.tokens.slice(0, L);
  while (out.length < L) out.push(draw(target(out), rand));
  return { out, accepted: r.accepted };
}

const cell = (seq: number[]) => seq.reduce((a, t) => a * V + t, 0);

function targetJoint(): Float64Array {
  const P = new Float64Array(V ** L);
  const rec = (prefix: number[], pr: number) => {
    if (prefix.length === L) return void (P[cell(prefix)] += pr);
    const d = target(prefix);
    for (let t = 0; t < V; t++) rec([...prefix, t], pr * d[t]);
  };
  rec([], 1);
  return P;
}

/** Adds P(prefix) × target continuation to the joint table. */
function extend(P: Float64Array, prefix: number[], pr: number): void {
  if (pr === 0) return;
  if (prefix.length >= L) return void (P[cell(prefix.slice(0, L))] += pr);
  const d = target(prefix);
  for (let t = 0; t < V; t++) extend(P, [...prefix, t], pr * d[t]);
}

function residual(p: Float64Array, q: Float64Array, w: number): Float64Array {
  const r = Float64Array.from(p, (pv, y) => Math.max(0, w * pv - q[y]));
  const s = r.reduce((a, b) => a + b, 0);
  return s > 1e-15 ? r.map((v) => v / s) : p;
}

/** Exact output law and expected acceptance of a verifier, by enumerating every draft. */
function exactLaw(kind: 'tokenwise' | 'hierarchical'): { P: Float64Array; meanAccepted: number } {
  const P = new Float64Array(V ** L);
  let meanAccepted = 0;
  const drafts = (prefix: number[], pr: number, qs: Float64Array[]) => {
    if (prefix.length < GAMMA) {
      const q = drafter(prefix);
      for (let t = 0; t < V; t++) drafts([...prefix, t], pr * q[t], [...qs, q]);
      return;
    }
    const x = prefix;
    const p = Array.from({ length: GAMMA + 1 }, (_, i) => target(x.slice(0, i)));
    const ptau: number[] = [];
    const resid: Float64Array[] = [];
    if (kind === 'tokenwise') {
      let reach = 1;
      for (let i = 0; i < GAMMA; i++) {
        const a = Math.min(1, p[i][x[i]] / qs[i][x[i]]);
        ptau.push(reach * (1 - a));
        resid.push(residual(p[i], qs[i], 1));
        reach *= a;
      }
      ptau.push(reach);
      resid.push(p[GAMMA]);
    } else {
      const { stop, w } = blockStopProbabilities(x, p, qs);
      for (let i = 0; i <= GAMMA; i++) {
        let pi = i === 0 ? 1 : stop[i];
        for (let j = i + 1; j <= GAMMA; j++) pi *= 1 - stop[j];
        ptau.push(pi);
        resid.push(i === GAMMA ? p[GAMMA] : residual(p[i], qs[i], w[i]));
      }
    }
    ptau.forEach((pt, tau) => {
      meanAccepted += pr * pt * tau;
      for (let y = 0; y < V; y++) extend(P, [...x.slice(0, tau), y], pr * pt * resid[tau][y]);
    });
  };
  drafts([], 1, []);
  return { P, meanAccepted };
}

test('both verifiers reproduce the target distribution exactly (enumeration over all drafts)', () => {
  const T = targetJoint();
  for (const kind of ['tokenwise', 'hierarchical'] as const) {
    const { P } = exactLaw(kind);
    for (let c = 0; c < T.length; c++)
      assert.ok(Math.abs(P[c] - T[c]) < 1e-12, `${kind}: cell ${c}: ${P[c]} vs ${T[c]}`);
  }
  const tw = exactLaw('tokenwise').meanAccepted;
  const hv = exactLaw('hierarchical').meanAccepted;
  assert.ok(hv > tw, `hierarchical accepts ${hv.toFixed(4)} tokens on average, tokenwise ${tw.toFixed(4)}`);
});

/** Chi-square critical value for 26 degrees of freedom at α = 0.001. */
const CHI2_26_999 = 54.05;

test('chi-square: sampled outputs of both verifiers match the target, and hierarchical accepts more', () => {
  const T = targetJoint();
  const N = 30000;
  const means: Record<string, number> = {};
  for (const [name, verify] of [
    ['tokenwise', tokenwiseVerify],
    ['hierarchical', hierarchicalVerify],
  ] as const) {
    const rand = mulberry32(2024);
    const counts = new Float64Array(T.length);
    let acc = 0;
    for (let n = 0; n < N; n++) {
      const s = sampleOutput(verify, rand);
      counts[cell(s.out)]++;
      acc += s.accepted;
    }
    let chi2 = 0;
    for (let c = 0; c < T.length; c++) chi2 += (counts[c] - N * T[c]) ** 2 / (N * T[c]);
    assert.ok(chi2 < CHI2_26_999, `${name}: chi-square ${chi2.toFixed(1)} ≥ ${CHI2_26_999}`);
    means[name] = acc / N;
  }
  assert.ok(
    means.hierarchical >= means.tokenwise,
    `mean accepted: hierarchical ${means.hierarchical}, tokenwise ${means.tokenwise}`,
  );
});

test('a verifier that skips the residual correction fails the same chi-square test', () => {
  // Guards the test itself: accepting draft tokens without the min(1, p/q) rule is biased.
  const T = targetJoint();
  const N = 30000;
  const rand = mulberry32(2024);
  const biased: typeof tokenwiseVerify = (x, p, _q, r) => ({
    tokens: [...x, draw(p[x.length], r)],
    accepted: x.length,
  });
  const counts = new Float64Array(T.length);
  for (let n = 0; n < N; n++) counts[cell(sampleOutput(biased, rand).out)]++;
  let chi2 = 0;
  for (let c = 0; c < T.length; c++) chi2 += (counts[c] - N * T[c]) ** 2 / (N * T[c]);
  assert.ok(chi2 > CHI2_26_999, `biased verifier passed with chi-square ${chi2.toFixed(1)}`);
});

test('one-hot drafts: hierarchical acceptance law equals tokenwise (P(τ ≥ i) = Π p(x_j))', () => {
  const x = [0, 2];
  const p = [target([]), target([0]), target([0, 2])];
  const q = x.map((t) => Float64Array.from({ length: V }, (_, y) => (y === t ? 1 : 0)));
  const { stop } = blockStopProbabilities(x, p, q);
  const pTau = [0, 1, 2].map(
    (i) => (i === 0 ? 1 : stop[i]) * [1, 2].filter((j) => j > i).reduce((a, j) => a * (1 - stop[j]), 1),
  );
  const a = p[0][0];
  const b = p[1][2];
  assert.ok(Math.abs(pTau[2] - a * b) < 1e-12);
  assert.ok(Math.abs(pTau[1] - a * (1 - b)) < 1e-12);
  assert.ok(Math.abs(pTau[0] - (1 - a)) < 1e-12);
});

test('decode loop at temperature 1 with pipeline drafts: first two tokens follow the target (chi-square)', async () => {
  const ps = pages(1, 9);
  const model = toyModelFor(ps, 4, 0, 0.5);
  const info = toyTokenInfo();
  const pr = pagePrompt(ps[0]);
  const drafts = makeDrafts(ps[0], 'truth', () => 0.5).page;
  // Exact law of the first two tokens from the model itself.
  const s = model.open();
  const p1 = await s.prefill(pr);
  const exact = new Map<string, number>();
  const firsts = Array.from(p1, (lp, t) => ({ t, pr: Math.exp(lp) })).filter((x) => x.pr > 1e-4);
  for (const { t, pr: a } of firsts) {
    const [[lp2]] = await s.step([[t]]);
    lp2.forEach((lp, u) => exact.set(`${t},${u}`, a * Math.exp(lp)));
  }
  const N = 3000;
  const counts = new Map<string, number>();
  const random = mulberry32(77);
  let accepted = 0;
  for (let n = 0; n < N; n++) {
    const r = await decodePage(model, { prompt: pr, drafts }, info, 'page', {
      temperature: 1,
      random,
      maxNewTokens: 2,
    });
    const k = r.tokens.slice(0, 2).join(',');
    counts.set(k, (counts.get(k) ?? 0) + 1);
    accepted += r.stats.accepted;
  }
  assert.ok(accepted > 0, 'drafts were accepted while sampling');
  // Cells with expected count ≥ 5 on their own, the rest pooled.
  let chi2 = 0;
  let df = -1;
  let restE = 0;
  let restO = 0;
  for (const [k, pk] of exact) {
    const e = N * pk;
    const o = counts.get(k) ?? 0;
    if (e >= 5) {
      chi2 += (o - e) ** 2 / e;
      df++;
    } else {
      restE += e;
      restO += o;
    }
  }
  if (restE > 0) {
    chi2 += (restO - restE) ** 2 / restE;
    df++;
  }
  // Wilson–Hilferty approximation of the 0.999 quantile of chi-square(df).
  const z = 3.09;
  const crit = df * (1 - 2 / (9 * df) + z * Math.sqrt(2 / (9 * df))) ** 3;
  assert.ok(df >= 3, `enough cells to test (${df} degrees of freedom)`);
  assert.ok(chi2 < crit, `chi-square ${chi2.toFixed(1)} ≥ ${crit.toFixed(1)} (df ${df})`);
});
