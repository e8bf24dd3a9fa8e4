/**
 * Lossless verification of one drafted block when sampling (temperature > 0), for a general draft
 * distribution q. Both verifiers return the accepted draft prefix plus one token drawn by the
 * verifier, and both keep the output distributed exactly as the target's.
 *
 * Inputs, for a block x[0..γ): `q[i]` is the distribution x[i] was drawn from, `p[i]` the target's
 * distribution at that position (`p` has γ + 1 entries: the last one follows the whole block).
 * All given in probabilities, each summing to 1.
 *
 * Tokenwise: accept x[i] with probability min(1, p/q); on the first rejection draw from
 * norm(max(0, p[i] − q[i])); if all are accepted draw the bonus from p[γ].
 *
 * Hierarchical (block verification with capped branch resampling): carry the joint ratio of the
 * prefix, w_i = min(1, w_{i−1} · p[i−1](x[i−1]) / q[i−1](x[i−1])) — the maximum-prefix-ratio cap
 * keeps it a probability — decide for every prefix length i whether the block may end there with
 * h_i = ρ_i / (ρ_i + 1 − w_i), where ρ_i = Σ_y max(0, w_i·p[i](y) − q[i](y)) is the mass the
 * branch at i can resample, take the longest prefix that passes, and resample once after it from
 * norm(max(0, w_τ·p[τ] − q[τ])) (from p[γ] when the whole block passed). Judging prefixes by
 * their joint ratio lets a token the draft over-proposed be rescued by later tokens the draft
 * under-proposed, so it accepts at least as many tokens on average as tokenwise.
 *
 * Deterministic drafts (q one-hot on x[i], the pipeline case): tokenwise accepts x[i] with
 * probability p[i](x[i]) and resamples from p[i] without x[i] — i.e. "draw y ~ p, accept iff
 * y = x[i]". Hierarchical gets w_i = Π_{j<i} p[j](x[j]) and ρ_i = w_i(1 − p[i](x[i])), which gives
 * P(τ ≥ i) = w_i: the same acceptance law and the same resampling distribution as tokenwise, so
 * with pipeline drafts both reduce to sampling from the target and following the draft while the
 * sample agrees (accept.ts `sampleWalk`), and at temperature 0 to greedy argmax matching.
 */

export interface BlockOutcome {
  /** Accepted draft tokens followed by the one token the verifier drew. */
  tokens: number[];
  /** How many draft tokens were accepted (τ). */
  accepted: number;
}

export function tokenwiseVerify(
  x: readonly number[],
  p: readonly Float64Array[],
  q: readonly Float64Array[],
  random: () => number,
): BlockOutcome {
  checkShapes(x, p, q);
  for (let i = 0; i < x.length; i++) {
    const ratio = p[i][x[i]] / q[i][x[i]];
    if (random() < Math.min(1, ratio)) continue;
    return { tokens: [...x.slice(0, i), drawResidual(p[i], q[i], 1, random)], accepted: i };
  }
  return { tokens: [...x, draw(p[x.length], random)], accepted: x.length };
}

export function hierarchicalVerify(
  x: readonly number[],
  p: readonly Float64Array[],
  q: readonly Float64Array[],
  random: () => number,
): BlockOutcome {
  checkShapes(x, p, q);
  const g = x.length;
  const h = blockStopProbabilities(x, p, q);
  // τ = the longest prefix length whose own coin passes (τ = 0 always passes, h[0] = 1).
  let tau = 0;
  for (let i = 1; i <= g; i++) if (random() <= h.stop[i]) tau = i;
  const y = tau === g ? draw(p[g], random) : drawResidual(p[tau], q[tau], h.w[tau], random);
  return { tokens: [...x.slice(0, tau), y], accepted: tau };
}

/**
 * The per-prefix stop probabilities h_i and capped joint ratios w_i of hierarchical verification
 * (exported so tests can compute the exact acceptance law by enumeration).
 */
export function blockStopProbabilities(
  x: readonly number[],
  p: readonly Float64Array[],
  q: readonly Float64Array[],
): { stop: number[]; w: number[] } {
  const g = x.length;
  const w = [1];
  const stop = [1];
  for (let i = 1; i <= g; i++) {
    w.push(Math.min(1, (w[i - 1] * p[i - 1][x[i - 1]]) / q[i - 1][x[i - 1]]));
    if (i === g) {
      stop.push(w[i]);
    } else {
      let rho = 0;
      for (let y = 0; y < p[i].length; y++) rho += Math.max(0, w[i] * p[i][y] - q[i][y]);
      const den = rho + 1 - w[i];
      stop.push(den > 1e-15 ? rho / den : 0);
    }
  }
  return { stop, w };
}

/** Draw from norm(max(0, w·p − q)); falls back to p when that mass vanishes (p = q up to rounding). */
function drawResidual(p: Float64Array, q: Float64Array, w: number, random: () => number): number {
  const r = new Float64Array(p.length);
  let sum = 0;
  for (let y = 0; y < p.length; y++) sum += r[y] = Math.max(0, w * p[y] - q[y]);
  if (sum <= 1e-15) return draw(p, random);
  for (let y = 0; y < r.length; y++) r[y] /= sum;
  return draw(r, random);
}

export function draw(dist: Float64Array, random: () => number): number {
  let u = random();
  for (let y = 0; y < dist.length; y++) {
    u -= dist[y];
    if (u < 0) return y;
  }
  for (let y = dist.length - 1; y >= 0; y--) if (dist[y] > 0) return y;
  return 0;
}

function checkShapes(x: readonly number[], p: readonly Float64Array[], q: readonly Float64Array[]): void {
  if (p.length !== x.length + 1 || q.length < x.length) {
    throw new Error(
      `speculative sampling: need ${x.length + 1} target and ${x.length} draft distributions, got ${p.length} and ${q.length}`,
    );
  }
}
