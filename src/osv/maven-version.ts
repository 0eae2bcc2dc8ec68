// Maven version ordering: a port of org.apache.maven.artifact.versioning.ComparableVersion as in Maven 3.9
// (identical to 3.8.7, which already carries MNG-7644). It is written here because no maintained JavaScript
// implementation exists: the npm package mvncmp is an unmaintained port of the Maven 3.0 algorithm and gives
// inconsistent answers (`2.5-1` and `2.5.SP1` each compare "less" than the other).
//
// A version is lower-cased and split into a list of items: numbers, qualifiers and sub-lists. `.` separates
// items; `-` and a switch between letters and digits start a sub-list (`1.0-rc-1` is [1, [rc, [1]]], and so
// is `1.0RC1`), as does a qualifier after another item when a digit or the end follows (`1.0.RC1`, MNG-7644)
// but not when a separator does (`1.sp.1` is [1, sp, 1]). Trailing "null" items (0, the release qualifier,
// empty lists) are dropped, so 1 = 1.0 = 1-0 = 1.ga. Items then compare pairwise, a missing one counting as
// null:
//   qualifier < sub-list < number;
//   qualifiers: alpha < beta < milestone < rc = cr < snapshot < "" = ga = final = release < sp < any other
//   (those lexically), with a, b and m standing for alpha, beta and milestone when a digit follows.
// Numbers are BigInts. Maven keeps them as int, long or BigInteger items by digit count (up to 9, up to 18,
// more) and orders those kinds before values; that only shows for runs of ten or more zeros, kept as `size`.
// Quirks of the original are kept, such as its order not being transitive around `1-0.alpha`. The one known
// difference: JavaScript lower-cases a Greek capital sigma at a word's end by other rules than Java does.

/** A number with Maven's item kind: 0 int, 1 long, 2 BigInteger. */
interface NumberItem {
  value: bigint;
  size: number;
}
type Item = NumberItem | string | Item[];

const QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
const ALIASES = new Map([['ga', ''], ['final', ''], ['release', ''], ['cr', 'rc']]);
const SHORT_QUALIFIERS = new Map([['a', 'alpha'], ['b', 'beta'], ['m', 'milestone']]);
const RELEASE = String(QUALIFIERS.indexOf(''));

// Java's Character.isDigit on one UTF-16 unit: any Unicode decimal digit, not only 0-9.
const isDigit = (c: string) => /\p{Nd}/u.test(c);

// Unicode lays out decimal digits in runs from zero to nine, so a digit's value is its place in its run.
function digitValue(c: string): string {
  const code = c.charCodeAt(0);
  let zero = code;
  while (isDigit(String.fromCharCode(zero - 1))) zero--;
  return String((code - zero) % 10);
}

function numberItem(digits: string): NumberItem {
  // Maven strips leading ASCII zeros, but keeps a string of zeros whole, and sizes the item by what is left.
  const stripped = /[^0]/.test(digits) ? digits.replace(/^0+/, '') : digits;
  const size = stripped.length <= 9 ? 0 : stripped.length <= 18 ? 1 : 2;
  return { value: BigInt(stripped.replace(/[^0-9]/g, digitValue)), size };
}

function qualifier(text: string, followedByDigit: boolean): string {
  const name = (followedByDigit && SHORT_QUALIFIERS.get(text)) || text;
  return ALIASES.get(name) ?? name;
}

const isNumber = (item: Item): item is NumberItem => typeof item === 'object' && !Array.isArray(item);

function isNull(item: Item): boolean {
  if (Array.isArray(item)) return item.length === 0;
  return isNumber(item) ? item.value === 0n : item === '';
}

function parse(version: string): Item[] {
  const text = version.toLowerCase();
  const root: Item[] = [];
  const lists = [root];
  let list = root;
  const subList = () => {
    const child: Item[] = [];
    list.push(child);
    lists.push((list = child));
  };
  const item = (digit: boolean, part: string): Item => (digit ? numberItem(part) : qualifier(part, false));

  let digit = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '.' || c === '-') {
      list.push(i === start ? numberItem('0') : item(digit, text.slice(start, i)));
      start = i + 1;
      if (c === '-') subList();
    } else if (isDigit(c)) {
      if (!digit && i > start) {
        if (list.length) subList(); // 1.0.0.X1 < 1.0.0-X2: `.X` counts as `-X`
        list.push(qualifier(text.slice(start, i), true));
        start = i;
        subList();
      }
      digit = true;
    } else {
      if (digit && i > start) {
        list.push(numberItem(text.slice(start, i)));
        start = i;
        subList();
      }
      digit = false;
    }
  }
  if (text.length > start) {
    if (!digit && list.length) subList();
    list.push(item(digit, text.slice(start)));
  }

  // Innermost list first: drop null items from the end, looking past sub-lists.
  for (const l of lists.reverse()) {
    for (let i = l.length - 1; i >= 0; i--) {
      if (isNull(l[i])) l.splice(i, 1);
      else if (!Array.isArray(l[i])) break;
    }
  }
  return root;
}

function comparableQualifier(q: string): string {
  const i = QUALIFIERS.indexOf(q);
  return i === -1 ? `${QUALIFIERS.length}-${q}` : String(i);
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** ComparableVersion's Item.compareTo: negative, zero or positive; `null` is a missing item. */
function compareItems(a: Item, b: Item | null): number {
  if (Array.isArray(a)) {
    if (b === null) {
      for (const item of a) {
        const order = compareItems(item, null);
        if (order !== 0) return order;
      }
      return 0;
    }
    if (!Array.isArray(b)) return isNumber(b) ? -1 : 1; // 1-1 < 1.1, 1-1 > 1-sp
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const order = i < a.length ? compareItems(a[i], i < b.length ? b[i] : null) : -compareItems(b[i], null);
      if (order !== 0) return order;
    }
    return 0;
  }
  if (isNumber(a)) {
    if (b === null) return a.value === 0n ? 0 : 1;
    if (!isNumber(b)) return 1; // 1.1 > 1-1, 1.1 > 1-sp
    if (a.size !== b.size) return a.size - b.size;
    return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
  }
  if (b === null) return compareText(comparableQualifier(a), RELEASE); // 1-rc < 1 < 1-sp
  if (typeof b !== 'string') return -1; // 1-sp < 1-1, 1-sp < 1.1
  return compareText(comparableQualifier(a), comparableQualifier(b));
}

/** Orders two Maven versions as ComparableVersion.compareTo does: negative, zero or positive. Never throws. */
export function compareMavenVersions(a: string, b: string): number {
  return Math.sign(compareItems(parse(a), parse(b)));
}

/** ComparableVersion.getCanonical: the parsed, normalized form, such as `1-rc-1` for `1.0.RC1`. */
export function canonicalMavenVersion(version: string): string {
  const format = (items: Item[]): string => {
    let text = '';
    for (const item of items) {
      if (text) text += Array.isArray(item) ? '-' : '.';
      text += Array.isArray(item) ? format(item) : isNumber(item) ? String(item.value) : item;
    }
    return text;
  };
  return format(parse(version));
}
