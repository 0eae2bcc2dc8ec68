import type { RepoFacts } from '../../../../repo-facts.ts';
import { requiredRead, softRead, VALUE_SLOT } from '../../../secrets/required-setting.ts';
import { fieldOf, kindOf } from '../../../shared/syntax.ts';
import { refuse, type Codemod, type CodemodContext } from '../codemod.ts';
import { pythonImport } from '../edit-kit.ts';

// ALLOWED_HOSTS = ['*'] → the host names come from an environment variable the settings require, the way a
// committed credential is moved (required-setting.ts): a missing or empty variable stops the app at start
// with a message naming it, and the fix's notes say to list it in the repository's environment template and
// compose services (shared files a codemod's fix leaves alone). The variable is the one the repository
// already reads for its hosts, with the separator it splits that one by (a comma unless the code or the
// template shows spaces), else DJANGO_ALLOWED_HOSTS, comma-separated.

const DEFAULT_NAME = 'DJANGO_ALLOWED_HOSTS';
const HOSTS_NAME = /^(?:[A-Z][A-Z0-9_]*_)?ALLOWED_HOSTS$/;

interface HostsVariable {
  name: string;
  /** What the list is split by; null for blank space (`str.split()`). */
  separator: string | null;
}

/** The variable the repository already reads its hosts from (in code, or listed in its environment template), else the default. */
async function hostsVariable(context: CodemodContext, facts: RepoFacts): Promise<HostsVariable> {
  const read = Object.keys(facts.config.envReads).filter((name) => HOSTS_NAME.test(name));
  const ranked = read.sort((a, b) => Number(b === DEFAULT_NAME) - Number(a === DEFAULT_NAME) || Number(facts.config.envReads[b]!.includes(context.file)) - Number(facts.config.envReads[a]!.includes(context.file)) || a.localeCompare(b));
  for (const name of ranked) {
    for (const file of facts.config.envReads[name]!) {
      const split = new RegExp(`["']${name}["'][^)\\n]*\\)\\s*\\.split\\(\\s*(?:(["'])(.*?)\\1)?\\s*\\)`).exec((await context.readFile(file)) ?? '');
      if (split) return { name, separator: split[2] === undefined || split[2] === ' ' ? null : split[2] };
    }
  }
  const templates = await Promise.all(facts.config.envTemplates.map((t) => context.readFile(t)));
  for (const text of templates) {
    for (const [, name, value] of (text ?? '').matchAll(/^[ \t]*(?:export[ \t]+)?([A-Z][A-Z0-9_]*)[ \t]*=[ \t]*["']?([^"'\r\n#]*)/gm)) {
      if (!HOSTS_NAME.test(name!) || (ranked.length && !ranked.includes(name!))) continue;
      return { name: name!, separator: /\S\s+\S/.test(value!.trim()) && !value!.includes(',') ? null : ',' };
    }
  }
  return { name: ranked[0] ?? DEFAULT_NAME, separator: ',' };
}

export const pythonAllowedHostsFromEnv: Codemod = {
  name: 'python/allowed-hosts-from-env',
  rules: ['python.django.config.allowed-hosts-any'],
  async rewrite(context) {
    const { node, root, text, file } = context;
    const assignment = node!;
    const value = kindOf(assignment) === 'assignment' ? fieldOf(assignment, 'right') : null;
    if (!value) return refuse('ALLOWED_HOSTS is not assigned a plain list here');
    if (assignment.ancestors().some((a) => kindOf(a) === 'class_definition')) {
      return refuse('ALLOWED_HOSTS is set in a class body, where the check of the variable cannot go beside it without changing the class');
    }
    const { name, separator } = await hostsVariable(context, await context.facts());
    const template = separator === null ? `${VALUE_SLOT}.split()` : `[host.strip() for host in ${VALUE_SLOT}.split(${JSON.stringify(separator)}) if host.strip()]`;
    const result = requiredRead('python', false, text, { node: value, template, holds: 'the host names the site is served under' }, name, softRead('python', name, 'os'));
    if ('refused' in result) return refuse(result.refused);
    const list = separator === null ? 'separated by spaces' : separator === ',' ? 'comma-separated' : `separated by "${separator}"`;
    const example = ['example.com', 'www.example.com'].join(separator ?? ' ');
    const local = ['localhost', '127.0.0.1', '[::1]'].join(separator ?? ' ');
    const stops = result.stops.at === 'start' ? `${file} now stops when it loads, with an error naming ${name}, if it is unset or empty` : `the settings now raise an error naming ${name} if it is unset or empty`;
    return {
      edits: [...result.edits, ...pythonImport(root!, text, 'import os', 'os')],
      variables: [name],
      note:
        `ALLOWED_HOSTS now comes from the environment variable ${name}, the host names the site is served under, ${list} (${example}); ${stops}. ` +
        `For local development set it to ${local}, the hosts Django allows by itself when DEBUG is on and ALLOWED_HOSTS is empty.`,
    };
  },
};
