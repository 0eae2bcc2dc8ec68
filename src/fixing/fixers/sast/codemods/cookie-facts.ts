import type { CodemodContext } from './codemod.ts';
import { declaredBelow } from './app-facts.ts';

// Which web framework sets a cookie, and the first version of it whose cookie API takes SameSite: the
// argument passed to an older version is a TypeError at the first request (Python) or silently dropped,
// so a fix that adds it there breaks the app or claims what it does not do.

export interface SameSiteSupport {
  /** The framework's package, and the version that added the argument. */
  framework: string;
  since: string;
  /** What the repository declares that rules that version out, or null when it allows it. */
  declaredBelow: string | null;
}

type Facts = Pick<CodemodContext, 'readFile' | 'files' | 'facts'>;

const PYTHON_SAMESITE: Record<string, [string, string]> = {
  django: ['Django', '2.1'], // HttpResponse.set_cookie(samesite=)
  aiohttp: ['aiohttp', '3.7'], // StreamResponse.set_cookie(samesite=)
  werkzeug: ['Werkzeug', '0.14'], // Response.set_cookie(samesite=), which Flask's responses are
};

/** A package with its declaration as a reader writes it: `Django==1.11.29`, `Flask >=0.12` reads `Flask>=0.12`, a bare version gets a space. */
const named = (name: string, spec: string) => (/^[\d^~]/.test(spec) ? `${name} ${spec}` : `${name}${spec}`);

/** The SameSite support of the Python framework a file sets its cookie with (Django, aiohttp, else Flask's Werkzeug). */
export async function pythonSameSite(facts: Facts, text: string): Promise<SameSiteSupport> {
  const imported = /^\s*(from|import)\s+django\b/m.test(text) ? 'django' : /^\s*(from|import)\s+aiohttp\b/m.test(text) ? 'aiohttp' : 'werkzeug';
  const [framework, since] = PYTHON_SAMESITE[imported]!;
  let below = await declaredBelow(facts, framework, since);
  if (below) below = named(framework, below);
  // Flask before 1.0 did not require a Werkzeug with SameSite, so with no Werkzeug declared it may lack it.
  if (!below && imported === 'werkzeug') {
    const flask = await declaredBelow(facts, 'Flask', '1.0');
    if (flask && !(await facts.facts()).packages['werkzeug']) below = `${named('Flask', flask)}, which does not require a Werkzeug of 0.14 or later`;
  }
  return { framework, since, declaredBelow: below };
}

const JS_SAMESITE: Record<string, string> = { express: '4.14.0', 'express-session': '1.14.0', 'cookie-session': '1.3.0' };

/** The SameSite support of an Express cookie (res.cookie through express, or a session middleware's cookie). */
export async function expressSameSite(facts: Facts, framework: 'express' | 'express-session' | 'cookie-session'): Promise<SameSiteSupport> {
  const since = JS_SAMESITE[framework]!;
  const below = await declaredBelow(facts, framework, since);
  return { framework, since, declaredBelow: below ? `${framework}@${below}` : null };
}
