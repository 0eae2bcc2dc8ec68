import { component, type Component } from '../../component.ts';
import { ExtractError, type Extractor, type ManifestFile } from '../extractor.ts';

// go.mod as cmd/go reads it (golang.org/x/mod/modfile): one directive per line, or a `verb (` … `)`
// block of them; `//` comments; module paths may be quoted.
// Components carry no hashes: go.sum's `h1:` values are dirhashes (golang.org/x/mod/sumdb/dirhash, a
// SHA-256 over the sorted list of the module's file names and their SHA-256s), not the digest of the
// module's zip or of any one file, so no CycloneDX hash of an artifact can hold them; go.sum is not read.

interface Requirement {
  path: string;
  version: string;
  indirect: boolean;
}

interface Replacement {
  oldPath: string;
  /** Absent when the replacement applies to every version of oldPath. */
  oldVersion?: string;
  newPath: string;
  /** Absent when the replacement is a directory on disk. */
  newVersion?: string;
}

interface Line {
  tokens: string[];
  comment: string;
  number: number;
}

export const goModExtractor: Extractor = {
  id: 'go-mod',
  ecosystem: 'Go',
  docs: '`go.mod` (`// indirect`, `replace`)',
  fileNames: ['go.mod'],
  lockfile: false,
  extract(file) {
    const { requirements, replacements } = parseGoMod(file);
    return toComponents(requirements, replacements, file.path);
  },
};

function parseGoMod(file: ManifestFile): { requirements: Requirement[]; replacements: Replacement[] } {
  const requirements: Requirement[] = [];
  const replacements: Replacement[] = [];
  let hasModule = false;
  let block: string | null = null;

  const fail = (line: Line, reason: string): never => {
    throw new ExtractError(file.path, `line ${line.number}: ${reason}`);
  };

  const directive = (verb: string, args: string[], line: Line): void => {
    switch (verb) {
      case 'module':
        hasModule = true;
        break;
      case 'require':
        if (args.length !== 2) fail(line, 'usage: require module/path v1.2.3');
        requirements.push({ path: args[0], version: args[1], indirect: isIndirect(line.comment) });
        break;
      case 'replace':
        replacements.push(parseReplace(args, line, fail));
        break;
      // go, toolchain, exclude, retract, godebug, tool, ignore and later verbs name no dependency.
    }
  };

  for (const line of lexLines(file)) {
    const [first, ...rest] = line.tokens;
    if (first === undefined) continue;
    if (block !== null) {
      if (first === ')') {
        if (rest.length) fail(line, 'unexpected input after )');
        block = null;
      } else {
        directive(block, line.tokens, line);
      }
      continue;
    }
    if (!/^[a-z]+$/.test(first)) fail(line, `unknown directive ${JSON.stringify(first)}`);
    if (rest.length === 1 && rest[0] === '(') {
      block = first;
    } else if (rest.length === 2 && rest[0] === '(' && rest[1] === ')') {
      continue; // an empty block written on one line
    } else {
      directive(first, rest, line);
    }
  }
  if (block !== null) throw new ExtractError(file.path, `unterminated ${block} block`);
  if (!hasModule) throw new ExtractError(file.path, 'no module directive');
  return { requirements, replacements };
}

function parseReplace(args: string[], line: Line, fail: (line: Line, reason: string) => never): Replacement {
  const arrow = args.indexOf('=>');
  const left = args.slice(0, arrow);
  const right = args.slice(arrow + 1);
  if (arrow < 0 || left.length < 1 || left.length > 2 || right.length < 1 || right.length > 2) {
    return fail(line, 'usage: replace module/path [v1.2.3] => other/module v1.4 | ../local/directory');
  }
  const [oldPath, oldVersion] = left;
  const [newPath, newVersion] = right;
  if (newVersion === undefined && !isLocalPath(newPath)) fail(line, `replacement module ${newPath} needs a version`);
  return { oldPath, oldVersion, newPath, newVersion };
}

function isLocalPath(path: string): boolean {
  return path.startsWith('./') || path.startsWith('../') || path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path === '.' || path === '..';
}

/** cmd/go marks a requirement indirect with a `// indirect` comment, optionally followed by `; more text`. */
function isIndirect(comment: string): boolean {
  const text = comment.trim();
  return text === 'indirect' || text.startsWith('indirect;');
}

function toComponents(requirements: Requirement[], replacements: Replacement[], sourceFile: string): Component[] {
  const byKey = new Map<string, Component>();
  for (const requirement of requirements) {
    const replacement = replacementFor(requirement, replacements);
    if (replacement && replacement.newVersion === undefined) continue; // built from a local directory
    const name = replacement ? replacement.newPath : requirement.path;
    const version = replacement?.newVersion ?? requirement.version;
    const key = `${name}@${version}`;
    const direct = !requirement.indirect;
    const seen = byKey.get(key);
    if (seen) {
      seen.direct = seen.direct || direct;
    } else {
      byKey.set(key, component({ name, version, ecosystem: 'Go', direct, sourceFile }));
    }
  }
  return [...byKey.values()];
}

/** A replacement naming the exact version wins over one for every version; among equals the last wins. */
function replacementFor(requirement: Requirement, replacements: Replacement[]): Replacement | undefined {
  const forPath = replacements.filter((r) => r.oldPath === requirement.path);
  return (
    forPath.findLast((r) => r.oldVersion === requirement.version) ?? forPath.findLast((r) => r.oldVersion === undefined)
  );
}

/** Splits the file into lines of tokens, the comment of each line kept apart. */
function* lexLines(file: ManifestFile): Generator<Line> {
  const lines = file.text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    yield lexLine(lines[index], index + 1, file.path);
  }
}

function lexLine(text: string, number: number, path: string): Line {
  const tokens: string[] = [];
  let comment = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t') {
      i++;
    } else if (text.startsWith('//', i)) {
      comment = text.slice(i + 2);
      break;
    } else if (c === '(' || c === ')') {
      tokens.push(c);
      i++;
    } else if (text.startsWith('=>', i)) {
      tokens.push('=>');
      i += 2;
    } else if (c === '"' || c === '`') {
      const end = closingQuote(text, i);
      if (end < 0) throw new ExtractError(path, `line ${number}: unterminated quoted string`);
      const quoted = text.slice(i, end + 1);
      tokens.push(c === '`' ? quoted.slice(1, -1) : unquote(quoted, number, path));
      i = end + 1;
    } else {
      let end = i;
      while (end < text.length && !/[\s()"`]/.test(text[end]) && !text.startsWith('//', end) && !text.startsWith('=>', end)) end++;
      tokens.push(text.slice(i, end));
      i = end;
    }
  }
  return { tokens, comment, number };
}

function closingQuote(text: string, start: number): number {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (quote === '"' && text[i] === '\\') i++;
    else if (text[i] === quote) return i;
  }
  return -1;
}

function unquote(quoted: string, number: number, path: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    throw new ExtractError(path, `line ${number}: invalid quoted string ${quoted}`);
  }
}
