// Where the lines of a file went when it was edited: a line-level diff (Myers' algorithm on the part
// between the common prefix and suffix) maps each old line to the new line it became, or, for a line
// that was changed or removed, to the new lines that took the place of its hunk.

/** 1-based inclusive range of new lines; `to < from` means the old line's hunk became nothing, between `to` and `from`. */
export interface LineSpan {
  from: number;
  to: number;
}

/** Beyond this many differing lines the middle is taken as one changed block. */
const MAX_EDIT_DISTANCE = 4000;

export function lineMapper(before: string, after: string): (oldLine: number) => LineSpan {
  const a = before.split('\n');
  const b = after.split('\n');
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;

  const middleA = a.slice(prefix, a.length - suffix);
  const middleB = b.slice(prefix, b.length - suffix);
  // For each old line of the middle: the new index it matches, or -1.
  const matched = commonLines(middleA, middleB);

  return (oldLine) => {
    const i = oldLine - 1;
    if (i < prefix) return { from: oldLine, to: oldLine };
    if (i >= a.length - suffix) {
      const line = oldLine + (b.length - a.length);
      return { from: line, to: line };
    }
    const k = i - prefix;
    if (matched && matched[k] !== -1) {
      const line = prefix + matched[k] + 1;
      return { from: line, to: line };
    }
    // A changed line: the new lines between the nearest matched neighbours.
    let before = -1;
    let after = middleB.length;
    if (matched) {
      for (let j = k - 1; j >= 0; j--) if (matched[j] !== -1) { before = matched[j]; break; }
      for (let j = k + 1; j < matched.length; j++) if (matched[j] !== -1) { after = matched[j]; break; }
    }
    return { from: prefix + before + 2, to: prefix + after };
  };
}

/** Myers' shortest edit script, as a map from old indices to new ones; null when the difference is too large. */
function commonLines(a: string[], b: string[]): number[] | null {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  if (max === 0) return [];
  const limit = Math.min(max, MAX_EDIT_DISTANCE);
  const offset = limit + 1;
  let v = new Int32Array(2 * limit + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, d, offset, a, b);
    }
    v = next;
  }
  return null;
}

function backtrack(trace: Int32Array[], distance: number, offset: number, a: string[], b: string[]): number[] {
  const matched = new Array<number>(a.length).fill(-1);
  let x = a.length;
  let y = b.length;
  for (let d = distance; d > 0; d--) {
    const v = trace[d];
    const k = x - y;
    const prevK = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? k + 1 : k - 1;
    const prevX = v[offset + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) matched[--x] = --y;
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) matched[--x] = --y;
  return matched;
}
