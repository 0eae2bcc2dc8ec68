import type { SgNode } from '@ast-grep/napi';
import type { TaintSyntax } from '../../languages/index.ts';
import type { Constant } from '../../languages/language.ts';
import type { SastRule, TaintProfile } from './rule-set.ts';

// Taint tracking over one file's syntax tree: values from sources (request data, input(), argv, env)
// flow through assignments, string building, containers and calls, within a function and across the
// functions of the file through per-parameter summaries, until a sanitizer stops them or a sink
// receives them. Statements are taken in source order with a second pass for loops; a re-assignment
// from a clean value clears a variable.

export interface TaintHit {
  rule: SastRule;
  sink: SgNode;
}

interface FunctionInfo {
  node: SgNode;
  name: string | undefined;
  params: string[];
  isHandler: boolean;
}

/** What taint in one parameter of a function does: reach its return value, reach sinks. */
interface ParamSummary {
  returns: boolean;
  sinks: TaintHit[];
}

type Event =
  | { at: number; kind: 'bind'; node: SgNode; target: SgNode; value: SgNode }
  | { at: number; kind: 'sink'; node: SgNode; rule: SastRule; focus: SgNode }
  | { at: number; kind: 'call'; node: SgNode }
  | { at: number; kind: 'guard'; condition: SgNode }
  | { at: number; kind: 'store'; node: SgNode; target: string; value: SgNode };

/** Identifier-like words of a text: every name an expression mentions is one. */
const WORDS = /[\p{L}_$][\p{L}\p{N}_$]*/gu;

/** A node's grammar kind as a plain string. */
const kindOf = (node: SgNode): string => String(node.kind());

/** Hits are told apart by rule and sink, as the rules of a group are traced together. */
const sinkIds = new WeakMap<SgNode, number>();

/** A sink node's id, asked of the native tree once per node object. */
const sinkId = (sink: SgNode): number => {
  let id = sinkIds.get(sink);
  if (id === undefined) sinkIds.set(sink, (id = sink.id()));
  return id;
};

const hitKey = (rule: SastRule, sink: SgNode): string => `${rule.id}\0${sinkId(sink)}`;

/** What the file's combined rule match found for the taint rules (see analyze.ts). */
export interface TaintMatches {
  sourceIds: Set<number>;
  /** Where each source starts in the text, in ascending order. */
  sourceStarts: number[];
  sanitizerIds: Set<number>;
  /** Per rule id, the nodes its own sanitizers match. */
  ruleSanitizerIds: Map<string, RuleSanitizerNodes>;
  /** Each sink match, in rule order, with the node whose taint counts. */
  sinkMatches: { rule: SastRule; node: SgNode; focus: SgNode }[];
  /** Calls that register request handlers. */
  registrationCalls: SgNode[];
}

/**
 * The nodes a rule's own sanitizers match in a file: those found one by one (`ids`), and, for a sanitizer that
 * names what it is not (every call but those of a few names), every node of its kind but the ones it excepts.
 */
export interface RuleSanitizerNodes {
  ids: Set<number>;
  allOfKind: { kind: string; except: Set<number> }[];
}

const NO_SANITIZER_NODES: RuleSanitizerNodes = { ids: new Set(), allOfKind: [] };

/** Rules whose sanitizers match the same nodes propagate taint alike: this key tells them apart. */
function sanitizerKey(nodes: RuleSanitizerNodes): string {
  const ids = (set: Set<number>) => [...set].sort((a, b) => a - b).join(',');
  return [ids(nodes.ids), ...nodes.allOfKind.map((k) => `${k.kind}-${ids(k.except)}`).sort()].join(';');
}

const cleans = (nodes: RuleSanitizerNodes, id: number, kind: string): boolean =>
  nodes.ids.has(id) || nodes.allOfKind.some((k) => k.kind === kind && !k.except.has(id));

export class TaintAnalyzer {
  private readonly root: SgNode;
  private readonly syntax: TaintSyntax;
  private readonly profile: TaintProfile;
  private readonly rules: SastRule[];
  private readonly sourceIds: Set<number>;
  private readonly sourceStarts: number[];
  private readonly sanitizerIds: Set<number>;
  private readonly ruleSanitizerIds: Map<string, RuleSanitizerNodes>;
  private readonly functions: FunctionInfo[] = [];
  /** The file's functions by name; a call by name is summarized from the last one of that name, as in the text. */
  private readonly byName = new Map<string, FunctionInfo>();
  /**
   * Per-parameter summaries for the rules being traced, made when a call first passes that parameter tainted
   * data: most calls never do.
   */
  private summaries = new Map<FunctionInfo, ParamSummary[]>();
  /**
   * Names of the file's functions that return request data of their own (`def user_input(request): return
   * request.GET.get("q")`), for the rules being traced: made on first need.
   */
  private requestReturners: Set<string> | undefined;
  /** Functions whose summary is being made: a call to one from within reads as an unknown function. */
  private readonly summarizing = new Set<FunctionInfo>();
  private readonly sinkMatches: TaintMatches['sinkMatches'];
  private readonly registrationCalls: SgNode[];
  /**
   * The rules being traced together: rules whose own sanitizers match the same nodes of this file propagate
   * taint alike, so one pass serves them all. Their sanitizers (`cleaners`) apply on top of the language's.
   */
  private active = new Set<SastRule>();
  private cleaners = NO_SANITIZER_NODES;
  private eventsOfScope = new Map<number | undefined, Event[]>();
  // Every SgNode the native binding hands out keeps native memory until the garbage collector finds it, which
  // it seldom does on its own; the walks below are repeated per rule, function and parameter, so their nodes
  // are looked up once per file and reused.
  /** The file's functions in the order of the text, each with the innermost function around it (`outer`). */
  private spans: { node: SgNode; id: number; start: number; end: number; outer: number }[] = [];
  private readonly owners = new Map<number, SgNode | undefined>();
  private readonly fields = new Map<number, Map<string, SgNode | null>>();
  private readonly namedChildren = new Map<number, SgNode[]>();
  private scopeEvents: Map<number | undefined, Event[]> | undefined;
  private readonly bound = new Map<number, string[]>();
  private readonly callees = new Map<number, string | undefined>();
  private readonly argLists = new Map<number, SgNode[]>();
  private returnNodes: Map<number | undefined, SgNode[]> | undefined;
  private readonly regions = new Map<number, number>();
  private readonly regionSpans = new Map<number, [number, number]>();
  /** Per scope, its statements that a constant condition may decide (see deadSpans). */
  private branchNodes = new Map<number | undefined, SgNode[]>();
  private readonly kinds = new WeakMap<SgNode, string>();
  /** Per expression evaluated from a run, the words of its text and where it lies (see mayCarry). */
  private readonly mentions = new Map<number, { words: Set<string>; start: number; end: number }>();
  private readonly ids = new WeakMap<SgNode, number>();
  private readonly entryPoints: ReadonlySet<string>;

  /**
   * `entryPoints`: names of functions whose parameters carry request data though nothing in the file says
   * so (a whole-program analysis saw a handler elsewhere pass it to them).
   */
  constructor(root: SgNode, syntax: TaintSyntax, profile: TaintProfile, rules: SastRule[], matches: TaintMatches, entryPoints: ReadonlySet<string> = new Set()) {
    this.root = root;
    this.entryPoints = entryPoints;
    this.syntax = syntax;
    this.profile = profile;
    this.rules = rules;
    this.sourceIds = matches.sourceIds;
    this.sourceStarts = matches.sourceStarts;
    this.sanitizerIds = matches.sanitizerIds;
    this.ruleSanitizerIds = matches.ruleSanitizerIds;
    this.sinkMatches = matches.sinkMatches;
    this.registrationCalls = matches.registrationCalls;
    this.collectFunctions();
  }

  /** A node's id, asked of the native tree once per node object. */
  private idOf(node: SgNode): number {
    let id = this.ids.get(node);
    if (id === undefined) this.ids.set(node, (id = node.id()));
    return id;
  }

  /** A node's kind, asked of the native tree once per node object. */
  private kindOf(node: SgNode): string {
    let kind = this.kinds.get(node);
    if (kind === undefined) this.kinds.set(node, (kind = kindOf(node)));
    return kind;
  }

  private collectFunctions() {
    const kinds = this.syntax.functions.map((kind) => ({ kind }));
    const nodes = this.root.findAll({ rule: { any: kinds } as never });
    // findAll walks the tree in pre-order: by start, an enclosing function before the ones inside it.
    const open: number[] = [];
    this.spans = nodes.map((node, index) => {
      const r = node.range();
      const [start, end] = [r.start.index, r.end.index];
      while (open.length && this.spans[open.at(-1)!].end < end) open.pop();
      const span = { node, id: node.id(), start, end, outer: open.at(-1) ?? -1 };
      this.spans[index] = span;
      open.push(index);
      return span;
    });
    const handlers = new Set<number>();
    for (const call of this.registrationCalls) {
      for (const fn of call.findAll({ rule: { any: kinds } as never })) {
        // The handler itself, not the callbacks nested in it (rows.forEach(row => …) gets no request data).
        const parent = this.owner(fn);
        if (!parent || !this.within(parent, call)) handlers.add(fn.id());
      }
    }
    for (const node of nodes) {
      const name = node.field('name')?.text();
      const decorated = node.parent() && this.syntax.decorated.includes(this.kindOf(node.parent()!)) ? node.parent()!.text().split('\n').filter((l) => l.trim().startsWith('@')) : [];
      const isHandler =
        handlers.has(node.id()) ||
        decorated.some((d) => this.profile.handlerDecorators.some((re) => re.test(d.trim()))) ||
        (!!name && this.entryPoints.has(name) && !this.owner(node));
      const info: FunctionInfo = { node, name, params: this.paramNames(node), isHandler };
      this.functions.push(info);
      if (name) this.byName.set(name, info);
    }
  }

  private paramNames(fn: SgNode): string[] {
    const params = fn.field('parameters') ?? fn.field('parameter');
    if (!params) return [];
    if (this.syntax.identifiers.includes(this.kindOf(params))) return [params.text()];
    return params.namedChildren().map((p) => {
      if (this.syntax.identifiers.includes(this.kindOf(p))) return p.text();
      const inner = p.field('name') ?? p.field('pattern') ?? p.find({ rule: { kind: this.syntax.identifiers[0] } as never });
      return inner?.text() ?? p.text();
    });
  }

  /** The innermost function containing a node, or undefined at module level. */
  private owner(node: SgNode): SgNode | undefined {
    const id = this.idOf(node);
    if (this.owners.has(id)) return this.owners.get(id);
    const r = node.range();
    const [start, end] = [r.start.index, r.end.index];
    // Functions nest, so the innermost one around the node encloses the last function starting at or
    // before it, or is that one: walk out from there.
    let low = 0;
    let high = this.spans.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (this.spans[middle].start <= start) low = middle + 1;
      else high = middle - 1;
    }
    let best: (typeof this.spans)[number] | undefined;
    for (let at = high; at >= 0; at = this.spans[at].outer) {
      const f = this.spans[at];
      // a node spanning exactly a function's text is the function or a wrapper around it, not inside it
      if (f.id === id || f.end < end || (f.start === start && f.end === end)) continue;
      best = f;
      break;
    }
    this.owners.set(id, best?.node);
    return best?.node;
  }

  private field(node: SgNode, name: string): SgNode | null {
    const id = this.idOf(node);
    let known = this.fields.get(id);
    if (!known) this.fields.set(id, (known = new Map()));
    if (!known.has(name)) known.set(name, node.field(name));
    return known.get(name)!;
  }

  private named(node: SgNode): SgNode[] {
    const id = this.idOf(node);
    let children = this.namedChildren.get(id);
    if (!children) this.namedChildren.set(id, (children = node.namedChildren()));
    return children;
  }

  private calleeName(call: SgNode): string | undefined {
    const id = this.idOf(call);
    if (this.callees.has(id)) return this.callees.get(id);
    let name: string | undefined;
    const callee = this.field(call, this.syntax.calls.callee);
    if (callee && this.syntax.identifiers.includes(this.kindOf(callee))) name = callee.text();
    else if (callee) {
      const attr = this.field(callee, 'attribute') ?? this.field(callee, 'property');
      const object = this.field(callee, 'object');
      if (attr && object && this.syntax.receivers.includes(object.text())) name = attr.text();
    }
    this.callees.set(id, name);
    return name;
  }

  private args(call: SgNode): SgNode[] {
    const id = this.idOf(call);
    let args = this.argLists.get(id);
    if (!args) {
      const list = this.field(call, this.syntax.calls.args);
      this.argLists.set(id, (args = list ? this.named(list).filter((c) => this.kindOf(c) !== 'comment') : []));
    }
    return args;
  }

  /**
   * Whether an expression can carry tainted data at all: a source lies in it, or a word of its text is the
   * name of a tainted variable. Only what it holds can taint an expression, so this look, made once however
   * often the expression is evaluated, answers most of them before tainted() walks their trees.
   */
  private mayCarry(node: SgNode, state: Set<string>): boolean {
    const id = this.idOf(node);
    let mention = this.mentions.get(id);
    if (!mention) {
      const r = node.range();
      this.mentions.set(id, (mention = { words: new Set(node.text().match(WORDS)), start: r.start.index, end: r.end.index }));
    }
    for (const name of state) if (mention.words.has(name)) return true;
    for (const name of this.returnersOfRequestData()) if (mention.words.has(name)) return true;
    return this.sourceWithin(mention.start, mention.end);
  }

  /** Whether a source starts between two offsets of the text. */
  private sourceWithin(start: number, end: number): boolean {
    const starts = this.sourceStarts;
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (starts[middle] < start) low = middle + 1;
      else high = middle;
    }
    return low < starts.length && starts[low] <= end;
  }

  /** The functions whose return value is request data whatever their arguments (see requestReturners). */
  private returnersOfRequestData(): Set<string> {
    if (this.requestReturners) return this.requestReturners;
    const found = (this.requestReturners = new Set<string>());
    for (const [name, fn] of this.byName) {
      const r = fn.node.range();
      if (!this.sourceWithin(r.start.index, r.end.index)) continue;
      this.summarizing.add(fn);
      try {
        if (this.run(fn.node, new Set()).returns) found.add(name);
      } finally {
        this.summarizing.delete(fn);
      }
    }
    return found;
  }

  /** tainted(), for an expression a run evaluates: most answer false at mayCarry. */
  private carries(node: SgNode, state: Set<string>): boolean {
    return this.mayCarry(node, state) && this.tainted(node, state);
  }

  /** Whether an expression carries tainted data, given the tainted variable names. */
  private tainted(node: SgNode, state: Set<string>): boolean {
    const id = this.idOf(node);
    const kind = this.kindOf(node);
    if (this.sanitizerIds.has(id) || cleans(this.cleaners, id, kind)) return false;
    if (this.sourceIds.has(id)) return true;
    if (this.syntax.identifiers.includes(kind)) return state.has(node.text());
    if (this.syntax.functions.includes(kind)) return false;
    if (kind === this.syntax.calls.kind) {
      const read = this.readKey(node);
      if (read && state.has(`${read.base}[]`)) return read.keys.some((key) => state.has(`${read.base}[${key}]`));
      const fn = this.summarizedFunction(node);
      if (fn) return this.returnersOfRequestData().has(fn.name!) || this.args(node).some((arg, i) => this.tainted(this.argValue(arg), state) && this.summaryOf(fn, i).returns);
      const callee = this.field(node, this.syntax.calls.callee);
      const receiver = callee ? this.field(callee, 'object') : null;
      if (receiver && this.tainted(receiver, state)) return true;
      return this.args(node).some((arg) => this.tainted(this.argValue(arg), state));
    }
    const keyed = this.constantKey(node);
    if (keyed && state.has(`${keyed.base}[]`)) return state.has(`${keyed.base}[${keyed.key}]`);
    if (this.syntax.members.includes(kind)) {
      const object = this.field(node, 'object');
      return object ? this.tainted(object, state) : false;
    }
    if (this.syntax.namedValues.includes(kind)) {
      const value = this.field(node, 'value');
      return value ? this.tainted(value, state) : false;
    }
    const condition = this.syntax.conditionals?.[kind];
    if (condition !== undefined) {
      const children = this.named(node);
      const branches = children.filter((_, i) => i !== condition);
      const value = this.constantValue(children[condition], this.owner(node));
      const taken = value === undefined ? branches : [branches[value ? 0 : 1]];
      return taken.some((branch) => branch && this.tainted(branch, state));
    }
    return this.named(node).some((child) => this.tainted(child, state));
  }

  /**
   * `m["k"]` on a plain name with a constant string key, when the language tracks such entries apart. In the
   * taint state, `m[]` marks a container tainted only entry by entry, and `m[<key>]` each tainted entry.
   */
  private constantKey(node: SgNode): { base: string; key: string } | undefined {
    const keys = this.syntax.constantKeys;
    if (!keys || !this.syntax.subscripts.includes(this.kindOf(node))) return undefined;
    const base = this.field(node, 'value') ?? this.field(node, 'object');
    const index = this.field(node, keys.index);
    if (!base || !index || !this.syntax.identifiers.includes(this.kindOf(base)) || !keys.strings.includes(this.kindOf(index))) return undefined;
    if (this.named(index).some((part) => this.kindOf(part) === 'interpolation')) return undefined;
    return { base: base.text(), key: index.text() };
  }

  /** A condition's constant value in `scope`, its names looked up where each is bound once to a constant. */
  private constantValue(condition: SgNode | undefined, scope: SgNode | undefined): Constant | undefined {
    const fold = this.syntax.constantBranches?.fold;
    if (!fold || !condition) return undefined;
    return fold(condition, this.constantsOf(scope, 0));
  }

  /** Looks up names bound once in `scope` to a constant, through a few such names (`s = "ABC"; c = s[1]`). */
  private constantsOf(scope: SgNode | undefined, depth: number): (name: string) => Constant | undefined {
    return (name) => {
      const fold = this.syntax.constantBranches?.fold;
      if (!fold || depth > 4) return undefined;
      const binds = this.scopeEventsOf(scope).filter((e) => e.kind === 'bind' && this.boundNames(e.target).includes(name));
      if (binds.length !== 1 || binds[0].kind !== 'bind' || !this.syntax.identifiers.includes(this.kindOf(binds[0].target))) return undefined;
      return fold(binds[0].value, this.constantsOf(scope, depth + 1));
    };
  }

  /** The spans of a scope's branches that a constant condition never takes. */
  private deadSpans(scopeId: number | undefined, scope: SgNode | undefined): [number, number][] {
    const branches = this.syntax.constantBranches;
    if (!branches) return [];
    if (!this.scopeEvents) this.walkScopes();
    const spans: [number, number][] = [];
    for (const statement of this.branchNodes.get(scopeId) ?? []) {
      for (const node of branches.dead(statement, this.constantsOf(scope, 0))) spans.push([node.range().start.index, node.range().end.index]);
    }
    return spans;
  }

  /** The innermost branch block around a node within `fn`, or `fn` itself (its id; -1 for the module). */
  private regionOf(node: SgNode, fn: SgNode | undefined): number {
    const key = this.idOf(node);
    const known = this.regions.get(key);
    if (known !== undefined) return known;
    const stop = fn ? this.idOf(fn) : -1;
    let region = stop;
    for (let at = node.parent(); at; at = at.parent()) {
      const id = this.idOf(at);
      if (id === stop) break;
      if (this.syntax.branchBlocks!.includes(this.kindOf(at)) && !(fn && this.field(fn, 'body')?.id() === id)) {
        region = id;
        this.regionSpans.set(id, [at.range().start.index, at.range().end.index]);
        break;
      }
    }
    this.regions.set(key, region);
    return region;
  }

  /** Whether region `inner` lies within region `outer` (a function's own region holds all of its blocks). */
  private regionWithin(inner: number, outer: number): boolean {
    if (inner === outer) return true;
    const a = this.regionSpans.get(inner);
    const b = this.regionSpans.get(outer);
    return !!a && !!b && a[0] >= b[0] && a[1] <= b[1];
  }

  /** For a name bound once in `scope` to a call on one plain name (`u = urlparse(raw)`), that name. */
  private madeFrom(name: string, scope: SgNode | undefined): string | undefined {
    const binds = this.scopeEventsOf(scope).filter((e) => e.kind === 'bind' && this.boundNames(e.target).includes(name));
    const value = binds.length === 1 && binds[0].kind === 'bind' ? binds[0].value : undefined;
    if (!value || this.kindOf(value) !== this.syntax.calls.kind) return undefined;
    const args = this.args(value);
    return args.length === 1 && this.syntax.identifiers.includes(this.kindOf(args[0])) ? args[0].text() : undefined;
  }

  /**
   * `m.set("section", "key", value)` and the like: the keys are every argument but the last, all constant
   * strings; the entry is tracked as `m["k"] = value` is.
   */
  private storedKey(call: SgNode): { key: string; value: SgNode } | undefined {
    const keys = this.syntax.constantKeys;
    const method = this.field(call, this.syntax.calls.callee)?.field('attribute')?.text();
    if (!keys || !method || !['set', 'put', 'setdefault'].includes(method)) return undefined;
    const args = this.args(call);
    const lead = args.slice(0, -1);
    if (!lead.length || !lead.every((a) => keys.strings.includes(this.kindOf(a)) && !this.named(a).some((p) => this.kindOf(p) === 'interpolation'))) return undefined;
    return { key: lead.map((a) => a.text()).join(','), value: args.at(-1)! };
  }

  /**
   * `m.get("k")`, `m.get("k", "default")`, `conf.get("section", "key")`: the entries storedKey or `m["k"] = …`
   * may have made, for a container tracked by entry. Only constant strings: anything else reads as a whole.
   */
  private readKey(node: SgNode): { base: string; keys: string[] } | undefined {
    const keys = this.syntax.constantKeys;
    if (!keys || this.kindOf(node) !== this.syntax.calls.kind) return undefined;
    const callee = this.field(node, this.syntax.calls.callee);
    const object = callee?.field('object');
    if (!object || callee?.field('attribute')?.text() !== 'get' || !this.syntax.identifiers.includes(this.kindOf(object))) return undefined;
    const args = this.args(node);
    if (!args.length || !args.every((a) => keys.strings.includes(this.kindOf(a)) && !this.named(a).some((p) => this.kindOf(p) === 'interpolation'))) return undefined;
    return { base: object.text(), keys: [args[0].text(), args.map((a) => a.text()).join(',')] };
  }

  /** Forgets a name and the entries tracked under it. */
  private forget(state: Set<string>, name: string) {
    state.delete(name);
    for (const entry of state) if (entry.startsWith(`${name}[`)) state.delete(entry);
  }

  private argValue(arg: SgNode): SgNode {
    return this.syntax.keywordArguments.includes(this.kindOf(arg)) ? (this.field(arg, 'value') ?? arg) : arg;
  }

  /** Names bound by an assignment target: plain names, tuple and destructuring patterns. */
  private boundNames(target: SgNode): string[] {
    const id = this.idOf(target);
    let names = this.bound.get(id);
    if (!names) this.bound.set(id, (names = this.findBoundNames(target)));
    return names;
  }

  private findBoundNames(target: SgNode): string[] {
    if (this.syntax.identifiers.includes(this.kindOf(target))) return [target.text()];
    if ([...this.syntax.members, ...this.syntax.subscripts].includes(this.kindOf(target))) {
      // x.y = tainted / x[i] = tainted: the container becomes tainted
      let base: SgNode | null = target;
      while (base && !this.syntax.identifiers.includes(this.kindOf(base))) base = base.field('object') ?? base.field('value') ?? base.child(0);
      return base ? [base.text()] : [];
    }
    return target
      .findAll({ rule: { any: this.syntax.identifiers.map((kind) => ({ kind })) } as never })
      .filter((n) => !['property', 'attribute', 'key'].some((f) => n.parent()?.field(f)?.id() === n.id()))
      .map((n) => n.text());
  }

  /** A scope's events for the rules being traced; they change only with those rules. */
  private events(fn: SgNode | undefined): Event[] {
    const fnId = fn ? this.idOf(fn) : undefined;
    let events = this.eventsOfScope.get(fnId);
    if (!events) this.eventsOfScope.set(fnId, (events = this.findEvents(fn, fnId)));
    return events;
  }

  private findEvents(fn: SgNode | undefined, fnId: number | undefined): Event[] {
    const scope = fn ?? this.root;
    const inScope = (n: SgNode) => { const o = this.owner(n); return (o ? this.idOf(o) : undefined) === fnId; };
    const events: Event[] = [...this.scopeEventsOf(fn)];
    for (const sink of this.sinkMatches) {
      if (this.active.has(sink.rule) && inScope(sink.node) && (!fn || this.within(sink.node, scope))) {
        events.push({ at: sink.node.range().start.index, kind: 'sink', node: sink.node, rule: sink.rule, focus: sink.focus });
      }
    }
    const dead = this.deadSpans(fnId, fn);
    const live = (event: Event) => {
      const at = (event.kind === 'guard' ? event.condition : event.node).range().start.index;
      return !dead.some(([start, end]) => at >= start && at < end);
    };
    return (dead.length ? events.filter(live) : events).sort((a, b) => a.at - b.at);
  }

  /** A scope's bindings and calls to the file's own functions, which do not depend on the rule traced. */
  private scopeEventsOf(fn: SgNode | undefined): Event[] {
    if (!this.scopeEvents) this.walkScopes();
    return this.scopeEvents!.get(fn ? this.idOf(fn) : undefined) ?? [];
  }

  /** The return statements of a function, its own and not those of functions nested in it. */
  private returnsOf(fn: SgNode): SgNode[] {
    if (!this.returnNodes) this.walkScopes();
    return this.returnNodes!.get(this.idOf(fn)) ?? [];
  }

  /**
   * Every scope's bindings, calls to the file's own functions and returns, from one walk of the tree; the
   * events of a scope list its bindings kind by kind, then its calls, each in the order of the text.
   */
  private walkScopes(): void {
    const bindingKinds = Object.keys(this.syntax.bindings);
    const guards = this.syntax.guards;
    const branches = this.syntax.constantBranches;
    const extra = [...(guards ? [guards.kind] : []), ...(branches?.statements ?? [])];
    const kinds = [...new Set([...bindingKinds, ...this.syntax.returns, ...extra])].filter((kind) => kind !== this.syntax.calls.kind);
    const scopes = new Map<number | undefined, { binds: Event[][]; calls: Event[] }>();
    const returns = new Map<number | undefined, SgNode[]>();
    const rules: object[] = kinds.map((kind) => ({ kind }));
    const calls = this.ownCallRule();
    if (calls) rules.push(calls);
    const stores = this.syntax.storeMethods?.length
      ? new RegExp(`\\.\\s*(?:${this.syntax.storeMethods.join('|')})$`)
      : undefined;
    if (stores) rules.push({ kind: this.syntax.calls.kind, has: { field: this.syntax.calls.callee, regex: stores.source } });
    for (const node of this.root.findAll({ rule: { any: rules } as never })) {
      const kind = this.kindOf(node);
      const owner = this.owner(node);
      const key = owner ? this.idOf(owner) : undefined;
      if (this.syntax.returns.includes(kind)) {
        if (!returns.has(key)) returns.set(key, []);
        returns.get(key)!.push(node);
        continue;
      }
      let scope = scopes.get(key);
      if (!scope) scopes.set(key, (scope = { binds: bindingKinds.map(() => []), calls: [] }));
      const binding = bindingKinds.indexOf(kind);
      if (branches?.statements.includes(kind)) {
        if (!this.branchNodes.has(key)) this.branchNodes.set(key, []);
        this.branchNodes.get(key)!.push(node);
      }
      if (guards && kind === guards.kind) {
        const condition = node.field(guards.condition);
        const last = node.field(guards.body)?.namedChildren().filter((c) => this.kindOf(c) !== 'comment').at(-1);
        if (condition && last && guards.exits.includes(this.kindOf(last))) scope.calls.push({ at: node.range().end.index, kind: 'guard', condition });
      } else if (binding >= 0) {
        const fields = this.syntax.bindings[kind];
        const target = node.field(fields.target);
        const value = fields.value ? node.field(fields.value) : node.child(0);
        if (target && value) scope.binds[binding].push({ at: node.range().end.index, kind: 'bind', node, target, value });
      } else {
        const callee = this.field(node, this.syntax.calls.callee);
        const object = callee ? this.field(callee, 'object') : null;
        const list = this.field(node, this.syntax.calls.args);
        if (stores && callee && stores.test(callee.text()) && object && list && this.syntax.identifiers.includes(this.kindOf(object)) && !this.syntax.receivers.includes(object.text())) {
          scope.calls.push({ at: node.range().end.index, kind: 'store', node, target: object.text(), value: list });
        }
        // Calls to the file's own functions: their summaries may reach sinks.
        const name = this.calleeName(node);
        if (name && this.byName.has(name)) scope.calls.push({ at: node.range().start.index, kind: 'call', node });
      }
    }
    this.scopeEvents = new Map([...scopes].map(([key, scope]) => [key, [...scope.binds.flat(), ...scope.calls]]));
    this.returnNodes = returns;
  }

  /**
   * Calls that may call one of the file's functions by name (`f(…)`, `self.f(…)`), for the tree walk to find
   * natively rather than hand every call of the file over; calleeName has the last word on each.
   */
  private ownCallRule(): object | undefined {
    if (!this.byName.size) return undefined;
    const alternatives = (words: Iterable<string>) => [...words].map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
    const receiver = this.syntax.receivers.length ? `(?:(?:${alternatives(this.syntax.receivers)})\\s*\\??\\.\\s*)?` : '';
    return { kind: this.syntax.calls.kind, has: { field: this.syntax.calls.callee, regex: `^${receiver}(?:${alternatives(this.byName.keys())})$` } };
  }

  private within(node: SgNode, scope: SgNode): boolean {
    const r = node.range();
    const s = scope.range();
    return r.start.index >= s.start.index && r.end.index <= s.end.index;
  }

  /** Runs one function body from an initial taint state; returns sink hits and the final state. */
  private run(fn: SgNode | undefined, initial: Set<string>): { hits: TaintHit[]; state: Set<string>; returns: boolean } {
    const events = this.events(fn);
    const state = new Set(initial);
    // Where each tainted name was last tainted: the branch block around that binding (see branchBlocks).
    const origins = new Map<string, number>();
    const whole = fn ? this.idOf(fn) : -1;
    const hits = new Map<string, TaintHit>();
    for (let pass = 0; pass < 2; pass++) {
      for (const event of events) {
        if (event.kind === 'bind') {
          const isTainted = this.carries(event.value, state);
          const augmented = this.kindOf(event.node).startsWith('augmented');
          const keyed = augmented ? undefined : this.constantKey(event.target);
          if (keyed) {
            const entry = `${keyed.base}[${keyed.key}]`;
            if (isTainted && !state.has(keyed.base)) state.add(keyed.base).add(`${keyed.base}[]`);
            if (isTainted) state.add(entry);
            else state.delete(entry);
            continue;
          }
          const region = this.syntax.branchBlocks ? this.regionOf(event.node, fn) : whole;
          for (const name of this.boundNames(event.target)) {
            if (isTainted) {
              state.add(name).delete(`${name}[]`);
              origins.set(name, region);
            } else if (!augmented && this.syntax.identifiers.includes(this.kindOf(event.target))) {
              if (region === whole || this.regionWithin(origins.get(name) ?? whole, region)) this.forget(state, name);
            }
          }
        } else if (event.kind === 'store') {
          const keyed = this.storedKey(event.node);
          if (keyed) {
            const entry = `${event.target}[${keyed.key}]`;
            const isTainted = this.carries(keyed.value, state);
            if (isTainted && !state.has(event.target)) state.add(event.target).add(`${event.target}[]`);
            if (isTainted) state.add(entry);
            else state.delete(entry);
          } else if (this.carries(event.value, state)) {
            state.add(event.target).delete(`${event.target}[]`);
            origins.set(event.target, this.syntax.branchBlocks ? this.regionOf(event.node, fn) : whole);
          }
        } else if (event.kind === 'guard') {
          const text = event.condition.text();
          for (const name of new Set(text.match(WORDS))) {
            if (!this.syntax.guards!.validates(text, name)) continue;
            this.forget(state, name);
            // a check of what a call made of one value (parsed = urlparse(url)) checks that value
            const made = this.madeFrom(name, fn);
            if (made) this.forget(state, made);
          }
        } else if (event.kind === 'sink') {
          if (this.carries(event.focus, state)) hits.set(hitKey(event.rule, event.node), { rule: event.rule, sink: event.node });
        } else {
          this.callSinks(event.node, state, hits);
        }
      }
    }
    let returns = false;
    if (fn) {
      const body = this.field(fn, 'body');
      if (body && !this.syntax.blocks.includes(this.kindOf(body))) returns = this.carries(body, state);
      for (const ret of this.returnsOf(fn)) if (this.mayCarry(ret, state) && this.named(ret).some((c) => this.tainted(c, state))) returns = true;
    }
    return { hits: [...hits.values()], state, returns };
  }

  /** A call to a summarized function with tainted arguments reaches that function's sinks. */
  private callSinks(call: SgNode, state: Set<string>, hits: Map<string, TaintHit>) {
    const fn = this.summarizedFunction(call);
    if (!fn) return;
    this.args(call).forEach((arg, i) => {
      if (!this.carries(this.argValue(arg), state)) return;
      for (const hit of this.summaryOf(fn, i).sinks) hits.set(hitKey(hit.rule, hit.sink), hit);
    });
  }

  /** The file's function a call calls by name, unless its summary is being made (a recursive call). */
  private summarizedFunction(call: SgNode): FunctionInfo | undefined {
    const name = this.calleeName(call);
    const fn = name ? this.byName.get(name) : undefined;
    return fn && !this.summarizing.has(fn) ? fn : undefined;
  }

  /** What taint in the function's i-th parameter (receivers aside) reaches: its return value, sinks. */
  private summaryOf(fn: FunctionInfo, i: number): ParamSummary {
    let known = this.summaries.get(fn);
    if (!known) this.summaries.set(fn, (known = []));
    if (known[i]) return known[i];
    const param = fn.params.filter((p) => !this.syntax.receivers.includes(p))[i];
    if (param === undefined) return (known[i] = { returns: false, sinks: [] });
    this.summarizing.add(fn);
    try {
      const result = this.run(fn.node, new Set([param]));
      return (known[i] = { returns: result.returns, sinks: result.hits });
    } finally {
      this.summarizing.delete(fn);
    }
  }

  /** Sets the rules traced from now on and their own sanitizers, and drops what was made for the rules before. */
  private traceRules(rules: SastRule[], cleaners: RuleSanitizerNodes): void {
    this.active = new Set(rules);
    this.cleaners = cleaners;
    this.eventsOfScope = new Map();
    this.summaries = new Map();
    this.requestReturners = undefined;
  }

  /** Every sink that tainted data reaches in this file, tracing each rule with its own sanitizers. */
  analyze(): TaintHit[] {
    const wrappers = this.profile.untrustedParams && this.profile.ignoreParamPassThrough;
    const groups = new Map<string, SastRule[]>();
    for (const rule of this.rules) {
      if (!this.sinkMatches.some((s) => s.rule === rule)) continue;
      const key = sanitizerKey(this.ruleSanitizerIds.get(rule.id) ?? NO_SANITIZER_NODES);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key)!.push(rule);
    }
    const traced = new Map<SastRule, TaintHit[]>();
    for (const group of groups.values()) {
      this.traceRules(group, this.ruleSanitizerIds.get(group[0].id) ?? NO_SANITIZER_NODES);
      // A hit that only public-function parameters explain, reaching the sink as such a parameter, is a
      // wrapper. The trace without those parameters is run only for a hit that could be one.
      let real: Set<string> | undefined;
      const hits = this.trace(true).filter((hit) => {
        if (!wrappers || !this.passesParam(hit)) return true;
        real ??= new Set(this.trace(false).map((h) => hitKey(h.rule, h.sink)));
        return real.has(hitKey(hit.rule, hit.sink));
      });
      for (const rule of group) traced.set(rule, hits.filter((h) => h.rule === rule));
    }
    this.traceRules([], NO_SANITIZER_NODES);
    const hits = new Map<number, TaintHit>();
    for (const rule of this.rules) for (const hit of traced.get(rule) ?? []) hits.set(hit.sink.id(), hit);
    return [...hits.values()];
  }

  /**
   * Whether a sink receives, as is (p, p.x, p[i]), a parameter of a function that is untrusted only for
   * being public: a wrapper such as query(text) or readFile(path), not a finding itself.
   */
  private passesParam(hit: TaintHit): boolean {
    const match = this.sinkMatches.find((s) => s.rule === hit.rule && s.node.id() === hit.sink.id());
    const root = match ? this.baseOf(match.focus, this.owner(hit.sink)) : undefined;
    if (!root || !this.syntax.identifiers.includes(this.kindOf(root))) return false;
    for (let f = this.owner(hit.sink); f; f = this.owner(f)) {
      const info = this.functions.find((i) => i.node.id() === f!.id());
      if (info?.params.includes(root.text())) return !info.isHandler && !!info.name && !info.name.startsWith('_');
    }
    return false;
  }

  /**
   * The value an expression starts from: p for p.x, p[i], p + "…", `${p}/…`, and for the first argument of
   * the profile's pass-through calls (path.join(p, "x")), and through a local variable bound once in `scope`.
   */
  private baseOf(node: SgNode, scope: SgNode | undefined): SgNode | undefined {
    let root: SgNode | null | undefined = node;
    for (let depth = 0; root && depth < 32; depth++) {
      const kind = this.kindOf(root);
      if (this.syntax.identifiers.includes(kind)) {
        const name: string = root.text();
        const binds: Event[] = this.scopeEventsOf(scope).filter((e) => e.kind === 'bind' && this.boundNames(e.target).includes(name));
        const only: Event | undefined = binds.length === 1 ? binds[0] : undefined;
        if (only?.kind !== 'bind') break;
        root = only.value;
      } else if (this.syntax.members.includes(kind) || this.syntax.subscripts.includes(kind)) root = this.field(root, 'object') ?? this.field(root, 'value');
      else if (this.syntax.passThrough.includes(kind)) root = this.named(root)[0];
      else if (this.syntax.binaryExpressions.includes(kind) && this.field(root, 'operator')?.text() === '+') root = this.field(root, 'left');
      else if (this.syntax.templateStrings.includes(kind) && root.text().startsWith('`${')) root = this.named(this.named(root)[0])[0];
      else if (kind === this.syntax.calls.kind && this.profile.passThroughCalls.some((re) => re.test(this.field(root!, this.syntax.calls.callee)?.text() ?? ''))) root = this.args(root)[0];
      else break;
    }
    return root ?? undefined;
  }

  /**
   * A function defined inside another that the framework calls with a request: a handler, or one taking
   * the request (`def view(request)` returned by a factory). The enclosing function ran before, when the
   * route was registered, so its parameters are configuration there, not request data.
   */
  private isNestedView(fn: FunctionInfo): boolean {
    if (!this.owner(fn.node)) return false;
    return fn.isHandler || fn.params.some((p) => this.profile.frameworkParams.includes(p) && !this.syntax.receivers.includes(p));
  }

  /**
   * The functions whose run may reach a sink of the rules traced: those with such a sink in their own scope,
   * those that call one of them by name, and the functions around these (their state is what a function
   * nested in them starts from). What the others do reaches no sink, so trace() does not run them.
   */
  private functionsReachingSinks(): Set<number> {
    const reaching = new Set<number>();
    for (const sink of this.sinkMatches) {
      const owner = this.active.has(sink.rule) ? this.owner(sink.node) : undefined;
      if (owner) reaching.add(this.idOf(owner));
    }
    if (!this.scopeEvents) this.walkScopes();
    const calls: { caller: number; callee: number }[] = [];
    for (const [caller, events] of this.scopeEvents!) {
      if (caller === undefined) continue;
      for (const event of events) {
        const callee = event.kind === 'call' ? this.byName.get(this.calleeName(event.node) ?? '') : undefined;
        if (callee) calls.push({ caller, callee: this.idOf(callee.node) });
      }
    }
    for (let grew = true; grew; ) {
      grew = false;
      for (const { caller, callee } of calls) {
        if (reaching.has(callee) && !reaching.has(caller)) grew = !!reaching.add(caller);
      }
    }
    for (const fn of this.functions) {
      if (!reaching.has(this.idOf(fn.node))) continue;
      for (let outer = this.owner(fn.node); outer; outer = this.owner(outer)) reaching.add(this.idOf(outer));
    }
    return reaching;
  }

  /** Sinks reached from sources and handler parameters, and from public functions' parameters when `publicParams`. */
  private trace(publicParams: boolean): TaintHit[] {
    const hits = new Map<string, TaintHit>();
    const moduleRun = this.run(undefined, new Set());
    for (const hit of moduleRun.hits) hits.set(hitKey(hit.rule, hit.sink), hit);
    // Per function, what is tainted at its end: with public parameters seeded (`outer`), and without them
    // (`requestOnly`, only for functions with a nested view: what such a view inherits).
    const outer = new Map<number, Set<string>>();
    const requestOnly = new Map<number, Set<string>>();
    const views = this.functions.filter((fn) => this.isNestedView(fn));
    const sorted = [...this.functions].sort((a, b) => a.node.range().start.index - b.node.range().start.index);
    const reaching = this.functionsReachingSinks();
    for (const fn of sorted) {
      if (!reaching.has(this.idOf(fn.node))) continue;
      const parent = this.owner(fn.node);
      const inherited = parent ? (outer.get(this.idOf(parent)) ?? new Set<string>()) : moduleRun.state;
      const inheritedFromRequest = parent ? (requestOnly.get(this.idOf(parent)) ?? inherited) : moduleRun.state;
      const seed = (from: Set<string>, publicToo: boolean) => {
        const initial = new Set(from);
        const untrusted = fn.isHandler || (publicToo && this.profile.untrustedParams && !!fn.name && !fn.name.startsWith('_'));
        if (untrusted) for (const p of fn.params) if (!this.profile.frameworkParams.includes(p) && !this.syntax.receivers.includes(p)) initial.add(p);
        return initial;
      };
      const initial = seed(this.isNestedView(fn) ? inheritedFromRequest : inherited, publicParams);
      const result = this.run(fn.node, initial);
      outer.set(this.idOf(fn.node), result.state);
      if (views.some((view) => view !== fn && this.within(view.node, fn.node))) {
        const fromRequest = seed(inheritedFromRequest, false);
        const same = fromRequest.size === initial.size && [...fromRequest].every((name) => initial.has(name));
        requestOnly.set(this.idOf(fn.node), same ? result.state : this.run(fn.node, fromRequest).state);
      }
      for (const hit of result.hits) hits.set(hitKey(hit.rule, hit.sink), hit);
    }
    return [...hits.values()];
  }
}
