import { escapingFallsShort, htmlContextAfter } from '../html-context.ts';
import { refuse, type Codemod } from '../codemod.ts';

// Template output that turns escaping off → the escaped form: `{{ x | safe }}` → `{{ x }}`,
// `{% autoescape false %}` → `{% autoescape true %}`, EJS `<%- x %>` → `<%= x %>`. Plain text renders
// the same; markup inside the value is shown as text instead of being run.
// HTML escaping only makes a value safe as text or in a quoted attribute: output inside <script> or
// <style>, in a URL, event-handler or unquoted attribute is refused with what it needs instead
// (html-context.ts). So is output whose name says it is rich text the app renders on purpose (a post's
// content, rendered Markdown): escaping would show its tags; it needs a sanitizer where it is made.

const REWRITES: Record<string, [RegExp, string]> = {
  'template.jinja.xss.safe-filter': [/\s*\|\s*safe\b(?=\s*(\}\}|\|))/, ''],
  'template.jinja.xss.autoescape-off': [/\b(false|off)\b/, 'true'],
  'template.ejs.xss.unescaped-output': [/^<%-/, '<%='],
};

const RICH_TEXT = /(^|[._])(html|markup|rendered|markdown|rich_?text|wysiwyg|content)s?$|\|\s*(markdown|markdownify|md|render\w*)\b/i;

/** The expression a `{{ … }}` or `<%- … %>` outputs, without its filters. */
function outputExpression(match: string): string {
  return match.replace(/^(\{\{|<%-)\s*/, '').replace(/\s*(\}\}|-?%>)$/, '').split('|')[0]!.trim();
}

export const templateEscapedOutput: Codemod = {
  name: 'template/escaped-output',
  rules: Object.keys(REWRITES),
  rewrite({ rule, match, text }) {
    const [pattern, replacement] = REWRITES[rule]!;
    if (!pattern.test(match.text)) return refuse('the unescaped output is not written in a form this codemod reads');
    if (rule !== 'template.jinja.xss.autoescape-off') {
      if (/^<%-\s*include\b/.test(match.text)) return refuse('the output renders a partial template, whose markup must not be escaped');
      const problem = escapingFallsShort(htmlContextAfter(text.slice(0, match.start)));
      if (problem) return refuse(problem.replace('json.dumps, with "</" escaped', rule.startsWith('template.jinja') ? 'the tojson filter' : 'JSON.stringify, with "<" escaped'));
      const expression = outputExpression(match.text);
      if (RICH_TEXT.test(expression) || RICH_TEXT.test(match.text)) {
        return refuse(`${expression} looks like rich text the app renders on purpose, which escaping would show as tags; sanitize it with an HTML sanitizer (nh3, bleach, DOMPurify) where it is stored or rendered`);
      }
    }
    const fixed = match.text.replace(pattern, replacement);
    const where = text.slice(0, match.start).split('\n').length;
    return {
      edits: [{ start: match.start, end: match.end, text: fixed }],
      note: `Let the template escape the value at line ${where}: markup in it is now shown as text; values that hold intended markup must be sanitized (nh3, bleach, DOMPurify) and marked safe where they are built.`,
    };
  },
};
