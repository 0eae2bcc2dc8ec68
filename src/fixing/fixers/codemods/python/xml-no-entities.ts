import { fieldOf, kindOf } from '../../syntax.ts';
import { refuse, type Codemod, type CodemodEdit } from '../codemod.ts';
import { argumentsOf, replace } from '../edit-kit.ts';

// lxml XMLParser(resolve_entities=True / load_dtd=True / no_network=False) → the safe values, and
// setFeature(feature_external_ges, True) → False: documents without external entities parse the same.

const SAFE: Record<string, string> = { resolve_entities: 'False', load_dtd: 'False', no_network: 'True' };

export const pythonXmlNoEntities: Codemod = {
  name: 'python/xml-no-entities',
  rules: ['python.lang.xxe.xml-parser-entities'],
  rewrite({ node }) {
    const call = node!;
    const edits: CodemodEdit[] = [];
    const args = argumentsOf(call);
    if (/\.setFeature$/.test(fieldOf(call, 'function')?.text() ?? '')) {
      const flag = args[1];
      if (flag?.text() === 'True') edits.push(replace(flag, 'False'));
    }
    for (const arg of args) {
      if (kindOf(arg) !== 'keyword_argument') continue;
      const name = fieldOf(arg, 'name')!.text();
      const value = fieldOf(arg, 'value')!;
      if (SAFE[name] && value.text() !== SAFE[name]) edits.push(replace(value, SAFE[name]!));
    }
    if (!edits.length) return refuse('the parser settings are not literal booleans');
    return { edits, note: 'Turned external entity resolution, DTD loading and network access off for the XML parser.' };
  },
};
