import { component, type Component } from '../../component.ts';
import { LOCKFILES } from '../../lockfiles.ts';
import { ExtractError, type Extractor } from '../extractor.ts';

// mix.lock, Elixir's lockfile: an Elixir map literal, one entry a line,
// `"key": {:hex, :package, "version", "checksum", [managers], [deps], "repo", "outer checksum"}`.
// The package atom, not the key, is the Hex name (the key may be an alias). `:git` and `:path` entries
// are not Hex packages and are skipped. The lock does not say which dependencies mix.exs declares.

const HEX_ENTRY = /^\s*"([^"]+)":\s*\{\s*:hex\s*,\s*:"?([A-Za-z0-9_]+)"?\s*,\s*"([^"]+)"/;
const ANY_ENTRY = /^\s*"[^"]+":\s*\{\s*:(\w+)/;

export const mixLockExtractor: Extractor = {
  id: 'mix-lock',
  ecosystem: 'Hex',
  docs: '`mix.lock`',
  fileNames: LOCKFILES['mix-lock'],
  lockfile: true,
  extract(file) {
    const text = file.text.trim();
    if (text === '') return [];
    if (!text.startsWith('%{') || !text.endsWith('}')) throw new ExtractError(file.path, 'not an Elixir map (`%{...}`)');
    const components: Component[] = [];
    text.split(/\r?\n/).forEach((line, index) => {
      const hex = HEX_ENTRY.exec(line);
      if (hex) {
        components.push(component({ name: hex[2]!, version: hex[3]!, ecosystem: 'Hex', direct: null, sourceFile: file.path }));
      } else if (index > 0 && line.trim() !== '}' && line.trim() !== '' && !ANY_ENTRY.test(line)) {
        throw new ExtractError(file.path, `line ${index + 1}: not a mix.lock entry`);
      }
    });
    return components;
  },
};
