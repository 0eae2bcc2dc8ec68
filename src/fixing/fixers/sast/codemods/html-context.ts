// Where in an HTML document a value is put, read from the markup written before it: HTML escaping makes a
// value safe as text in the body and inside a quoted attribute, but not inside <script> or <style> (the
// value is code there, and entities are not decoded, so escaping corrupts it without stopping injection),
// nor in an unquoted attribute (a space ends it), a URL attribute (javascript: URLs need no markup) or an
// event handler (its value is script).

export type HtmlContext = 'body' | 'quoted-attribute' | 'script' | 'style' | 'url-attribute' | 'event-handler' | 'unquoted-attribute' | 'tag';

const URL_ATTRIBUTES = /^(href|src|action|formaction|srcset|data|poster|background|xlink:href|cite|codebase|manifest)$/i;

/** The context after `before`, the markup (as written in the source) that precedes the value. */
export function htmlContextAfter(before: string): HtmlContext {
  const lower = before.toLowerCase();
  const lastOpen = (tag: string) => lower.lastIndexOf(`<${tag}`);
  const lastClose = (tag: string) => lower.lastIndexOf(`</${tag}`);
  if (lastOpen('script') > lastClose('script') && lower.indexOf('>', lastOpen('script')) !== -1) return 'script';
  if (lastOpen('style') > lastClose('style') && lower.indexOf('>', lastOpen('style')) !== -1) return 'style';
  const tagStart = before.lastIndexOf('<');
  if (tagStart === -1 || before.lastIndexOf('>') > tagStart) return 'body';
  const attribute = openAttribute(before.slice(tagStart));
  if (!attribute) return 'tag';
  if (/^on/i.test(attribute.name)) return 'event-handler';
  if (URL_ATTRIBUTES.test(attribute.name) || /^style$/i.test(attribute.name)) return 'url-attribute';
  return attribute.quoted ? 'quoted-attribute' : 'unquoted-attribute';
}

/** The attribute whose value the end of a tag's text is in (`<a title="x`), read quote by quote, or null between attributes. */
function openAttribute(tag: string): { name: string; quoted: boolean } | null {
  let quote: string | null = null;
  let name = '';
  for (let i = 0; i < tag.length; i++) {
    const c = tag[i]!;
    if (quote) {
      if (c === quote) quote = null;
      continue;
    }
    if ((c === '"' || c === "'") && /=\s*\\?$/.test(tag.slice(0, i))) {
      name = /([\w:-]+)\s*=\s*\\?$/.exec(tag.slice(0, i))?.[1] ?? '';
      quote = c;
    }
  }
  if (quote) return { name, quoted: true };
  const unquoted = /([\w:-]+)\s*=\s*([^\s"'>]*)$/.exec(tag);
  return unquoted ? { name: unquoted[1]!, quoted: false } : null;
}

/** Why HTML escaping does not make a value safe in that context, or null where it does. */
export function escapingFallsShort(context: HtmlContext): string | null {
  switch (context) {
    case 'body':
    case 'quoted-attribute':
      return null;
    case 'script':
      return 'the value is put inside <script>, where HTML escaping neither stops injected code nor leaves the value intact; pass it as JSON (json.dumps, with "</" escaped) or in a data- attribute instead';
    case 'style':
      return 'the value is put inside <style>, where HTML escaping does not stop injected CSS; allow-list the values instead';
    case 'url-attribute':
      return 'the value is a URL or style attribute, where HTML escaping does not stop javascript: URLs; check the scheme (http, https or a relative path) before writing it';
    case 'event-handler':
      return 'the value is put in an event handler attribute, which runs as script whatever HTML escaping does; pass it as data and read it from the script';
    case 'unquoted-attribute':
      return 'the value is an unquoted attribute, which a space ends whatever HTML escaping does; quote the attribute first';
    case 'tag':
      return 'the value is written inside a tag, not as text or an attribute value, so escaping cannot keep it from adding attributes';
  }
}
