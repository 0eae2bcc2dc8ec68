import { Lang, registerDynamicLanguage } from '@ast-grep/napi';
import go from '@ast-grep/lang-go';
import java from '@ast-grep/lang-java';
import php from '@ast-grep/lang-php';
import python from '@ast-grep/lang-python';
import ruby from '@ast-grep/lang-ruby';

/** A parser name as ast-grep knows it. */
export type ParserName = 'python' | 'javascript' | 'typescript' | 'tsx' | 'java' | 'go' | 'php' | 'ruby' | 'template';

/** A rule family's language: `javascript` rules run on JavaScript, TypeScript and TSX files alike. */
export type RuleLanguage = 'python' | 'javascript' | 'java' | 'go' | 'php' | 'ruby' | 'template';

let registered = false;

/** Loads the prebuilt tree-sitter grammars shipped in the @ast-grep/lang-* packages (no compilation). */
export function registerLanguages(): void {
  if (registered) return;
  registerDynamicLanguage({ python, java, go, php, ruby } as unknown as Parameters<typeof registerDynamicLanguage>[0]);
  registered = true;
}

const BY_EXTENSION: Record<string, ParserName> = {
  py: 'python',
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript',
  ts: 'typescript', mts: 'typescript', cts: 'typescript',
  tsx: 'tsx',
  java: 'java',
  go: 'go',
  php: 'php',
  rb: 'ruby',
  // Server-side templates are read as text by regex rules.
  html: 'template', htm: 'template', jinja: 'template', jinja2: 'template', j2: 'template', djhtml: 'template',
  tpl: 'template', ejs: 'template', hbs: 'template', erb: 'template',
};

export function parserFor(path: string): ParserName | undefined {
  const ext = path.includes('.') ? path.split('.').pop()!.toLowerCase() : '';
  if (path.endsWith('.d.ts')) return undefined;
  return BY_EXTENSION[ext];
}

export function ruleLanguageOf(parser: ParserName): RuleLanguage {
  return parser === 'typescript' || parser === 'tsx' ? 'javascript' : parser;
}

/** The value `parse()` takes: built-in languages by enum, dynamic ones by name. */
export function astGrepLang(parser: ParserName): Lang | string {
  if (parser === 'javascript') return Lang.JavaScript;
  if (parser === 'typescript') return Lang.TypeScript;
  if (parser === 'tsx') return Lang.Tsx;
  return parser;
}

/** The shape of functions, assignments and calls in a language's tree, for taint tracking. */
export interface TaintSyntax {
  functions: string[];
  /** Node kinds that bind names, with the fields holding the target and the value. */
  bindings: Record<string, { target: string; value: string }>;
  identifiers: string[];
  calls: { kind: string; callee: string; args: string };
  returns: string[];
  /** Identifier names that stand for the receiver, skipped when mapping method arguments to parameters. */
  receivers: string[];
}

export const TAINT_SYNTAX: Partial<Record<RuleLanguage, TaintSyntax>> = {
  python: {
    functions: ['function_definition', 'lambda'],
    bindings: {
      assignment: { target: 'left', value: 'right' },
      augmented_assignment: { target: 'left', value: 'right' },
      for_statement: { target: 'left', value: 'right' },
      named_expression: { target: 'name', value: 'value' },
      for_in_clause: { target: 'left', value: 'right' },
      as_pattern: { target: 'alias', value: '' },
    },
    identifiers: ['identifier'],
    calls: { kind: 'call', callee: 'function', args: 'arguments' },
    returns: ['return_statement', 'yield'],
    receivers: ['self', 'cls'],
  },
  javascript: {
    functions: ['function_declaration', 'function_expression', 'arrow_function', 'method_definition', 'generator_function_declaration', 'generator_function'],
    bindings: {
      variable_declarator: { target: 'name', value: 'value' },
      assignment_expression: { target: 'left', value: 'right' },
      augmented_assignment_expression: { target: 'left', value: 'right' },
      for_in_statement: { target: 'left', value: 'right' },
    },
    identifiers: ['identifier', 'shorthand_property_identifier_pattern', 'shorthand_property_identifier'],
    calls: { kind: 'call_expression', callee: 'function', args: 'arguments' },
    returns: ['return_statement'],
    receivers: ['this'],
  },
};
