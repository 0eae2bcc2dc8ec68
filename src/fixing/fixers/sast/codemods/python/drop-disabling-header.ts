import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf, sameNode } from '../../../shared/syntax.ts';
import { refuse, type Codemod, type CodemodEdit } from '../codemod.ts';
import { argumentsOf, removeStatement, statementLines } from '../edit-kit.ts';

// A response header whose value turns a browser protection off (X-XSS-Protection: 0,
// Strict-Transport-Security: max-age=0) is no longer sent, so the browser's default applies: the statement
// sending it goes (`response.headers["X-XSS-Protection"] = "0"`, `self.send_header(…)`, `headers.append((…))`),
// or its pair or (name, value) element goes from the literal holding it. The protective value is not written
// instead: the legacy XSS filter is itself a risk, and a real HSTS max-age on a site not known to be HTTPS-only
// is the maintainer's call.

const HEADERS: Record<string, { disables: RegExp; dropped: string }> = {
  'x-xss-protection': {
    disables: /^\s*0\s*$/,
    dropped: 'X-XSS-Protection: 0 is no longer sent; browsers apply their default (current browsers have no XSS filter left to turn off)',
  },
  'strict-transport-security': {
    disables: /^\s*max-age\s*=\s*0\b/i,
    dropped:
      'Strict-Transport-Security: max-age=0 is no longer sent, so browsers keep the HTTPS-only policy an earlier response gave them; ' +
      'sending HSTS with a real max-age is for you to decide once the site is served over HTTPS only',
  },
};

/** The text of a plain literal (a string without interpolation, or a number), else null. */
function literalText(node: SgNode): string | null {
  if (kindOf(node) === 'integer') return node.text();
  if (kindOf(node) !== 'string' || node.children().some((c) => kindOf(c) === 'interpolation')) return null;
  return /^[rRuUbB]{0,2}(['"])([\s\S]*)\1$/.exec(node.text())?.[2] ?? null;
}

/** What removing one header takes: a whole statement, or an element of a literal. */
type Removal = { statement: SgNode } | { element: SgNode; container: SgNode };

interface Found {
  header: string;
  removal: Removal | { dynamic: string };
}

/** The header a string names (`"X-XSS-Protection"`), and how the code sending it with its value is removed. */
function headerAt(name: SgNode): Found | null {
  const header = literalText(name)?.trim().toLowerCase();
  if (!header || !(header in HEADERS)) return null;
  const parent = name.parent();
  if (!parent) return null;
  const sent = (value: SgNode | null | undefined, removal: () => Removal | { dynamic: string }): Found | null => {
    if (!value) return null;
    const text = literalText(value);
    if (text === null) return /['"]?\b0\b|max-age/i.test(value.text()) ? { header, removal: { dynamic: 'the header value is computed, not written as a literal' } } : null;
    return HEADERS[header].disables.test(text) ? { header, removal: removal() } : null;
  };

  // {"X-XSS-Protection": "0"}
  if (kindOf(parent) === 'pair' && sameNode(fieldOf(parent, 'key'), name)) {
    return sent(fieldOf(parent, 'value'), () => ({ element: parent, container: parent.parent()! }));
  }
  // response.headers["X-XSS-Protection"] = "0"
  if (kindOf(parent) === 'subscript' && sameNode(fieldOf(parent, 'subscript'), name)) {
    const assignment = parent.parent();
    if (!assignment || kindOf(assignment) !== 'assignment' || !sameNode(fieldOf(assignment, 'left'), parent)) return null;
    return sent(fieldOf(assignment, 'right'), () => wholeStatement(assignment));
  }
  // ("X-XSS-Protection", "0") in a list of headers, or appended to one
  if ((kindOf(parent) === 'tuple' || kindOf(parent) === 'list') && sameNode(parent.namedChildren()[0], name)) {
    const items = parent.namedChildren().filter((c) => kindOf(c) !== 'comment');
    if (items.length !== 2) return null;
    return sent(items[1], () => {
      const holder = parent.parent()!;
      if (['list', 'tuple', 'set'].includes(kindOf(holder))) return { element: parent, container: holder };
      if (kindOf(holder) === 'argument_list' && argumentsOf(holder.parent()!).length === 1) return wholeStatement(holder.parent()!);
      return { dynamic: 'the (name, value) pair is passed on in a way the fixer does not remove' };
    });
  }
  // self.send_header("X-XSS-Protection", "0"), response.headers.add(…), resp.set_header(…)
  if (kindOf(parent) === 'argument_list') {
    const args = argumentsOf(parent.parent()!);
    if (args.length !== 2 || !sameNode(args[0], name)) return null;
    return sent(args[1], () => wholeStatement(parent.parent()!));
  }
  return null;
}

/** The statement that is nothing but this call or assignment, which can go as a whole. */
function wholeStatement(node: SgNode): Removal | { dynamic: string } {
  const statement = node.parent();
  if (!statement || kindOf(statement) !== 'expression_statement' || statement.namedChildren().length !== 1) {
    return { dynamic: 'the header is sent inside a larger expression, which would change if it were taken out' };
  }
  return { statement };
}

function stringsIn(node: SgNode): SgNode[] {
  const found: SgNode[] = kindOf(node) === 'string' ? [node] : [];
  for (const child of node.children()) found.push(...stringsIn(child));
  return found;
}

/** The statements next to this one, before and after it without another statement between, that do nothing but send a disabling header. */
function headerNeighbours(statement: SgNode): SgNode[] {
  const siblings = statement.parent()!.namedChildren().filter((c) => kindOf(c) !== 'comment');
  const at = siblings.findIndex((c) => sameNode(c, statement));
  const onlySendsHeader = (node: SgNode) => {
    const found = stringsIn(node).map(headerAt).filter((f): f is Found => f !== null);
    return found.length > 0 && found.every((f) => 'statement' in f.removal && sameNode(f.removal.statement, node));
  };
  const neighbours: SgNode[] = [];
  for (let i = at - 1; i >= 0 && onlySendsHeader(siblings[i]!); i--) neighbours.push(siblings[i]!);
  for (let i = at + 1; i < siblings.length && onlySendsHeader(siblings[i]!); i++) neighbours.push(siblings[i]!);
  return neighbours;
}

/**
 * What goes when the statement goes: itself, or, when it is all an `if` does (no elif or else) and the
 * condition only reads values, that `if`, so no block is left empty; null when neither can go.
 */
function removable(statement: SgNode, removed: SgNode[]): SgNode | null {
  for (let current = statement; ; ) {
    const block = current.parent()!;
    const others = block.namedChildren().filter((c) => kindOf(c) !== 'comment' && !sameNode(c, current) && !removed.some((r) => sameNode(r, c)));
    if (kindOf(block) === 'module' || others.length) return current;
    const owner = block.parent();
    if (!owner || kindOf(owner) !== 'if_statement' || !sameNode(fieldOf(owner, 'consequence'), block)) return null;
    if (owner.namedChildren().some((c) => kindOf(c) === 'elif_clause' || kindOf(c) === 'else_clause')) return null;
    const condition = fieldOf(owner, 'condition');
    if (!condition || [condition, ...condition.findAll({ rule: { any: [{ kind: 'call' }, { kind: 'await' }, { kind: 'named_expression' }] } })].some((n) => ['call', 'await', 'named_expression'].includes(kindOf(n)))) return null;
    current = owner;
  }
}

/** Edits removing the elements from their literal, each with its line when it has one to itself, else with the comma beside it. */
function removeElements(container: SgNode, removed: SgNode[], text: string): CodemodEdit[] {
  const items = container.namedChildren().filter((c) => kindOf(c) !== 'comment');
  const gone = (item: SgNode) => removed.some((r) => r.range().start.index === item.range().start.index);
  const ownLine = (item: SgNode) => {
    const { start, end } = item.range();
    const lines = statementLines(text, start.index, end.index + (/^\s*,/.exec(text.slice(end.index))?.[0].length ?? 0));
    return lines.start !== start.index ? lines : null;
  };
  const lines = items.filter(gone).map(ownLine);
  if (lines.every(Boolean)) return lines.map((l) => ({ start: l!.start, end: l!.end, text: '' }));
  const edits: CodemodEdit[] = [];
  for (let i = 0; i < items.length; ) {
    if (!gone(items[i])) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < items.length && gone(items[j + 1])) j++;
    if (j + 1 < items.length) edits.push({ start: items[i].range().start.index, end: items[j + 1].range().start.index, text: '' });
    else if (i > 0) edits.push({ start: items[i - 1].range().end.index, end: items[j].range().end.index, text: '' });
    else {
      // Every element goes: the literal is left empty, a trailing comma with them.
      const after = /^\s*,/.exec(text.slice(items[j].range().end.index))?.[0].length ?? 0;
      edits.push({ start: items[i].range().start.index, end: items[j].range().end.index + after, text: '' });
    }
    i = j + 1;
  }
  return edits;
}

export const pythonDropDisablingHeader: Codemod = {
  name: 'python/drop-disabling-header',
  rules: ['python.lang.headers.browser-protection-disabled'],
  rewrite({ node, text }) {
    const found = stringsIn(node!).map(headerAt).filter((f): f is Found => f !== null);
    if (!found.length) return refuse('the header name is not a plain string beside its value, so the fixer cannot tell what sends it');
    const dynamic = found.find((f) => 'dynamic' in f.removal);
    if (dynamic) return refuse((dynamic.removal as { dynamic: string }).dynamic);
    const removals = found.map((f) => f.removal as Removal);
    const edits: CodemodEdit[] = [];
    const statements = removals.filter((r): r is { statement: SgNode } => 'statement' in r).map((r) => r.statement);
    // The statements beside it that only send another such header go too: the fixes of neighbouring
    // findings then make one same change, not two changes of adjacent lines that would not merge.
    for (const statement of [...statements]) for (const next of headerNeighbours(statement)) if (!statements.some((s) => sameNode(s, next))) statements.push(next);
    const removed: SgNode[] = [];
    for (const statement of statements) {
      const target = removable(statement, statements);
      if (!target) return refuse('the statement sending the header is the only one in its block, and the block cannot be left empty or removed with what holds it');
      if (!/^[ \t]*$/.test(text.slice(text.lastIndexOf('\n', target.range().start.index - 1) + 1, target.range().start.index))) {
        return refuse('the statement sending the header shares its line with other code');
      }
      if (!removed.some((r) => sameNode(r, target))) removed.push(target);
    }
    edits.push(...removed.map((statement) => removeStatement(statement, text)));
    const guarded = removed.some((r) => kindOf(r) === 'if_statement');
    const byContainer = new Map<number, { container: SgNode; elements: SgNode[] }>();
    for (const removal of removals) {
      if (!('element' in removal)) continue;
      const key = removal.container.range().start.index;
      const entry = byContainer.get(key) ?? { container: removal.container, elements: [] };
      entry.elements.push(removal.element);
      byContainer.set(key, entry);
    }
    for (const { container, elements } of byContainer.values()) edits.push(...removeElements(container, elements, text));
    const sent = [...found, ...statements.flatMap((s) => stringsIn(s).map(headerAt)).filter((f): f is Found => f !== null)];
    const dropped = [...new Set(sent.map((f) => HEADERS[f.header].dropped))];
    const condition = guarded ? ' The if statement that only decided whether to send it goes with it.' : '';
    return { edits, note: `${dropped.join('. ')}.${condition}` };
  },
};
