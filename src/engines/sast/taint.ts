import type { SgNode } from '@ast-grep/napi';
import type { TaintSyntax } from './languages.ts';
import type { AstRule, SastRule, TaintProfile } from './rule-set.ts';

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

interface Summary {
  /** Parameter positions whose taint reaches the return value. */
  returns: Set<number>;
  /** Sinks reached from each parameter position. */
  sinks: Map<number, TaintHit[]>;
}

type Event =
  | { at: number; kind: 'bind'; node: SgNode; target: SgNode; value: SgNode }
  | { at: number; kind: 'sink'; node: SgNode; rule: SastRule; focus: SgNode }
  | { at: number; kind: 'call'; node: SgNode };

/** A node's grammar kind as a plain string. */
const kindOf = (node: SgNode): string => String(node.kind());

const matchAll = (root: SgNode, rule: AstRule): SgNode[] => {
  try {
    return root.findAll({ rule: rule as never });
  } catch {
    return [];
  }
};

export class TaintAnalyzer {
  private readonly root: SgNode;
  private readonly syntax: TaintSyntax;
  private readonly profile: TaintProfile;
  private readonly rules: SastRule[];
  private readonly sourceIds = new Set<number>();
  private readonly sanitizerIds = new Set<number>();
  private readonly ruleSanitizerIds = new Map<string, Set<number>>();
  private readonly functions: FunctionInfo[] = [];
  private readonly byName = new Map<string, FunctionInfo>();
  private summaries = new Map<string, Summary>();
  private readonly sinkMatches: { rule: SastRule; node: SgNode; focus: SgNode }[] = [];
  /** The rule being traced: its own sanitizers apply on top of the language's. */
  private active: SastRule | undefined;

  constructor(root: SgNode, syntax: TaintSyntax, profile: TaintProfile, rules: SastRule[]) {
    this.root = root;
    this.syntax = syntax;
    this.profile = profile;
    this.rules = rules;
    for (const rule of profile.sources) for (const n of matchAll(root, rule)) this.sourceIds.add(n.id());
    for (const rule of profile.sanitizers) for (const n of matchAll(root, rule)) this.sanitizerIds.add(n.id());
    for (const rule of rules) {
      for (const source of rule.sources) for (const n of matchAll(root, source)) this.sourceIds.add(n.id());
      const own = new Set<number>();
      for (const sanitizer of rule.sanitizers) for (const n of matchAll(root, sanitizer)) own.add(n.id());
      this.ruleSanitizerIds.set(rule.id, own);
      for (const sink of rule.sinks) {
        for (const match of matchAll(root, sink.rule)) {
          const focus = sink.focus ? match.getMatch(sink.focus) : match;
          if (focus) this.sinkMatches.push({ rule, node: match, focus });
        }
      }
    }
    this.collectFunctions();
  }

  private collectFunctions() {
    const handlers = new Set<number>();
    for (const registration of this.profile.handlerRegistrations) {
      for (const call of matchAll(this.root, registration)) {
        for (const fn of call.findAll({ rule: { any: this.syntax.functions.map((kind) => ({ kind })) } as never })) handlers.add(fn.id());
      }
    }
    const kinds = this.syntax.functions.map((kind) => ({ kind }));
    for (const node of this.root.findAll({ rule: { any: kinds } as never })) {
      const name = node.field('name')?.text();
      const decorated = node.parent() && kindOf(node.parent()!) === 'decorated_definition' ? node.parent()!.text().split('\n').filter((l) => l.trim().startsWith('@')) : [];
      const isHandler =
        handlers.has(node.id()) || decorated.some((d) => this.profile.handlerDecorators.some((re) => re.test(d.trim())));
      const info: FunctionInfo = { node, name, params: this.paramNames(node), isHandler };
      this.functions.push(info);
      if (name && !this.byName.has(name)) this.byName.set(name, info);
    }
  }

  private paramNames(fn: SgNode): string[] {
    const params = fn.field('parameters') ?? fn.field('parameter');
    if (!params) return [];
    if (this.syntax.identifiers.includes(kindOf(params))) return [params.text()];
    return params.children().filter((c) => c.isNamed()).map((p) => {
      if (this.syntax.identifiers.includes(kindOf(p))) return p.text();
      const inner = p.field('name') ?? p.field('pattern') ?? p.find({ rule: { kind: this.syntax.identifiers[0] } as never });
      return inner?.text() ?? p.text();
    });
  }

  /** The innermost function containing a node, or undefined at module level. */
  private owner(node: SgNode): SgNode | undefined {
    for (let p = node.parent(); p; p = p.parent()) if (this.syntax.functions.includes(kindOf(p))) return p;
    return undefined;
  }

  private calleeName(call: SgNode): string | undefined {
    const callee = call.field(this.syntax.calls.callee);
    if (!callee) return undefined;
    if (this.syntax.identifiers.includes(kindOf(callee))) return callee.text();
    const attr = callee.field('attribute') ?? callee.field('property');
    const object = callee.field('object');
    if (attr && object && this.syntax.receivers.includes(object.text())) return attr.text();
    return undefined;
  }

  private args(call: SgNode): SgNode[] {
    return call.field(this.syntax.calls.args)?.children().filter((c) => c.isNamed() && kindOf(c) !== 'comment') ?? [];
  }

  /** Whether an expression carries tainted data, given the tainted variable names. */
  tainted(node: SgNode, state: Set<string>, rule: SastRule | undefined = this.active): boolean {
    const id = node.id();
    if (this.sanitizerIds.has(id) || (rule && this.ruleSanitizerIds.get(rule.id)?.has(id))) return false;
    if (this.sourceIds.has(id)) return true;
    const kind = kindOf(node);
    if (this.syntax.identifiers.includes(kind)) return state.has(node.text());
    if (this.syntax.functions.includes(kind)) return false;
    if (kind === this.syntax.calls.kind) {
      const name = this.calleeName(node);
      const summary = name ? this.summaries.get(name) : undefined;
      if (summary) {
        const args = this.args(node);
        return args.some((arg, i) => summary.returns.has(i) && this.tainted(this.argValue(arg), state, rule));
      }
      const callee = node.field(this.syntax.calls.callee);
      const receiver = callee?.field('object');
      if (receiver && this.tainted(receiver, state, rule)) return true;
      return this.args(node).some((arg) => this.tainted(this.argValue(arg), state, rule));
    }
    if (kind === 'attribute' || kind === 'member_expression') {
      const object = node.field('object');
      return object ? this.tainted(object, state, rule) : false;
    }
    if (kind === 'keyword_argument' || kind === 'pair') {
      const value = node.field('value');
      return value ? this.tainted(value, state, rule) : false;
    }
    return node.children().some((child) => child.isNamed() && this.tainted(child, state, rule));
  }

  private argValue(arg: SgNode): SgNode {
    return kindOf(arg) === 'keyword_argument' ? (arg.field('value') ?? arg) : arg;
  }

  /** Names bound by an assignment target: plain names, tuple and destructuring patterns. */
  private boundNames(target: SgNode): string[] {
    if (this.syntax.identifiers.includes(kindOf(target))) return [target.text()];
    if (['attribute', 'member_expression', 'subscript', 'subscript_expression'].includes(kindOf(target))) {
      // x.y = tainted / x[i] = tainted: the container becomes tainted
      let base: SgNode | null = target;
      while (base && !this.syntax.identifiers.includes(kindOf(base))) base = base.field('object') ?? base.field('value') ?? base.child(0);
      return base ? [base.text()] : [];
    }
    return target
      .findAll({ rule: { any: this.syntax.identifiers.map((kind) => ({ kind })) } as never })
      .filter((n) => !['property', 'attribute', 'key'].some((f) => n.parent()?.field(f)?.id() === n.id()))
      .map((n) => n.text());
  }

  private events(fn: SgNode | undefined): Event[] {
    const scope = fn ?? this.root;
    const events: Event[] = [];
    const inScope = (n: SgNode) => this.owner(n)?.id() === fn?.id();
    for (const [kind, fields] of Object.entries(this.syntax.bindings)) {
      for (const node of scope.findAll({ rule: { kind } as never })) {
        if (!inScope(node)) continue;
        const target = node.field(fields.target);
        const value = fields.value ? node.field(fields.value) : node.child(0);
        if (target && value) events.push({ at: node.range().end.index, kind: 'bind', node, target, value });
      }
    }
    // Calls to the file's own functions: their summaries may reach sinks.
    for (const call of scope.findAll({ rule: { kind: this.syntax.calls.kind } as never })) {
      const name = this.calleeName(call);
      if (name && this.byName.has(name) && inScope(call)) events.push({ at: call.range().start.index, kind: 'call', node: call });
    }
    for (const sink of this.sinkMatches) {
      if (sink.rule === this.active && inScope(sink.node) && (scope.id() === this.root.id() || this.within(sink.node, scope))) {
        events.push({ at: sink.node.range().start.index, kind: 'sink', node: sink.node, rule: sink.rule, focus: sink.focus });
      }
    }
    return events.sort((a, b) => a.at - b.at);
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
    const hits = new Map<number, TaintHit>();
    for (let pass = 0; pass < 2; pass++) {
      for (const event of events) {
        if (event.kind === 'bind') {
          const isTainted = this.tainted(event.value, state);
          const augmented = kindOf(event.node).startsWith('augmented');
          for (const name of this.boundNames(event.target)) {
            if (isTainted) state.add(name);
            else if (!augmented && this.syntax.identifiers.includes(kindOf(event.target))) state.delete(name);
          }
        } else if (event.kind === 'sink') {
          if (this.tainted(event.focus, state, event.rule)) hits.set(event.node.id(), { rule: event.rule, sink: event.node });
        } else {
          this.callSinks(event.node, state, hits);
        }
      }
    }
    let returns = false;
    if (fn) {
      const body = fn.field('body');
      if (body && !['block', 'statement_block'].includes(kindOf(body))) returns = this.tainted(body, state);
      for (const kind of this.syntax.returns) {
        for (const ret of (body ?? fn).findAll({ rule: { kind } as never })) {
          if (this.owner(ret)?.id() === fn.id() && ret.children().some((c) => c.isNamed() && this.tainted(c, state))) returns = true;
        }
      }
    }
    return { hits: [...hits.values()], state, returns };
  }

  /** A call to a summarized function with tainted arguments reaches that function's sinks. */
  private callSinks(call: SgNode, state: Set<string>, hits: Map<number, TaintHit>) {
    const name = this.calleeName(call);
    const summary = name ? this.summaries.get(name) : undefined;
    if (!summary) return;
    this.args(call).forEach((arg, i) => {
      if (!this.tainted(this.argValue(arg), state)) return;
      for (const hit of summary.sinks.get(i) ?? []) hits.set(hit.sink.id(), hit);
    });
  }

  private summarize() {
    for (let round = 0; round < 2; round++) {
      const next = new Map<string, Summary>();
      for (const fn of this.functions) {
        if (!fn.name) continue;
        const params = fn.params.filter((p) => !this.syntax.receivers.includes(p));
        const summary: Summary = { returns: new Set(), sinks: new Map() };
        params.forEach((param, i) => {
          const result = this.run(fn.node, new Set([param]));
          if (result.returns) summary.returns.add(i);
          if (result.hits.length) summary.sinks.set(i, result.hits);
        });
        next.set(fn.name, summary);
      }
      this.summaries = next;
    }
  }

  /** Every sink that tainted data reaches in this file, tracing each rule with its own sanitizers. */
  analyze(): TaintHit[] {
    const hits = new Map<number, TaintHit>();
    for (const rule of this.rules) {
      if (!this.sinkMatches.some((s) => s.rule === rule)) continue;
      this.active = rule;
      for (const hit of this.trace()) hits.set(hit.sink.id(), hit);
    }
    this.active = undefined;
    return [...hits.values()];
  }

  private trace(): TaintHit[] {
    this.summarize();
    const hits = new Map<number, TaintHit>();
    const moduleRun = this.run(undefined, new Set());
    for (const hit of moduleRun.hits) hits.set(hit.sink.id(), hit);
    const outer = new Map<number, Set<string>>();
    const sorted = [...this.functions].sort((a, b) => a.node.range().start.index - b.node.range().start.index);
    for (const fn of sorted) {
      const parent = this.owner(fn.node);
      const inherited = parent ? (outer.get(parent.id()) ?? new Set<string>()) : moduleRun.state;
      const initial = new Set(inherited);
      const untrusted = fn.isHandler || (this.profile.untrustedParams && !!fn.name && !fn.name.startsWith('_'));
      if (untrusted) for (const p of fn.params) if (!this.profile.frameworkParams.includes(p) && !this.syntax.receivers.includes(p)) initial.add(p);
      const result = this.run(fn.node, initial);
      outer.set(fn.node.id(), result.state);
      for (const hit of result.hits) hits.set(hit.sink.id(), hit);
    }
    return [...hits.values()];
  }
}
