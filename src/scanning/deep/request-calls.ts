import type { SgNode } from '@ast-grep/napi';

/** A call in a handler with request data among its arguments. */
export interface RequestCall {
  /** The callee as written (`lfi.read_file`, `read_file`). */
  callee: string;
  line: number;
}

/** How a language binds locals and calls functions, for requestCallsOf. */
export interface RequestCallSyntax {
  /** A binding node (`assignment`, `variable_declarator`) and its value and target fields. */
  binding: string;
  value: string;
  target: string;
  call: string;
  /** Data a request brings, as handlers read it. */
  requestData: RegExp;
  /** An identifier of the language (global flag). */
  word: RegExp;
  /** A callee the model can resolve: a name or a dotted path. */
  callee: RegExp;
}

/**
 * The calls of a handler with request data among their arguments: read directly, or through `parameters`
 * and the locals bound from either (followed twice, for a local bound from another).
 */
const fieldText = (node: SgNode, name: string): string => (node.field(name as never) as SgNode | null)?.text() ?? '';

export function requestCallsOf(fn: SgNode, syntax: RequestCallSyntax, parameters: string[] = []): RequestCall[] {
  const tainted = new Set(parameters);
  const carries = (text: string) => syntax.requestData.test(text) || (text.match(syntax.word) ?? []).some((word) => tainted.has(word));
  const bindings = fn.findAll({ rule: { kind: syntax.binding } } as never);
  for (let round = 0; round < 2; round++) {
    for (const b of bindings) if (carries(fieldText(b, syntax.value))) for (const name of fieldText(b, syntax.target).match(syntax.word) ?? []) tainted.add(name);
  }
  const calls: RequestCall[] = [];
  for (const call of fn.findAll({ rule: { kind: syntax.call } } as never)) {
    const callee = fieldText(call, 'function');
    if (syntax.callee.test(callee) && carries(fieldText(call, 'arguments'))) calls.push({ callee, line: call.range().start.line + 1 });
  }
  return calls;
}
