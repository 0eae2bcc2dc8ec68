import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { moduleImports } from '../../scripts/module-imports.ts';

// No module of src/ imports itself back through others: every import leads one layer down, so a module can
// be read, tested and moved knowing only what lies below it. Every import counts: type-only ones (`import
// type`, `export … from`, `typeof import('…')`), since a type still ties the two modules' meanings
// together, and a dynamic `import('…')` with a literal path too. A registry (the scan-type descriptors,
// the code hosts, the model providers) loads a heavy module that way on first use, which keeps it cheap
// to read, but the loaded module still may not import the registry back: what both need lives below both
// (scanning/scan-type-names.ts, llm/provider.ts). Only the engine thread pool (scanning/pool-thread.ts)
// imports a computed path, which no reading of the source can follow.

const SRC = path.resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

const rel = (file: string) => path.relative(SRC, file).split(path.sep).join('/');

/** The relative module specifiers a file imports: static, type-only and dynamic (with a literal path). */
const importsOf = (file: string): string[] =>
  moduleImports(file, fs.readFileSync(file, 'utf8')).map((i) => i.specifier).filter((s) => s.startsWith('.'));

/** Each module of src/ with the modules of src/ it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const targets = importsOf(file)
      .map((spec) => path.resolve(path.dirname(file), spec))
      .filter((target) => target.endsWith('.ts') && fs.existsSync(target))
      .map(rel);
    graph.set(rel(file), [...new Set(targets)].sort());
  }
  return graph;
}

/**
 * The strongly connected components (Tarjan): modules that import each other, through others or not. Each
 * comes after every component it imports, so the first ones import nothing in src/.
 */
function components(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    found.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);
  return found;
}

/** One closed path through a cycle's modules, for a readable failure: a → b → … → a. */
function pathThrough(graph: Map<string, string[]>, component: string[]): string[] {
  const members = new Set(component);
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const target of graph.get(node) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const chain = [node];
        while (chain[0] !== start) chain.unshift(previous.get(chain[0]!)!);
        return [...chain, start];
      }
      if (!previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return component;
}

/** The components that are cycles: more than one module, or a module importing itself. */
const isCycle = (graph: Map<string, string[]>, component: string[]) => component.length > 1 || (graph.get(component[0]!) ?? []).includes(component[0]!);

/** How many layers the modules stack into: the longest chain of imports, counted in modules (a cycle counting as one). */
function layerCount(graph: Map<string, string[]>, sorted: string[][]): number {
  const layer = new Map<string, number>();
  for (const component of sorted) {
    const below = component.flatMap((node) => (graph.get(node) ?? []).filter((target) => !component.includes(target)));
    const value = 1 + Math.max(0, ...below.map((target) => layer.get(target)!));
    for (const node of component) layer.set(node, value);
  }
  return Math.max(0, ...layer.values());
}

test('no module of src/ imports itself back through others', (t) => {
  const graph = importGraph();
  const sorted = components(graph);
  const found = sorted.filter((component) => isCycle(graph, component));
  t.diagnostic(`${graph.size} modules in ${layerCount(graph, sorted)} layers`);
  const described = found.map((component) => `${component.length} modules: ${pathThrough(graph, component).join(' → ')}\n  all: ${component.join(', ')}`);
  assert.equal(found.length, 0, `import cycles in src/:\n${described.join('\n')}`);
});
