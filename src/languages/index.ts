import { registerDynamicLanguage, type Lang } from '@ast-grep/napi';
import { go } from './go.ts';
import { java } from './java.ts';
import { javascript } from './javascript.ts';
import type { CodeSyntax, Language as LanguageOf, TaintSyntax } from './language.ts';
import { php } from './php.ts';
import { python } from './python.ts';
import { ruby } from './ruby.ts';
import { template } from './template.ts';

export type { CodeSyntax, TaintSyntax } from './language.ts';

/** A rule family's language: `javascript` rules run on JavaScript, TypeScript and TSX files alike. */
export type RuleLanguage = 'python' | 'javascript' | 'java' | 'go' | 'php' | 'ruby' | 'template';

/** A parser name as ast-grep knows it; `template` files are read as text by regex rules. */
export type ParserName = 'python' | 'javascript' | 'typescript' | 'tsx' | 'java' | 'go' | 'php' | 'ruby' | 'template';

/** A language module, its id and parsers among those above. */
export type Language = LanguageOf<RuleLanguage, ParserName>;

/** Every language Bulwark reads, one module each; SAST, taint tracking and the fixers derive from it. */
export const LANGUAGES: readonly Language[] = [python, javascript, java, go, php, ruby, template];

export const RULE_LANGUAGES: readonly RuleLanguage[] = LANGUAGES.map((language) => language.id);

const BY_PARSER = new Map<ParserName, Language>(
  LANGUAGES.flatMap((language) => Object.keys(language.parsers).map((parser) => [parser as ParserName, language] as const)),
);

const BY_EXTENSION = new Map<string, ParserName>(
  LANGUAGES.flatMap((language) =>
    Object.entries(language.parsers).flatMap(([parser, spec]) => spec.extensions.map((ext) => [ext, parser as ParserName] as const)),
  ),
);

let registered = false;

/** Loads the prebuilt tree-sitter grammars shipped in the @ast-grep/lang-* packages (no compilation). */
export function registerLanguages(): void {
  if (registered) return;
  const grammars = Object.fromEntries(LANGUAGES.filter((l) => l.dynamicGrammar).map((l) => [l.id, l.dynamicGrammar]));
  registerDynamicLanguage(grammars as Parameters<typeof registerDynamicLanguage>[0]);
  registered = true;
}

/** The parser for a file by its extension; declaration files (`.d.ts`) hold no code to analyze. */
export function parserFor(path: string): ParserName | undefined {
  const ext = path.includes('.') ? path.split('.').pop()!.toLowerCase() : '';
  if (path.endsWith('.d.ts')) return undefined;
  return BY_EXTENSION.get(ext);
}

export function languageOf(parser: ParserName): Language {
  return BY_PARSER.get(parser)!;
}

export function ruleLanguageOf(parser: ParserName): RuleLanguage {
  return languageOf(parser).id;
}

/** The value `parse()` takes: built-in languages by enum, dynamic ones by name. */
export function astGrepLang(parser: ParserName): Lang | string {
  return languageOf(parser).parsers[parser]?.astGrep ?? parser;
}

export function taintSyntaxOf(language: RuleLanguage): TaintSyntax | undefined {
  return LANGUAGES.find((l) => l.id === language)?.taint;
}

export function codeSyntaxOf(parser: ParserName): CodeSyntax | undefined {
  return languageOf(parser).code;
}
