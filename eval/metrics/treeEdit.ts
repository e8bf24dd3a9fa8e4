/**
 * Tree edit distance (Zhang & Shasha, 1989) over ordered labelled trees: insert and delete cost
 * 1, relabel costs what `renameCost` says (0–1). Used for TEDS on tables, whose trees are
 * shallow (table → row → cell), where the algorithm is close to O(|T1|·|T2|).
 */
export interface TreeNode {
  label: string;
  children: TreeNode[];
}

interface Flat {
  nodes: TreeNode[];
  /** Leftmost leaf descendant of each node, postorder indices. */
  lml: number[];
  keyroots: number[];
}

function flatten(root: TreeNode): Flat {
  const nodes: TreeNode[] = [];
  const lml: number[] = [];
  // Iterative postorder so deep trees cannot overflow the stack.
  const stack: { n: TreeNode; i: number; first: number }[] = [{ n: root, i: 0, first: -1 }];
  while (stack.length) {
    const top = stack[stack.length - 1];
    if (top.i < top.n.children.length) {
      stack.push({ n: top.n.children[top.i++], i: 0, first: -1 });
      continue;
    }
    stack.pop();
    const idx = nodes.length;
    nodes.push(top.n);
    lml.push(top.first === -1 ? idx : top.first);
    const parent = stack[stack.length - 1];
    if (parent && parent.first === -1) parent.first = lml[idx];
  }
  // Key roots: for each distinct leftmost leaf, the highest node having it.
  const seen = new Map<number, number>();
  for (let i = 0; i < nodes.length; i++) seen.set(lml[i], i);
  const keyroots = [...seen.values()].sort((a, b) => a - b);
  return { nodes, lml, keyroots };
}

export function treeSize(t: TreeNode): number {
  let n = 1;
  for (const c of t.children) n += treeSize(c);
  return n;
}

export function treeEditDistance(a: TreeNode, b: TreeNode, renameCost: (x: TreeNode, y: TreeNode) => number): number {
  const A = flatten(a);
  const B = flatten(b);
  const n = A.nodes.length;
  const m = B.nodes.length;
  const td = new Float64Array(n * m);
  const fd = new Float64Array((n + 1) * (m + 1));
  for (const i of A.keyroots) {
    for (const j of B.keyroots) {
      const li = A.lml[i];
      const lj = B.lml[j];
      const w = j - lj + 2;
      // fd is indexed from (li-1, lj-1) as (0,0).
      const at = (x: number, y: number) => (x - li + 1) * w + (y - lj + 1);
      fd[0] = 0;
      for (let x = li; x <= i; x++) fd[at(x, lj - 1)] = fd[at(x - 1, lj - 1)] + 1;
      for (let y = lj; y <= j; y++) fd[at(li - 1, y)] = fd[at(li - 1, y - 1)] + 1;
      for (let x = li; x <= i; x++) {
        for (let y = lj; y <= j; y++) {
          const del = fd[at(x - 1, y)] + 1;
          const ins = fd[at(x, y - 1)] + 1;
          if (A.lml[x] === li && B.lml[y] === lj) {
            const ren = fd[at(x - 1, y - 1)] + renameCost(A.nodes[x], B.nodes[y]);
            const v = Math.min(del, ins, ren);
            fd[at(x, y)] = v;
            td[x * m + y] = v;
          } else {
            const sub = fd[at(A.lml[x] - 1, B.lml[y] - 1)] + td[x * m + y];
            fd[at(x, y)] = Math.min(del, ins, sub);
          }
        }
      }
    }
  }
  return td[(n - 1) * m + (m - 1)];
}
