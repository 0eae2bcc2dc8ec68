import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod, type CodemodEdit } from '../codemod.ts';
import { appendArguments, argumentsOf, replace } from '../edit-kit.ts';

// lxml XMLParser(resolve_entities=True / load_dtd=True / no_network=False / dtd_validation=True) → the safe
// values, with resolve_entities=False added where it is left to lxml's default (True before lxml 5: a DTD
// the parser reads, or one a document brings, may declare `SYSTEM "file:///…"` entities); and
// setFeature(feature_external_ges, True) → False. Documents without external entities parse the same, and
// a parser that validates against a DTD still does.

const SAFE: Record<string, string> = { resolve_entities: 'False', load_dtd: 'False', no_network: 'True' };

export const pythonXmlNoEntities: Codemod = {
  name: 'python/xml-no-entities',
  rules: ['python.lang.xxe.xml-parser-entities'],
  rewrite({ node, text }) {
    const call = node!;
    const edits: CodemodEdit[] = [];
    const args = argumentsOf(call);
    if (/\.setFeature$/.test(fieldOf(call, 'function')?.text() ?? '')) {
      const flag = args[1];
      if (flag?.text() === 'True') edits.push(replace(flag, 'False'));
      if (!edits.length) return refuse('the feature flag is not a literal boolean');
      return { edits, note: 'Turned external general entities off for the XML parser.' };
    }
    const given = new Set<string>();
    for (const arg of args) {
      if (kindOf(arg) !== 'keyword_argument') continue;
      const name = fieldOf(arg, 'name')!.text();
      const value = fieldOf(arg, 'value')!;
      given.add(name);
      if (SAFE[name] && value.text() !== SAFE[name]) edits.push(replace(value, SAFE[name]!));
    }
    // A setting given twice is a TypeError: resolve_entities=False cannot be added next to **settings.
    if (args.some((a) => kindOf(a) === 'dictionary_splat')) return refuse('the parser takes settings from a **dict, which may set entity resolution back on');
    if (!given.has('resolve_entities')) edits.push(appendArguments(call, ['resolve_entities=False'], text));
    if (!edits.length) return refuse('the parser settings are already safe');
    return { edits, note: 'Turned external entity resolution, DTD loading and network access off for the XML parser.' };
  },
};
