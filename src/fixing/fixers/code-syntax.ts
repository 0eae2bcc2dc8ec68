import type { CodeParser } from './syntax.ts';

// What the secrets fixer needs to know of each language's tree: which nodes are string literals, which
// bind a value to a name (and in which field the name is), and where an expression that reads the
// environment may not stand.

export type CodeLanguage = 'python' | 'javascript' | 'typescript' | 'go' | 'java' | 'ruby' | 'php';

export function codeLanguageOf(parser: CodeParser): CodeLanguage {
  return parser === 'tsx' ? 'typescript' : parser;
}

export interface LanguageSyntax {
  strings: string[];
  /** Literals written next to each other or joined with `+`, read as one value. */
  concatenations: string[];
  /** Parts of a string literal that splice code in. */
  interpolations: string[];
  /** Nodes that only wrap their single child, looked through on the way to a binding. */
  wrappers: string[];
  /** Node kinds that bind a value to a target, with the field holding the target (the first named child when absent). */
  bindings: Record<string, string | null>;
  /** Call nodes and the field holding their argument list. */
  calls: { kind: string; args: string };
  /** Kinds of a short-circuit `a || b` / `a or b` expression. */
  fallbacks: { kind: string; operators: string[] }[];
  /** Calls that read one variable of the environment with a default: the default is the secret. */
  envGetters: RegExp;
  /** Ancestors where only a compile-time constant may stand, with why. */
  constantOnly: Record<string, string>;
}

const JS_LIKE: LanguageSyntax = {
  strings: ['string', 'template_string'],
  concatenations: ['binary_expression'],
  interpolations: ['template_substitution'],
  wrappers: ['parenthesized_expression'],
  bindings: {
    variable_declarator: 'name',
    assignment_expression: 'left',
    pair: 'key',
    public_field_definition: 'name',
    field_definition: 'property',
    required_parameter: 'pattern',
    optional_parameter: 'pattern',
    assignment_pattern: 'left',
    jsx_attribute: null,
  },
  calls: { kind: 'call_expression', args: 'arguments' },
  fallbacks: [{ kind: 'binary_expression', operators: ['||', '??'] }],
  envGetters: /^$/,
  constantOnly: {
    enum_assignment: 'an enum member must be a constant',
    enum_body: 'an enum member must be a constant',
    literal_type: 'it is a type, not a value',
    import_statement: 'it is a module name',
  },
};

export const SYNTAX: Record<CodeLanguage, LanguageSyntax> = {
  python: {
    strings: ['string'],
    concatenations: ['concatenated_string', 'binary_operator'],
    interpolations: ['interpolation'],
    wrappers: ['parenthesized_expression'],
    bindings: {
      assignment: 'left',
      augmented_assignment: 'left',
      keyword_argument: 'name',
      pair: 'key',
      default_parameter: 'name',
      typed_default_parameter: 'name',
    },
    calls: { kind: 'call', args: 'arguments' },
    fallbacks: [{ kind: 'boolean_operator', operators: ['or'] }],
    envGetters: /^os\.(?:getenv|environ\.get|environ\.setdefault)$/,
    constantOnly: {},
  },
  javascript: JS_LIKE,
  typescript: JS_LIKE,
  go: {
    strings: ['interpreted_string_literal', 'raw_string_literal'],
    concatenations: ['binary_expression'],
    interpolations: [],
    wrappers: ['parenthesized_expression', 'expression_list', 'literal_element'],
    bindings: {
      var_spec: 'name',
      const_spec: 'name',
      short_var_declaration: 'left',
      assignment_statement: 'left',
      keyed_element: 'key',
    },
    calls: { kind: 'call_expression', args: 'arguments' },
    fallbacks: [],
    envGetters: /^$/,
    constantOnly: { field_declaration: 'a struct tag must be a literal', import_spec: 'it is a package path' },
  },
  java: {
    strings: ['string_literal'],
    concatenations: ['binary_expression'],
    interpolations: [],
    wrappers: ['parenthesized_expression'],
    bindings: { variable_declarator: 'name', assignment_expression: 'left' },
    calls: { kind: 'method_invocation', args: 'arguments' },
    fallbacks: [],
    envGetters: /^$/,
    constantOnly: {
      annotation: 'an annotation argument must be a constant',
      switch_label: 'a case label must be a constant',
    },
  },
  ruby: {
    strings: ['string'],
    concatenations: ['binary', 'chained_string'],
    interpolations: ['interpolation'],
    wrappers: ['parenthesized_statements'],
    bindings: { assignment: 'left', operator_assignment: 'left', pair: 'key' },
    calls: { kind: 'call', args: 'arguments' },
    fallbacks: [{ kind: 'binary', operators: ['||', 'or'] }],
    envGetters: /^ENV\.fetch$/,
    constantOnly: {},
  },
  php: {
    strings: ['string', 'encapsed_string'],
    concatenations: ['binary_expression'],
    interpolations: ['variable_name', 'member_access_expression', 'subscript_expression', 'dynamic_variable_name'],
    wrappers: ['parenthesized_expression', 'argument'],
    bindings: { assignment_expression: 'left', array_element_initializer: null },
    calls: { kind: 'function_call_expression', args: 'arguments' },
    fallbacks: [{ kind: 'binary_expression', operators: ['??', '?:', '||', 'or'] }],
    envGetters: /^$/,
    constantOnly: {
      const_element: 'a PHP constant cannot call getenv()',
      property_element: 'a PHP property default cannot call getenv()',
      simple_parameter: 'a PHP parameter default cannot call getenv()',
      static_variable_declaration: 'a PHP static variable cannot call getenv()',
      attribute: 'an attribute argument must be a constant',
    },
  },
};
