import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod } from '../codemod.ts';
import { argumentsOf, replace } from '../edit-kit.ts';

// YAML.load / Psych.load / unsafe_load of outside data → YAML.safe_load: mappings, lists, strings,
// numbers, booleans, symbols, times and dates load as before; only tags that build other Ruby objects
// (the gadget chains) and aliases are refused. Psych compares permitted classes by name, so 'Date' is
// given as a string: naming the constant would raise where the date library is not loaded.
const PERMITTED = "permitted_classes: [Symbol, Time, 'Date']";

export const rubyYamlSafeLoad: Codemod = {
  name: 'ruby/yaml-safe-load',
  rules: ['ruby.lang.deserialization.unsafe-load'],
  rewrite({ node }) {
    const call = node!;
    const receiver = fieldOf(call, 'receiver')?.text() ?? '';
    const method = fieldOf(call, 'method')?.text() ?? '';
    if (receiver === 'Marshal') return refuse('Marshal has no safe mode: exchange the data as JSON (JSON.parse) instead');
    if (!/^(load|unsafe_load)$/.test(method)) return refuse(`${receiver}.${method} has no drop-in safe form; load each document with YAML.safe_load`);
    const args = argumentsOf(call);
    if (args.length !== 1 || kindOf(args[0]!) === 'pair') return refuse(`${receiver}.${method} is called with options; rewrite the call with YAML.safe_load by hand`);
    return {
      edits: [replace(call, `${receiver}.safe_load(${args[0]!.text()}, ${PERMITTED})`)],
      note: `Loaded the YAML with ${receiver}.safe_load, which builds only plain data (documents with aliases are now refused).`,
    };
  },
};
