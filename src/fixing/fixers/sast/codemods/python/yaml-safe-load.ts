import { fieldOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { argumentsOf, keywordArgument, removeArgument, replace } from '../edit-kit.ts';

// yaml.load with the default, full or unsafe loader → yaml.safe_load: plain data (mappings, lists,
// strings, numbers, dates) loads the same; only tags that build Python objects are refused.

export const pythonYamlSafeLoad: Codemod = {
  name: 'python/yaml-safe-load',
  rules: ['python.lang.deserialization.untrusted-load'],
  rewrite({ node, text }) {
    const call = node!;
    const fn = fieldOf(call, 'function')!;
    if (!/^yaml\.(load|unsafe_load)$/.test(fn.text())) return refuse(`${fn.text()} has no safe drop-in replacement; the data needs a format such as JSON`);
    const loader = keywordArgument(call, 'Loader');
    const positional = argumentsOf(call).filter((a) => a.kind() !== 'keyword_argument');
    if (positional.length > 1) return refuse('the loader is passed positionally; rewrite the call by hand');
    const edits = [replace(fn, 'yaml.safe_load')];
    if (loader) edits.push(removeArgument(call, loader, text));
    return { edits, note: 'Loaded the YAML with yaml.safe_load, which builds only plain data.' };
  },
};
