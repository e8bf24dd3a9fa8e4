/**
 * Candidates merged into a prefix tree, and the tree flattened into the linear chains the
 * decoder verifies. The exported granite-docling decoder takes a 2-D attention mask, so a tree
 * cannot be scored with tree attention; instead every root-to-leaf path becomes one chain of a
 * batch that shares the KV prefix. Shared prefixes are scored once per chain (redundant work the
 * batch hides), but they are accepted once: acceptance walks the tree, not the chains.
 */

export interface TreeNode {
  token: number;
  children: TreeNode[];
  /** Index of one chain that passes through this node, and this node's position in it. */
  chain: number;
  depth: number;
}

export interface PrefixTree {
  /** Children of the virtual root (the first proposed tokens). */
  roots: TreeNode[];
  /** Root-to-leaf token paths, each to be prefixed with the pending token when verified. */
  chains: number[][];
  /** Number of distinct proposed tokens (tree nodes). */
  nodes: number;
}

/** Merge candidate token sequences; sequences that are a prefix of another add no chain. */
export function buildPrefixTree(candidates: readonly (readonly number[])[]): PrefixTree {
  const roots: TreeNode[] = [];
  let nodes = 0;
  for (const seq of candidates) {
    let level = roots;
    for (let d = 0; d < seq.length; d++) {
      let node = level.find((x) => x.token === seq[d]);
      if (!node) {
        node = { token: seq[d], children: [], chain: -1, depth: d + 1 };
        level.push(node);
        nodes++;
      }
      level = node.children;
    }
  }
  // One chain per leaf; every node on the way remembers a chain that contains it.
  const chains: number[][] = [];
  const walk = (node: TreeNode, path: number[]) => {
    path.push(node.token);
    if (node.children.length === 0) {
      chains.push(path.slice());
      node.chain = chains.length - 1;
    } else {
      for (const c of node.children) walk(c, path);
      node.chain = node.children[0].chain;
    }
    path.pop();
  };
  for (const r of roots) walk(r, []);
  return { roots, chains, nodes };
}

/** Keep only the longest chain (ties: the first); the "deepest candidate only" verification. */
export function deepestOnly(tree: PrefixTree): PrefixTree {
  if (tree.chains.length <= 1) return tree;
  let best = 0;
  tree.chains.forEach((c, i) => {
    if (c.length > tree.chains[best].length) best = i;
  });
  return buildPrefixTree([tree.chains[best]]);
}
