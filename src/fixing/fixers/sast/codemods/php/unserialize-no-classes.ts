import { refuse, type Codemod } from '../codemod.ts';
import { appendArguments, argumentsOf } from '../edit-kit.ts';

// unserialize($request_data) → unserialize($request_data, ['allowed_classes' => false]): strings,
// numbers, booleans and arrays come back as before; an object comes back as __PHP_Incomplete_Class,
// so no class of the application is instantiated and none of its magic methods runs.

export const phpUnserializeNoClasses: Codemod = {
  name: 'php/unserialize-no-classes',
  rules: ['php.lang.deserialization.unserialize'],
  rewrite({ node, text }) {
    const call = node!;
    if (argumentsOf(call).length !== 1) return refuse('unserialize() already has options; set allowed_classes to false in them by hand');
    return {
      edits: [appendArguments(call, ["['allowed_classes' => false]"], text)],
      note: "Unserialized the request data with allowed_classes false: plain values and arrays load as before, objects are not built. Prefer json_decode() for data from clients.",
    };
  },
};
