import path from 'node:path';
import { notFixed, type Fixer, type FixerOutcome, type FixFinding, type FixWorkspace } from '../../types.ts';
import { loadRuleSet, type RuleSet } from '../../../scanning/sast/rule-set.ts';
import { detectSecrets } from '../../../scanning/secrets/detector.ts';
import { looksLikeGeneratedSecret } from '../../../scanning/secrets/text-checks.ts';
import { factsOf, type RepoFacts } from '../../repo-facts.ts';
import { credentialPlan, credentialsIn, type CredentialPlan } from './credential-plan.ts';
import { listInCompose, listInEnvTemplate, templatePath } from './env-template.ts';
import type { RequiredRead } from './required-setting.ts';
import { accountsTable, notACredential, servedToBrowsers } from './secret-exemptions.ts';
import { moveSecretInCode, REDACTED, secretNameInCode, type NameChoice } from './secret-in-code.ts';
import { inApiDescriptionExample } from './secret-in-api-description.ts';
import { interpolatingFormatOf, referenceSecretInConfig } from './secret-in-config.ts';
import { moveSecretInCSharp } from './secret-in-csharp.ts';
import { isCredentialRule, locateSastCredentials, sastCredentialsIn } from './sast-credential-location.ts';
import { findingRule, isDetectedSecret, locateFindingSecrets, type LocatedSecret } from './secret-location.ts';
import { codeParserFor, parseCode, syntaxErrors } from '../shared/syntax.ts';
import { applyEdits, lineStarts } from '../shared/text-edits.ts';
import { readTreeFile, writeTreeFile } from '../shared/tree-files.ts';

// Moves a committed credential out of the code: source files read it from the environment instead,
// Compose and Spring files reference an environment variable, comments and documentation (examples of
// an OpenAPI description included) lose it.
// Notes name the rule, the file and the variable, never the value.

/** Files people read, and environment templates meant to be committed with stand-in values: the secret is redacted. */
const DOCUMENTATION = /\.(?:md|markdown|mdx|rst|adoc|asciidoc)$|(?:^|\/)\.env\.(?:example|sample|template|dist)$/i;
const DATA_FILES = /\.(?:json|jsonc|ya?ml|toml|ini|cfg|conf|properties|xml|plist|txt|csv|tfvars|pem|key|p12|pfx|npmrc|pypirc|netrc)$|(?:^|\/)\.(?:npmrc|pypirc|netrc|git-credentials|dockercfg)$/i;

const CSHARP = /\.cs$/i;

const REVOKE = 'revoke the exposed value, since it stays in the git history';

type FileChange = { text: string; did: string; name?: string; stops?: RequiredRead['stops'] } | { refused: string };

/** Where a finding's secrets are in a file's text, and the file's other credentials. */
interface SecretSource {
  /** The finding's secrets, in the order they are moved. */
  locate(text: string): LocatedSecret[];
  /** The file's other credentials, whose names this finding's value must not take. */
  others(text: string): LocatedSecret[];
}

export const secretFixer: Fixer = {
  name: 'secrets',
  handles: isDetectedSecret,
  apply: (finding, workspace) =>
    fixSecret(finding, workspace, finding.title ?? 'secret', {
      locate: (text) => locateFindingSecrets(text, finding),
      others: (text) => detectedSecrets(text),
    }),
};

/** SAST rules about hard-coded credentials (category `secrets`): the literal the rule reports moves the same way. */
export function createSastCredentialFixer(loadRules: () => RuleSet = () => loadRuleSet()): Fixer {
  let rules: RuleSet | undefined;
  const ruleSet = () => (rules ??= loadRules());
  return {
    name: 'sast-credentials',
    handles: (finding) => isCredentialRule(ruleSet(), finding.checkId),
    apply: async (finding, workspace) => {
      const parser = codeParserFor(finding.filePath);
      if (!parser) return notFixed(`The hard-coded credential in ${finding.filePath} was left in place: the fixer cannot read this file type; ${REVOKE}`);
      return fixSecret(finding, workspace, 'hard-coded credential', {
        locate: (text) => locateSastCredentials(ruleSet(), parser, text, finding),
        others: (text) => [...detectedSecrets(text), ...sastCredentialsIn(ruleSet(), parser, text)],
      });
    },
  };
}

async function fixSecret(finding: FixFinding, workspace: FixWorkspace, what: string, source: SecretSource): Promise<FixerOutcome> {
  workspace.signal.throwIfAborted();
  const file = finding.filePath;
  if (finding.metadata.source === 'history') {
    return notFixed(
      `The ${what} is only in the git history of ${file}, not in the tree, so no edit removes it: revoke it, then rewrite the history (git filter-repo) if it must go`,
    );
  }
  const original = await readTreeFile(workspace.dir, file);
  if (original === null) return { fixed: true, changedFiles: [], note: `${file} no longer exists, so the ${what} is gone from the tree; ${REVOKE}` };
  const secrets = source.locate(original);
  if (!secrets.length) return { fixed: true, changedFiles: [], note: `The ${what} is no longer in ${file}; nothing to change` };
  const notCredential = notACredential(file, original, secrets[0]);
  if (notCredential) return notFixed(`The ${what} in ${file} line ${secrets[0].startLine} was left in place: ${notCredential}; if so, mark the finding a false positive`);
  const inBrowser = servedToBrowsers(file, original, secrets[0]);
  if (inBrowser) {
    return notFixed(
      `The ${what} in ${file} was left in place: ${inBrowser}, where anyone can read it and no environment variable exists; ` +
        `move the calls that need it to a server endpoint that holds the credential, then ${REVOKE}`,
    );
  }
  const table = accountsTable(file, original, secrets[0], source.others(original));
  if (table) return notFixed(`The ${what} in ${file} line ${secrets[0].startLine} was left in place: ${table}`);
  const unsupported = unsupportedFile(file, finding, original, secrets[0]);
  if (unsupported) return notFixed(`The ${what} in ${file} was left in place: ${unsupported}; ${REVOKE}`);

  const facts = await factsOf(workspace);
  const plan = await credentialPlan(workspace.dir, facts, detectedSecrets, plannedName);
  const values = new Set(secrets.map((s) => original.slice(s.start, s.end)));
  const names = new Map<string, string>();
  const stops = new Map<string, RequiredRead['stops']>();
  const taken = namesTaken(file, original, values, source.others(original));
  let text = original;
  const done: string[] = [];
  const didOf = new Map<string, string>();
  const apply = (secret: LocatedSecret): FileChange => {
    const value = text.slice(secret.start, secret.end);
    // The name this value took earlier in the file, else the one it takes across the repository.
    const given = names.get(value) ?? plan.nameOf(value);
    const change = changeFor(file, text, secret, { taken: given ? new Set([...taken].filter((n) => n !== given)) : taken, given });
    if ('refused' in change) return change;
    text = change.text;
    done.push(change.did);
    if (!didOf.has(value)) didOf.set(value, change.did);
    if (change.name) {
      names.set(value, change.name);
      taken.add(change.name);
      if (change.stops && !stops.has(change.name)) stops.set(change.name, change.stops);
    }
    return change;
  };
  // The file's other credentials go in the same change, so that the fixes of this file's findings are one
  // change rather than several adding the same import where they would collide. Where the plan holds the
  // finding's own credential, all of them move in the order of the file, so that each of those fixes makes
  // exactly the same change; what is left is found again after each change, since a change moves the rest.
  const ownValues = new Set(values);
  const planned = new Set(plan.credentials.filter((c) => c.file === file).map((c) => c.value));
  const together = planned.size > 0 && [...ownValues].every((v) => planned.has(v));
  for (let refused = 0, rounds = 0; together && rounds < plan.credentials.length + 1; rounds++) {
    const next = credentialsIn(file, text, detectedSecrets).filter((s) => planned.has(text.slice(s.start, s.end)))[refused];
    if (!next) break;
    const value = text.slice(next.start, next.end);
    const change = apply(next);
    if ('refused' in change) {
      if (ownValues.has(value)) return notFixed(`The ${what} in ${file} line ${next.startLine} was left in place: ${change.refused}; ${REVOKE}`);
      refused++;
    } else values.add(value);
  }
  // One secret at a time: an edit (an added import) moves the others, so each is located again.
  for (let i = 0; i < secrets.length; i++) {
    const [next] = source.locate(text);
    if (!next) break;
    const change = apply(next);
    if ('refused' in change) return notFixed(`The ${what} in ${file} line ${next.startLine} was left in place: ${change.refused}; ${REVOKE}`);
  }
  for (let refused = 0, rounds = 0; !together && planned.size && rounds < plan.credentials.length + 1; rounds++) {
    const next = credentialsIn(file, text, detectedSecrets).filter((s) => planned.has(text.slice(s.start, s.end)))[refused];
    if (!next) break;
    const value = text.slice(next.start, next.end);
    if ('refused' in apply(next)) refused++;
    else values.add(value);
  }
  const ownNames = new Set([...ownValues].map((v) => names.get(v)).filter((n): n is string => !!n));
  const alongside = unique([...names].filter(([v, n]) => !ownValues.has(v) && !ownNames.has(n)).map(([, n]) => n));
  // The same value elsewhere in the file is the same credential: it goes too, under the same name. Only a
  // value that could not be anything else: `admin` or `secret` elsewhere is a user name, a word of a message.
  for (const value of values) {
    if (!distinctive(value)) continue;
    for (let skip = 0; ; ) {
      const at = occurrences(text, value)[skip];
      if (at === undefined) break;
      if ('refused' in apply({ ...secrets[0], start: at, end: at + value.length, startLine: lineOf(text, at) })) skip++;
    }
  }
  const broken = newSyntaxErrors(file, original, text);
  if (broken) return notFixed(`The ${what} in ${file} was left in place: replacing it would not parse (line ${broken}); ${REVOKE}`);

  await writeTreeFile(workspace.dir, file, text);
  // The same value in the repository's other files is the same credential: one fix moves it everywhere.
  const elsewhere: Moved[] = [];
  for (const other of unique(plan.credentials.filter((c) => c.file !== file && values.has(c.value)).map((c) => c.file))) {
    const moved = await moveValuesIn(workspace.dir, other, values, plan, names);
    if (moved) elsewhere.push(moved);
  }
  const variables = unique([...names.values()]);
  const listed = variables.length ? await listVariables(workspace.dir, facts, plan, file, values, variables) : { files: [], where: () => '' };
  return {
    fixed: true,
    changedFiles: [file, ...elsewhere.map((m) => m.file), ...listed.files],
    note:
      `The ${what} in ${file} ${unique([...ownValues].map((v) => didOf.get(v)).filter((d): d is string => !!d)).join(' and ') || unique(done).join(' and ')}; ${REVOKE}` +
      (alongside.length ? `. The file's other committed credentials moved with it (${unique(alongside).join(', ')}), so every fix of this file makes this one change` : '') +
      (elsewhere.length ? `. The same value was committed in ${elsewhere.map((m) => m.file).join(', ')} too, and is read there from the same variable` : ''),
    userNotes: [
      ...variables.map((name) => variableNote(file, name, stops.get(name), listed.where(name))),
      ...elsewhere.flatMap((m) => [...m.stops].map(([name, at]) => variableNote(m.file, name, at, listed.where(name)))),
      `Rotate the ${what} that was committed in ${[file, ...elsewhere.map((m) => m.file)].join(', ')}: it stays readable in the git history`,
    ],
  };
}

interface Moved {
  file: string;
  /** The variables the file now reads, with when a missing one stops it. */
  stops: Map<string, RequiredRead['stops'] | undefined>;
}

/** Moves every occurrence of the values in another file the plan found them in, under the names they took; null when nothing moved. */
async function moveValuesIn(dir: string, file: string, values: Set<string>, plan: CredentialPlan, names: Map<string, string>): Promise<Moved | null> {
  const original = await readTreeFile(dir, file);
  if (original === null || !codeParserFor(file)) return null;
  const taken = namesTaken(file, original, values, detectedSecrets(original));
  const stops = new Map<string, RequiredRead['stops'] | undefined>();
  let text = original;
  for (const planned of plan.credentials.filter((c) => c.file === file && values.has(c.value))) {
    for (let skip = 0; ; ) {
      const at = occurrences(text, planned.value)[skip];
      if (at === undefined) break;
      const given = names.get(planned.value) ?? plan.nameOf(planned.value);
      const change = changeFor(file, text, { rule: planned.rule, start: at, end: at + planned.value.length, startLine: lineOf(text, at) }, { taken, given });
      if ('refused' in change) {
        skip++;
        continue;
      }
      text = change.text;
      if (change.name) {
        names.set(planned.value, change.name);
        if (!stops.has(change.name)) stops.set(change.name, change.stops);
      }
    }
  }
  if (text === original || newSyntaxErrors(file, original, text)) return null;
  await writeTreeFile(dir, file, text);
  return { file, stops };
}

/** What the user must do about a variable, and what the app now does without it. */
function variableNote(file: string, name: string, stops: RequiredRead['stops'] | undefined, where: string): string {
  if (!stops) return `Set the environment variable ${name} wherever ${file} runs${where}`;
  const when =
    stops.at === 'start'
      ? `${file} now stops when it loads, with an error naming ${name}, if the variable is unset or empty`
      : `${stops.functionName ? `${stops.functionName}() in ${file}` : `the code in ${file}`} now raises an error naming ${name} when it runs with the variable unset or empty`;
  return `The app now needs the environment variable ${name}: ${when}. Set it wherever ${file} runs${where}`;
}

interface Listed {
  files: string[];
  /** Where a variable is listed, as a clause for its note. */
  where(name: string): string;
}

/**
 * Lists the variables in the repository's environment template and compose services. One fix per
 * repository writes there, the fix of the plan's first credential, and lists every planned variable, so
 * that fixes made one at a time never add lines at the same place; a credential the plan did not see is
 * listed by its own fix.
 */
async function listVariables(dir: string, facts: RepoFacts, plan: CredentialPlan, file: string, values: Set<string>, variables: string[]): Promise<Listed> {
  const template = templatePath(facts);
  const planned = plan.credentials.some((c) => c.file === file && values.has(c.value));
  const owner = plan.owner;
  const writes = !planned || (owner !== undefined && owner.file === file);
  if (!writes) {
    return {
      files: [],
      where: (name) => ` (the fix of the credential in ${owner!.file} line ${owner!.startLine} lists every variable these fixes introduce in ${template}; if that fix is not merged, add \`${name}=\` there)`,
    };
  }
  const byFile = new Map<string, string[]>([[file, variables]]);
  if (planned) for (const c of plan.credentials) byFile.set(c.file, unique([...(byFile.get(c.file) ?? []), plan.nameOf(c.value) ?? c.name]));
  const all = unique([...byFile.values()].flat());
  const files: string[] = [];
  const changedTemplate = await listInEnvTemplate(dir, template, all);
  if (changedTemplate) files.push(changedTemplate);
  const composeOf = new Map<string, string[]>();
  for (const [holder, names] of byFile) {
    for (const compose of await listInCompose(dir, facts, holder, names)) {
      if (!files.includes(compose)) files.push(compose);
      for (const name of names) composeOf.set(name, unique([...(composeOf.get(name) ?? []), compose]));
    }
  }
  return {
    files,
    where: (name) => {
      const compose = composeOf.get(name);
      // A Dockerfile is not where a credential goes: the container gets it from its environment.
      const container = !compose && facts.start.dockerfiles.length ? `; a container built from ${facts.start.dockerfiles[0].path} needs it passed in (docker run -e ${name})` : '';
      return ` (listed without a value in ${template}${compose ? ` and passed to the app's services in ${compose.join(', ')}` : ''}${container})`;
    },
  };
}

/** The name the fixer would give a credential of the tree, or null when it would not move it to the environment. */
function plannedName(file: string, text: string, secret: LocatedSecret, others: LocatedSecret[]): string | null {
  if (notACredential(file, text, secret) || servedToBrowsers(file, text, secret) || !codeParserFor(file) || accountsTable(file, text, secret, others)) return null;
  const change = changeFor(file, text, secret, { taken: namesTaken(file, text, new Set([text.slice(secret.start, secret.end)]), others) });
  return 'refused' in change ? null : (change.name ?? null);
}

function changeFor(file: string, text: string, secret: LocatedSecret, choice: NameChoice): FileChange {
  const parser = codeParserFor(file);
  if (parser) {
    const result = moveSecretInCode(parser, text, secret, choice);
    if (result.kind === 'refused') return { refused: result.reason };
    if (result.kind === 'redacted') return { text: result.text, did: `was replaced with ${REDACTED}, being in a comment or an unused string` };
    return {
      text: result.text,
      name: result.name,
      stops: result.stops,
      did: result.stops
        ? `is now read from the environment variable ${result.name} (${result.lookup}), checked so that the code stops with an error naming it when it is unset or empty`
        : `is now read from the environment (${result.lookup}); set ${result.name} where the code runs`,
    };
  }
  if (CSHARP.test(file)) {
    const result = moveSecretInCSharp(text, secret);
    if (result.kind === 'refused') return { refused: result.reason };
    return { text: result.text, name: result.name, did: `is now read from the environment variable ${result.name}; set it where the code runs` };
  }
  const format = interpolatingFormatOf(file);
  if (format) {
    const result = referenceSecretInConfig(format, text, secret);
    if (result.kind === 'refused') return { refused: result.reason };
    return { text: result.text, name: result.name, did: `is now the reference \${${result.name}}; set ${result.name} in the environment that runs it` };
  }
  if (DOCUMENTATION.test(file) || inApiDescriptionExample(file, text, secret)) {
    return { text: applyEdits(text, [{ start: secret.start, end: secret.end, text: REDACTED }]), did: `was replaced with ${REDACTED}` };
  }
  return { refused: 'the fixer does not know this file type' };
}

/**
 * Names that must not be given to this finding's value: the names the file's other secrets would take, so
 * two values never share one name. A variable the repository already reads is no such name: a value
 * named like it is the same setting, and reuses it.
 */
function namesTaken(file: string, text: string, ownValues: Set<string>, others: LocatedSecret[]): Set<string> {
  const taken = new Set<string>();
  const parser = codeParserFor(file);
  if (!parser) return taken;
  for (const other of others) {
    if (ownValues.has(text.slice(other.start, other.end))) continue;
    const name = secretNameInCode(parser, text, other);
    if (name) taken.add(name);
  }
  return taken;
}

/** The detector's matches in the text, each where it was found (a value repeated on other lines is each of them). */
function detectedSecrets(text: string): LocatedSecret[] {
  const found: LocatedSecret[] = [];
  const starts = lineStarts(text);
  for (const match of detectSecrets(text)) {
    const start = text.indexOf(match.secret, starts[match.startLine - 1] ?? 0);
    if (start !== -1) found.push({ rule: match.rule, start, end: start + match.secret.length, startLine: match.startLine });
  }
  return found;
}

/** A value long and mixed enough that another occurrence of it is the same credential, not a common word. */
function distinctive(value: string): boolean {
  return value.length >= 8 && looksLikeGeneratedSecret(value);
}

/** Where the value occurs as a whole token: not inside a longer word or number. */
function occurrences(text: string, value: string): number[] {
  const found: number[] = [];
  const word = /[A-Za-z0-9_]/;
  for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + value.length)) {
    const before = text[at - 1] ?? '';
    const after = text[at + value.length] ?? '';
    if (!(word.test(value[0]!) && word.test(before)) && !(word.test(value.at(-1)!) && word.test(after))) found.push(at);
  }
  return found;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Why a file's secret cannot move to the environment by editing it, or undefined when it can. */
function unsupportedFile(file: string, finding: FixFinding, text: string, secret: LocatedSecret): string | undefined {
  const base = path.posix.basename(file);
  if (codeParserFor(file) || CSHARP.test(file) || interpolatingFormatOf(file) || DOCUMENTATION.test(file)) return undefined;
  if (inApiDescriptionExample(file, text, secret)) return undefined;
  if (/private-key$/.test(findingRule(finding))) {
    return `${base} holds a private key; take it out of the repository and keep it in a secret store`;
  }
  if (/^\.env(?:\..+)?$|\.env$/i.test(base)) {
    return `${base} holds the value for the environment itself; take the file out of the repository (list it in .gitignore) and keep the value in a secret store`;
  }
  if (DATA_FILES.test(file)) {
    return `${base} is a data file that cannot read the environment; move the value to a secret store or the deployment's environment and have the code read it from there`;
  }
  const extension = path.posix.extname(base);
  return `the fixer knows no way to read the environment in ${extension ? `${extension} files` : base}`;
}

/** The first line with a syntax error the change introduced, or null. */
function newSyntaxErrors(file: string, before: string, after: string): number | null {
  const parser = codeParserFor(file);
  if (!parser) return null;
  const errorsAfter = syntaxErrors(parseCode(parser, after));
  return errorsAfter.count > syntaxErrors(parseCode(parser, before)).count ? errorsAfter.firstLine : null;
}


function unique(items: string[]): string[] {
  return [...new Set(items)];
}
