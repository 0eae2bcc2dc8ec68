import type { Lang, SgNode } from '@ast-grep/napi';

// What Bulwark knows of a programming language's grammar, in one module per language (python.ts, …):
// which files it reads, how ast-grep parses them, and the node kinds that taint tracking (SAST) and the
// secrets fixer look for. index.ts is the registry everything else derives from; it names the languages
// (RuleLanguage) and parsers (ParserName) that a module's `Language<id, parsers>` must belong to.

export interface ParserSpec {
  /** File extensions (lower case, without the dot) this parser reads. */
  extensions: readonly string[];
  /** What ast-grep's `parse()` takes: a built-in language, or the name of a grammar in `dynamicGrammar`. */
  astGrep?: Lang | string;
}

/** A value computed without running the program. */
export type Constant = number | boolean | string;

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
  /** `a.b` (the object in field `object`) and `a[i]` (in `object` or `value`): taint flows from the container. */
  members: string[];
  subscripts: string[];
  /** `name=value` arguments and `key: value` pairs, the value in field `value`. */
  namedValues: string[];
  /** Keyword arguments of a call, the value in field `value`. */
  keywordArguments: string[];
  /** Statement-block bodies; a function whose body is anything else (an arrow's expression) returns it. */
  blocks: string[];
  /** Binary expressions (a `+` starts from its left side) and template strings (one starting with `${p}` from p). */
  binaryExpressions: string[];
  templateStrings: string[];
  /** Expressions that hand on their only child (await, parentheses). */
  passThrough: string[];
  /** The wrapper of a decorated function, whose `@` lines may make it a request handler. */
  decorated: string[];
  /** Conditional expressions by kind, with the place of the condition among their named children: it picks a branch, it is not the value. */
  conditionals?: Record<string, number>;
  /**
   * Subscripts by a constant string key (`m["k"]`, the key in field `index`, of a kind in `strings`) taint
   * only that entry: a container filled key by key holds request data under some keys and constants under others.
   */
  constantKeys?: { index: string; strings: string[] };
  /**
   * A check that leaves the function when a value fails it (`if ".." in p: return`): after it, the values it
   * `validates` (given the condition's text and a name) are clean.
   */
  guards?: { kind: string; condition: string; body: string; exits: string[]; validates: (condition: string, name: string) => boolean };
  /**
   * Blocks that may or may not run (branch, case and loop bodies): a clean value assigned in one clears a
   * variable only if the variable was tainted within that block, else the tainted value may still arrive.
   */
  branchBlocks?: string[];
  /** Methods that store their arguments in the object they are called on (`items.append(v)`, `conf.set(s, k, v)`). */
  storeMethods?: string[];
  /**
   * Branches decided by a constant (`if 7 * 42 - n > 200:` with n bound once to a number, `match s[1]:` with s
   * bound once to a string): the branch never taken binds nothing and reaches no sink. `fold` computes an
   * expression's value from literals and names it can look up, or undefined; `dead` gives the parts of one of
   * the `statements` never run.
   */
  constantBranches?: {
    statements: string[];
    fold: (node: SgNode, valueOf: (name: string) => Constant | undefined) => Constant | undefined;
    dead: (statement: SgNode, valueOf: (name: string) => Constant | undefined) => SgNode[];
  };
}

/**
 * What the secrets fixer needs of a language's tree: which nodes are string literals, which bind a value
 * to a name (and in which field the name is), where an expression that reads the environment may not
 * stand, and how the environment is read.
 */
export interface CodeSyntax<Parser extends string = string> {
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
  /** A string standing alone as this kind of statement is read by nobody (a docstring, a disabled block). */
  bareStringStatement?: string;
  /** The expression that reads the variable `name` of the environment (`binding`: the name the os package is imported as). */
  envLookup(name: string, binding: string, parser: Parser): string;
}

export interface Language<Id extends string = string, Parser extends string = string> {
  /** The rule family: rules/sast/<id>/ and the `language:` of its rule files. */
  readonly id: Id;
  readonly parsers: Partial<Record<Parser, ParserSpec>>;
  /** A prebuilt tree-sitter grammar (an @ast-grep/lang-* package) registered with ast-grep under `id`. */
  readonly dynamicGrammar?: unknown;
  /** Taint rules run only for languages that describe their tree here. */
  readonly taint?: TaintSyntax;
  /** The secrets fixer moves secrets out of code only in languages that describe it here. */
  readonly code?: CodeSyntax<Parser>;
}
