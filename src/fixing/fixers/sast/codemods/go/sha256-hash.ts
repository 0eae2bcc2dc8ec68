import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod, type CodemodEdit } from '../codemod.ts';
import { insertAt, replace } from '../edit-kit.ts';
import { importSpecOf, removeImport, usedOutside } from './imports.ts';
import { SHA256_NOTE, whyHashMustStay } from '../hash-use.ts';

// md5.New() / sha1.New() → sha256.New(): still a hash.Hash. md5.Sum(b) / sha1.Sum(b) → sha256.Sum256(b)
// only where the digest goes straight to fmt's printing (a [16]byte becomes a [32]byte, which any other
// use may not accept). The import follows: "crypto/sha256" is added, and the old package's import goes
// when nothing else in the file uses it (Go refuses an unused import).

const FMT_PRINT = /^fmt\.(S|F)?print(f|ln)?$/;

export const goSha256Hash: Codemod = {
  name: 'go/sha256-hash',
  rules: ['go.crypto.weak-hash'],
  rewrite({ node, root, text }) {
    const call = node!;
    const mustStay = whyHashMustStay(call, 'golang.org/x/crypto/bcrypt or argon2');
    if (mustStay) return refuse(mustStay);
    const [pkg, fn] = fieldOf(call, 'function')!.text().split('.') as [string, string];
    if (fn === 'Sum') {
      const outer = call.parent()?.parent();
      const printed = call.parent() && kindOf(call.parent()!) === 'argument_list' && outer && FMT_PRINT.test(fieldOf(outer, 'function')?.text() ?? '');
      if (!printed) return refuse(`${pkg}.Sum returns a [${pkg === 'md5' ? 16 : 20}]byte and sha256.Sum256 a [32]byte: change the digest's type where it is used, then swap the call`);
    }
    const edits: CodemodEdit[] = [replace(fieldOf(call, 'function')!, fn === 'Sum' ? 'sha256.Sum256' : 'sha256.New')];
    const oldImport = importSpecOf(root!, `crypto/${pkg}`);
    const hasSha256 = importSpecOf(root!, 'crypto/sha256') !== undefined;
    const oldGoes = oldImport !== undefined && !usedOutside(root!, pkg, call);
    if (oldGoes && !hasSha256) edits.push({ ...replace(fieldOf(oldImport, 'path')!, '"crypto/sha256"'), related: oldImport });
    else {
      if (oldGoes) edits.push(removeImport(oldImport, text));
      if (!hasSha256) {
        const imports = root!.children().filter((c) => kindOf(c) === 'import_declaration' || kindOf(c) === 'package_clause');
        edits.push({ ...insertAt(imports.at(-1)!.range().end.index, '\n\nimport "crypto/sha256"'), topLevel: true });
      }
    }
    return { edits, note: SHA256_NOTE };
  },
};
