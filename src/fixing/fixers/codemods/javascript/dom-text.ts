import { fieldOf, kindOf } from '../../syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { replace } from '../edit-kit.ts';

// Text written into the page as HTML → written as text: el.innerHTML = x → el.textContent = x,
// el.innerHTML += x → el.append(x), insertAdjacentHTML(p, x) → insertAdjacentText(p, x), $(…).html(x) →
// $(…).text(x). Plain text shows the same; markup in the value is shown instead of run. A value that
// carries markup of its own (a string with tags) is refused: it needs sanitizing, not text.

const HAS_TAGS = /['"`][^'"`]*<[a-zA-Z/!]/;

export const javascriptDomText: Codemod = {
  name: 'javascript/dom-text',
  rules: ['javascript.browser.xss.dom-html-sink'],
  rewrite({ node }) {
    const match = node!;
    if (HAS_TAGS.test(match.text())) return refuse('the value builds markup of its own; sanitize it with DOMPurify.sanitize() instead of writing it as text');
    const kind = kindOf(match);
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
