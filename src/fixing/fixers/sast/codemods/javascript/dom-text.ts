import type { SgNode } from '@ast-grep/napi';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod, type CodemodAnswer, type CodemodEdit } from '../codemod.ts';
import { appendArguments, argumentsOf, replace } from '../edit-kit.ts';

// Text written into the page as HTML → written as text: el.innerHTML = x → el.textContent = x,
// el.innerHTML += x → el.append(x), insertAdjacentHTML(p, x) → insertAdjacentText(p, x), $(…).html(x) →
// $(…).text(x), React's dangerouslySetInnerHTML={{ __html: x }} → {x} as the element's child (and
// createElement(tag, { dangerouslySetInnerHTML: { __html: x } }) → createElement(tag, null, x)). Plain text
// shows the same; markup in the value is shown instead of run. A value that carries markup of its own (a
// string with tags, a renderer's output) is refused: it needs sanitizing, not text.

const HAS_TAGS = /['"`][^'"`]*<[a-zA-Z/!]/;
/** Calls whose result is markup by name (a Markdown renderer, a highlighter, a template). */
const MAKES_MARKUP = /(html|markdown|marked|md|render|highlight|template|format)\w*\s*\(/i;

/** The value given as `__html` in `{ __html: x }`, or why there is none to move. */
function htmlValue(object: SgNode | null | undefined): SgNode | string {
  if (!object || kindOf(object) !== 'object') return 'the __html value is not written as { __html: … } here';
  const pairs = object.children().filter((c) => c.isNamed() && kindOf(c) !== 'comment');
  const html = pairs.find((c) => kindOf(c) === 'pair' && fieldOf(c, 'key')?.text().replace(/['"]/g, '') === '__html');
  if (!html || pairs.length !== 1) return 'the object holds more than __html';
  const value = fieldOf(html, 'value')!;
  if (MAKES_MARKUP.test(value.text())) return 'the value is the output of a renderer (markup of its own); sanitize it with DOMPurify.sanitize() instead of writing it as text';
  return value;
}

/** An edit deleting one node of a list together with the separator (spaces, or a comma) before it. */
function removeWithSeparator(node: SgNode, text: string, separator: RegExp): CodemodEdit {
  let start = node.range().start.index;
  while (start > 0 && separator.test(text[start - 1]!)) start--;
  return { start, end: node.range().end.index, text: '' };
}

function reactText(match: SgNode, text: string): CodemodAnswer {
  const note = 'Rendered the value as the element\'s text child instead of raw HTML (React escapes it).';
  if (kindOf(match) === 'jsx_attribute') {
    const expression = match.children().find((c) => kindOf(c) === 'jsx_expression');
    const value = htmlValue(expression?.children().find((c) => c.isNamed()));
    if (typeof value === 'string') return refuse(value);
    const element = match.parent()!;
    const child = `{${value.text()}}`;
    const removal = removeWithSeparator(match, text, /[ \t\r\n]/);
    if (kindOf(element) === 'jsx_self_closing_element') {
      const close = element.range().end.index;
      let slash = close - 2;
      while (/\s/.test(text[slash - 1]!)) slash--;
      const name = fieldOf(element, 'name')!.text();
      return { edits: [removal, { start: slash, end: close, text: `>${child}</${name}>` }], note };
    }
    const parent = element.parent();
    if (!parent || kindOf(parent) !== 'jsx_element') return refuse('the attribute is not on a JSX element');
    const children = parent.children().filter((c) => c.isNamed() && !/^jsx_(opening|closing)_element$/.test(kindOf(c)) && !(kindOf(c) === 'jsx_text' && !c.text().trim()));
    if (children.length) return refuse('the element has children of its own, which React would show instead of the HTML; move the value by hand');
    const open = element.range().end.index;
    const close = parent.children().find((c) => kindOf(c) === 'jsx_closing_element')!.range().start.index;
    return { edits: [removal, { start: open, end: close, text: child }], note };
  }
  // createElement(tag, { dangerouslySetInnerHTML: { __html: x } })
  const props = match.parent()!;
  const call = props.parent()?.parent();
  if (!call || kindOf(call) !== 'call_expression' || !/(^|\.)createElement$/.test(fieldOf(call, 'function')?.text() ?? '')) return refuse('the props are not passed straight to createElement()');
  const args = argumentsOf(call);
  if (args[1]?.range().start.index !== props.range().start.index) return refuse('the props are not the second argument of createElement()');
  if (args.length > 2) return refuse('the element has children of its own, which React would show instead of the HTML; move the value by hand');
  const value = htmlValue(fieldOf(match, 'value'));
  if (typeof value === 'string') return refuse(value);
  const others = props.children().filter((c) => c.isNamed() && kindOf(c) !== 'comment' && c.range().start.index !== match.range().start.index);
  const edits: CodemodEdit[] = [];
  if (!others.length) edits.push(replace(props, 'null'));
  else {
    const index = props.children().filter((c) => c.isNamed() && kindOf(c) !== 'comment').findIndex((c) => c.range().start.index === match.range().start.index);
    if (index === 0) edits.push({ start: match.range().start.index, end: others[0]!.range().start.index, text: '' });
    else edits.push(removeWithSeparator(match, text, /[ \t\r\n,]/));
  }
  edits.push(appendArguments(call, [value.text()], text));
  return { edits, note };
}

export const javascriptDomText: Codemod = {
  name: 'javascript/dom-text',
  rules: ['javascript.browser.xss.dom-html-sink'],
  rewrite({ node, text }) {
    const match = node!;
    if (HAS_TAGS.test(match.text())) return refuse('the value builds markup of its own; sanitize it with DOMPurify.sanitize() instead of writing it as text');
    const kind = kindOf(match);
    if (kind === 'jsx_attribute' || kind === 'pair') return reactText(match, text);
    if (kind === 'assignment_expression' || kind === 'augmented_assignment_expression') {
      const left = fieldOf(match, 'left')!;
      const property = fieldOf(left, 'property');
      if (property?.text() !== 'innerHTML') return refuse(`${property?.text() ?? 'the property'} replaces the element itself; rewrite it by hand`);
      if (kind === 'assignment_expression') return { edits: [replace(property, 'textContent')], note: 'Wrote the value as text (textContent) instead of HTML.' };
      const object = fieldOf(left, 'object')!.text();
      return { edits: [replace(match, `${object}.append(${fieldOf(match, 'right')!.text()})`)], note: 'Appended the value as a text node instead of HTML.' };
    }
    if (kind === 'call_expression') {
      const fn = fieldOf(match, 'function')!;
      const property = fieldOf(fn, 'property');
      if (property?.text() === 'insertAdjacentHTML') return { edits: [replace(property, 'insertAdjacentText')], note: 'Inserted the value as text (insertAdjacentText) instead of HTML.' };
      if (property?.text() === 'html') return { edits: [replace(property, 'text')], note: 'Set the value as text (.text()) instead of HTML.' };
    }
    return refuse('this sink has no text counterpart; sanitize the value with DOMPurify.sanitize()');
  },
};
