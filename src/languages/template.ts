import type { Language } from './language.ts';

/** Server-side templates (Jinja, Django, EJS, ERB, …): read as text by regex rules, never parsed. */
export const template: Language<'template', 'template'> = {
  id: 'template',
  parsers: {
    template: { extensions: ['html', 'htm', 'jinja', 'jinja2', 'j2', 'djhtml', 'tpl', 'ejs', 'hbs', 'erb'] },
  },
};
