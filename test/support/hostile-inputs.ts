// Text crafted to make a credential regex slow, shared by the rule tests (which check what every pattern
// finds in it) and the secrets benchmark (which times every pattern on it). A scanner reads repositories
// anyone can write, so one file shaped against a rule must not cost more than its length.
//
// Besides long runs that almost match, each shape that once made a rule super-linear has its own input:
// whitespace, escaped line breaks, comment marks or slashes after a PEM opening (the key body and the gaps around it
// could share them), thousands of openings without a close (`-----BEGIN`, `?sv=`, `jdbc:`, `Server=`, each
// read again up to the end of the line or block), armor headers running into the next block, `sig=` and
// `password=` over and over with values too short, and a provider's name written back to back. Where an
// input ends with one real credential after the decoys, the rule must find exactly that one.
import type { SecretRule } from '../../src/scanning/secrets/rules.ts';
import { fillTemplate, positiveSample, seededRandom } from './secret-samples.ts';

export interface HostileInput {
  name: string;
  text: string;
  /** The secrets each rule aimed at must find, in order, by rule id: none, unless a real one is planted. */
  expect: Record<string, string[]>;
}

/** The rules whose patterns were shaped against these inputs. */
export const AIMED_RULES = [
  'azure-sas-token', 'cloudflare-api-token', 'hashicorp-vault-token', 'jdbc-url-password', 'adonet-connection-string-password',
  'private-key', 'openssh-private-key', 'secsh-encrypted-private-key', 'pgp-private-key', 'azure-devops-pat',
];

const PEM_OPENINGS: Record<string, [string, string]> = {
  'private-key': ['-----BEGIN RSA PRIVATE KEY-----', '-----END RSA PRIVATE KEY-----'],
  'openssh-private-key': ['-----BEGIN OPENSSH PRIVATE KEY-----', '-----END OPENSSH PRIVATE KEY-----'],
  'secsh-encrypted-private-key': ['---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----', '---- END SSH2 ENCRYPTED PRIVATE KEY ----'],
  'pgp-private-key': ['-----BEGIN PGP PRIVATE KEY BLOCK-----', '-----END PGP PRIVATE KEY BLOCK-----'],
};

/** `unit` repeated to at least `length` characters. */
const fill = (unit: string, length: number) => unit.repeat(Math.max(1, Math.ceil(length / unit.length)));

/**
 * The inputs, each about `length` characters. The planted credentials are generated (seeded), so none is a
 * literal in the source.
 */
export function hostileInputs(length = 20_000): HostileInput[] {
  const random = seededRandom(4_242);
  const none = Object.fromEntries(AIMED_RULES.map((id) => [id, [] as string[]]));
  const input = (name: string, text: string, found: Record<string, string[]> = {}): HostileInput => ({
    name,
    text,
    expect: { ...none, ...found },
  });
  const pems = Object.entries(PEM_OPENINGS);
  const share = Math.ceil(length / pems.length);
  /** Every PEM opening, each followed by its own share of `after`. */
  const afterEachOpening = (after: (opening: string) => string) => pems.map(([, [open]]) => open + after(open)).join('\n');

  // One real block of each kind, with armor headers where the format has them, plain and behind `# `.
  const keys = pems.map(([id, [open, close]]) => {
    const body = fillTemplate('{b:64}\n{b:64}\n{b:20}==', random);
    const headers = id === 'pgp-private-key' ? 'Version: GnuPG v2\nComment: a test block\n\n' : id === 'secsh-encrypted-private-key' ? 'Comment: "rsa-key"\n' : '';
    return { id, open, close, body, block: `${open}\n${headers}${body}\n${close}` };
  });
  const openingsWithoutEnd = pems.map(([, [open]]) => `${open}\nQUJD\n`).join('');
  const commented = (text: string, mark = '# ') => text.split('\n').map((line) => `${mark}${line}`).join('\n');
  const sig = fillTemplate('{b:43}', random);
  const sasUrl = `https://acct.blob.core.windows.net/c?sv=2022-11-02&ss=b&srt=o&sp=r&se=2030-01-01&sig=${sig}%3D`;
  const jdbcPassword = fillTemplate('{a:20}', random);
  const adoPassword = fillTemplate('{a:20}', random);

  return [
    // Long runs that almost match, for every rule.
    input('one letter', 'a'.repeat(length)),
    input('one digit', '0'.repeat(length)),
    input('token characters', fill('aB3-', length)),
    input('assignments, then a long value', `${'x='.repeat(length / 5)}${'A'.repeat((3 * length) / 5)}`),

    // PEM blocks: gaps the key body could share, openings without an end.
    input('PEM lines with no end', `-----BEGIN RSA PRIVATE KEY-----\n${fill('QUJD\n', length)}`),
    input('PEM openings, each followed by spaces', afterEachOpening(() => `${' '.repeat(share)}!`)),
    input('PEM openings, each followed by line breaks', afterEachOpening(() => `${'\n'.repeat(share)}A`)),
    input('PEM openings, each followed by escaped line breaks', afterEachOpening(() => `${fill('\\n', share)}\x00`)),
    input('PEM openings, each followed by escaped line breaks and tabs', afterEachOpening(() => `${fill('\\n\t', share)}n`)),
    input('PEM openings, each followed by comment marks', afterEachOpening(() => `${fill('\n# ', share)}!`)),
    input('PEM openings, each followed by slash comment marks', afterEachOpening(() => `${fill('\n// ', share)}!`)),
    input('PEM openings, each followed by slashes', afterEachOpening(() => `\n${'/'.repeat(share)}!`)),
    input('PEM openings, each followed by slash pairs and spaces', afterEachOpening(() => `\n${fill('// ', share)}!`)),
    input('PEM openings, each followed by semicolons and line breaks', afterEachOpening(() => `${fill(';\n', share)}!`)),
    input('PEM openings, each followed by short lines behind slashes', afterEachOpening(() => `\n${fill('// QUJD\n', share)}`)),
    input('PEM openings, each followed by short lines and spaces', afterEachOpening(() => `\n${fill('QUJD \n', share)}`)),
    input(
      'PEM openings without an end, then one key of each kind',
      `${fill(openingsWithoutEnd, length)}${keys.map((k) => k.block).join('\n')}\n`,
      Object.fromEntries(keys.map((k) => [k.id, [k.body]])),
    ),
    input(
      'PEM openings in comments without an end, then one commented key of each kind',
      `${commented(fill(openingsWithoutEnd, length))}\n${keys.map((k) => commented(k.block)).join('\n')}\n`,
      // The key's first `# ` is the gap after the opening; those of the lines after it are part of the key.
      Object.fromEntries(keys.map((k) => [k.id, [commented(k.body).slice(2)]])),
    ),
    input(
      'PEM openings in slash comments without an end, then one slash-commented key of each kind',
      `${commented(fill(openingsWithoutEnd, length), '// ')}\n${keys.map((k) => commented(k.block, '// ')).join('\n')}\n`,
      Object.fromEntries(keys.map((k) => [k.id, [commented(k.body, '// ').slice(3)]])),
    ),
    input('armor headers that run into the next block', `${fill('-----BEGIN PGP PRIVATE KEY BLOCK----- x: ', length / 2)}${fill('---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ---- x: ', length / 2)}\n`),
    input('armor headers continued over and over', `${fill('---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nx: \\\n', length / 2)}${fill('-----BEGIN PGP PRIVATE KEY BLOCK-----\nx: a\\\n\\\n', length / 2)}\n`),
    input('short armor headers, over and over', fill('---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----N: \nA: \n-: T', length / 2) + fill('-----BEGIN PGP PRIVATE KEY BLOCK------: IL', length / 2)),
    input('an armor header with a long run of spaces', afterEachOpening(() => `\nComment: ${' '.repeat(share)}`)),

    // Azure shared access signatures: `sv=` openings, `sig=` with values too short.
    input('sv= openings with no sig', fill('?sv=2020-01-01', length)),
    input('sv= and a short sig, over and over', `${fill('?SV=3003-03-33&SIG=G', length)}%`),
    input('sv= and sig= over and over, then one signed URL', `${fill('&sv=2020-01-01&sig=', length)} ${sasUrl}\n`, { 'azure-sas-token': [`${sig}%3D`] }),

    // JDBC URLs and ADO.NET connection strings: openings without a password, `password=` too short.
    input('jdbc: openings run together', `A${fill('JDBC:PB//=?P', length)}\t`),
    input('jdbc: openings with parameters, then one password', `${fill('jdbc:mysql://db?user=app&', length)}jdbc:mysql://db/app?user=app&password=${jdbcPassword}\n`, {
      'jdbc-url-password': [jdbcPassword],
    }),
    input('password= over and over in one JDBC URL, each too short', `jdbc:mysql://db?${fill('password=x&', length)}\n`),
    input('Server= openings run together', `${fill('SHOST==;P', length)}\n`),
    input('Server= openings, then one password', `${fill('Server=db;', length)}Password=${adoPassword};\n`, {
      'adonet-connection-string-password': [adoPassword],
    }),
    input('Redis host:port openings run together, then a password too short', `${fill(':6380,a.b:6379,ssl=True', length)},password=x\n`),
    input('Redis options over and over, each password too short', `a:6380${fill(',ssl=True,password=x', length)}\n`),
    input('Password= over and over in one connection string, each too short', `Server=db;${fill('Password=x;', length)}\n`),

    // A provider's name written back to back, before an assignment or none.
    input('ado, back to back', `${fill('ADOA', length / 2)}\x00ADOR${fill('ADODUTZDRSR-VPSAO_EDS', length / 2)}\x00`),
    input('cf_api, back to back', `${fill('CCF_API', length / 2)}-U\x00${fill('CF_APIILDD.', length / 2)}\x00`),
    input('names back to back, then a value too short', `${fill('_ado_cf_api', length)} = "${'a'.repeat(30)}"\n`),
    input('short secret names back to back, then a value too short', `${fill('keysecrettokenpwdapi_', length)} = "${'a'.repeat(7)}"\n`),
    input('short secret names back to back, each with an operator', `${fill('KEY:TOKEN=SECRET=>', length)}\n`),

    // HashiCorp Vault tokens one character too short.
    input('hvs. tokens one character short', fill(`hvs.${'A'.repeat(89)} `, length)),
  ];
}

/** A rule's sample without its last character, over and over: a credential that never quite completes. */
export function nearMiss(rule: SecretRule, length = 20_000): string {
  const sample = positiveSample(rule, 5);
  return sample.slice(0, -1).repeat(Math.ceil(length / sample.length));
}

/** Every match of a pattern in a text, as the detector runs it (global, from the start). */
export function allMatches(pattern: RegExp, text: string): RegExpExecArray[] {
  const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
  const matches: RegExpExecArray[] = [];
  for (let m = global.exec(text); m; m = global.exec(text)) {
    matches.push(m);
    if (m[0].length === 0) global.lastIndex++;
  }
  return matches;
}
