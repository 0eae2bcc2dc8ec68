import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { isLiteral, type Part } from '../built-string.ts';
import { refuse, type Codemod, type CodemodEdit } from '../codemod.ts';
import { appendArguments, argumentsOf, functionAround, pythonImportsModule, replace, statementOf } from '../edit-kit.ts';
import { builtValue, moduleConstant, namesRead, pythonString, quoteStyle, reboundBetween, variableNameFor } from './strings.ts';

// A Jinja template built from strings and values → a fixed template with a `{{ name }}` slot for each
// value and the values passed to the render as variables: render_template_string(tpl, name=value),
// Environment.from_string(tpl).render(name=value), Template(tpl).render(name=value). A value is then
// data, never template code. Plain jinja2 (no autoescape) renders the same text for every value that is
// not itself template syntax; Flask's render_template_string escapes HTML in the values, which is the
// escaping the page lacked.

/** Names Jinja resolves itself, which a variable must not shadow. */
const RESERVED = new Set([
  'true', 'false', 'none', 'True', 'False', 'None', 'and', 'or', 'not', 'in', 'is', 'if', 'else', 'for', 'loop', 'self', 'super',
  'range', 'dict', 'lipsum', 'cycler', 'joiner', 'namespace', 'config', 'request', 'session', 'g', 'url_for', 'get_flashed_messages',
]);

/** The template text with slots, or why a value cannot become a variable there. */
function templateOf(parts: Part[], taken: Set<string>): { template: string; variables: { name: string; expr: string }[] } | { refuse: string } {
  const variables: { name: string; expr: string }[] = [];
  let template = '';
  for (const part of parts) {
    if (isLiteral(part)) {
      template += part.literal;
      continue;
    }
    // A value inside `{{ … }}`, `{% … %}` or `{# … #}` of the literal text is spliced into template code on purpose.
    const open = Math.max(template.lastIndexOf('{{'), template.lastIndexOf('{%'), template.lastIndexOf('{#'));
    const close = Math.max(template.lastIndexOf('}}'), template.lastIndexOf('%}'), template.lastIndexOf('#}'));
    if (open > close) return { refuse: 'a value is written into template code (inside {{ }}, {% %} or {# #}), so it cannot become a variable' };
    const existing = variables.find((v) => v.expr === part.expr);
    const name = existing?.name ?? variableNameFor(part.expr, taken, variables.length, RESERVED);
    if (!existing) variables.push({ name, expr: part.expr });
    template += `{{ ${name} }}`;
  }
  if (!variables.length) return { refuse: 'the template is not built from values' };
  return { template, variables };
}

/** `<receiver>.render(...)` calls made on a node, directly (`Template(t).render()`). */
function chainedRender(templateCall: SgNode): SgNode | null {
  const attribute = templateCall.parent();
  if (!attribute || kindOf(attribute) !== 'attribute' || fieldOf(attribute, 'attribute')?.text() !== 'render') return null;
  const call = attribute.parent();
  return call && kindOf(call) === 'call' ? call : null;
}

/**
 * The render calls of a template object kept in a variable (`t = Template(s)` … `t.render()`): every other
 * mention of the variable in the function must be such a call, after the assignment.
 */
function renderCallsOfVariable(templateCall: SgNode): { calls: SgNode[] } | { refuse: string } | null {
  const assignment = templateCall.parent();
  if (!assignment || kindOf(assignment) !== 'assignment' || fieldOf(assignment, 'right')?.range().start.index !== templateCall.range().start.index) return null;
  const left = fieldOf(assignment, 'left')!;
  if (kindOf(left) !== 'identifier') return { refuse: 'the template is kept somewhere other than a local variable, so its renders cannot all be found' };
  const scope = functionAround(assignment);
  if (!scope) return { refuse: 'the template object is made at module level, so its renders cannot all be found' };
  const mentions = scope.findAll({ rule: { kind: 'identifier', regex: `^${left.text()}$` } } as never).filter((m) => m.range().start.index !== left.range().start.index);
  const calls: SgNode[] = [];
  for (const mention of mentions) {
    const attribute = mention.parent();
    const isObject = attribute && kindOf(attribute) === 'attribute' && fieldOf(attribute, 'object')?.range().start.index === mention.range().start.index;
    const call = isObject ? attribute.parent() : null;
    if (!isObject || fieldOf(attribute, 'attribute')?.text() !== 'render' || !call || kindOf(call) !== 'call' || mention.range().start.index < assignment.range().end.index) {
      return { refuse: `${left.text()} is used other than by calling its render() after it is made, so the values cannot be passed to every render` };
    }
    calls.push(call);
  }
  return calls.length ? { calls } : { refuse: `${left.text()} is never rendered in this function` };
}

export const pythonTemplateVariables: Codemod = {
  name: 'python/template-variables',
  rules: ['python.lang.ssti.template-from-string'],
  rewrite({ node, root, text }) {
    // The rule reports the call that makes or renders the template; its first argument is the template.
    const call = kindOf(node!) === 'call' ? node! : node!.parent()?.parent();
    const argument = call && kindOf(call) === 'call' ? argumentsOf(call)[0] : undefined;
    if (!call || !argument || kindOf(argument) === 'keyword_argument') return refuse('the template is not the first argument of the call');
    const callee = fieldOf(call, 'function')?.text() ?? '';
    const constant = (name: string) => moduleConstant(root!, name);
    const built = builtValue(argument, call, constant);
    if ('reassigned' in built) return refuse(`${argument.text()} is assigned more than once or used elsewhere, so the template cannot be rebuilt safely`);
    const { parts, target, origin } = built;
    if (!parts) return refuse('the template is not built in a way this codemod reads (concatenation, % or format() of a literal, an f-string); it may come whole from the input, which no rewrite can make safe');

    // Where the values go: the call itself, or the render() of the template object it makes.
    let renders: { call: SgNode; related?: SgNode }[];
    if (/(^|\.)render_template_string$/.test(callee)) renders = [{ call }];
    else if (/(^|\.)Template$|\.from_string$/.test(callee)) {
      // Mako and string.Template have a Template too, with another syntax: only Jinja's is rewritten.
      const jinja = /^jinja2\./.test(callee) || (callee === 'Template' ? /^\s*from\s+jinja2\s+import\s[^\n]*\bTemplate\b/m.test(text) : pythonImportsModule(root!, 'jinja2'));
      if (!jinja) return refuse(`${callee}() is not known to be Jinja's, whose {{ }} syntax the rewrite uses`);
      if (argumentsOf(call).length > 1) return refuse('the template is made with more options than its source');
      const chained = chainedRender(call);
      if (chained) renders = [{ call: chained }];
      else {
        const kept = renderCallsOfVariable(call);
        if (!kept) return refuse('the template object is not rendered where it is made, nor kept in a variable that is');
        if ('refuse' in kept) return refuse(kept.refuse);
        renders = kept.calls.map((c) => ({ call: c, related: statementOf(c) }));
      }
    } else return refuse(`${callee}() is not a template constructor this codemod knows`);
    const deferred = origin !== undefined || renders.some((r) => r.related);

    const taken = new Set<string>();
    for (const r of renders) for (const a of argumentsOf(r.call)) {
      if (kindOf(a) === 'keyword_argument') taken.add(fieldOf(a, 'name')!.text());
      else if (kindOf(a) === 'dictionary_splat' || r.call !== call) return refuse('the render already passes its variables in a form this codemod cannot extend');
    }
    const slotted = templateOf(parts, taken);
    if ('refuse' in slotted) return refuse(slotted.refuse);

    // The values are read at the render now, not where the template text was built.
    const names = namesRead(slotted.variables);
    const scope = functionAround(call);
    const builtAt = (origin?.statement ?? statementOf(call)).range().end.index;
    if (deferred && scope && renders.some((r) => reboundBetween(scope, builtAt, r.call.range().start.index, names))) {
      return refuse('a value of the template changes between building the text and rendering it');
    }
    if (deferred && slotted.variables.some((v) => /\(/.test(v.expr.replace(/^(?:str|int|float)\(/, '')))) {
      return refuse('a value is computed by a call, which would run at the render instead');
    }

    const kwargs = slotted.variables.map((v) => `${v.name}=${v.expr.replace(/^str\((.*)\)$/s, '$1')}`);
    const edits: CodemodEdit[] = [{ ...replace(target, pythonString(slotted.template, quoteStyle(target))), ...(origin ? { related: origin.statement } : {}) }];
    for (const r of renders) edits.push({ ...appendArguments(r.call, kwargs, text), ...(r.related ? { related: r.related } : {}) });
    const escaping = /render_template_string$/.test(callee) ? ', where Flask escapes their HTML' : '';
    return {
      edits,
      note: `The template is fixed text with {{ }} slots and its ${slotted.variables.length} value(s) are passed to the render as variables${escaping}, so input is never template code.`,
    };
  },
};
