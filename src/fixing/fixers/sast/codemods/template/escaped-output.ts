import { refuse, type Codemod } from '../codemod.ts';

// Template output that turns escaping off → the escaped form: `{{ x | safe }}` → `{{ x }}`,
// `{% autoescape false %}` → `{% autoescape true %}`, EJS `<%- x %>` → `<%= x %>`. Plain text renders
// the same; markup inside the value is shown as text instead of being run.

const REWRITES: Record<string, [RegExp, string]> = {
  'template.jinja.xss.safe-filter': [/\s*\|\s*safe\b(?=\s*(\}\}|\|))/, ''],
  'template.jinja.xss.autoescape-off': [/\b(false|off)\b/, 'true'],
  'template.ejs.xss.unescaped-output': [/^<%-/, '<%='],
};

export const templateEscapedOutput: Codemod = {
  name: 'template/escaped-output',
  rules: Object.keys(REWRITES),
  rewrite({ rule, match, text }) {
    const [pattern, replacement] = REWRITES[rule]!;
    if (!pattern.test(match.text)) return refuse('the unescaped output is not written in a form this codemod reads');
    const fixed = match.text.replace(pattern, replacement);
    const where = text.slice(0, match.start).split('\n').length;
    return {
      edits: [{ start: match.start, end: match.end, text: fixed }],
      note: `Let the template escape the value at line ${where}; values that hold intended markup must be sanitized (bleach, DOMPurify) and marked safe where they are built.`,
    };
  },
};
