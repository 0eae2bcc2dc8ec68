import type { Handler, ProgramFile, PythonProgram } from './python-program.ts';

// Where request data crosses into another module: functions an API description routes requests to, and
// top-level functions a handler calls, through an import, with request data among the arguments. Their
// parameters are then taken as request data when their own file is traced.

/** For each file, its functions that receive request data, each with where the data comes from. */
export type EntryPoints = Map<ProgramFile, Map<string, string>>;

/** The longest shared start of two dotted module names, in segments: the nearer package wins a relative import. */
function sharedDepth(a: string, b: string): number {
  const x = a.split('.');
  const y = b.split('.');
  let n = 0;
  while (n < x.length && n < y.length && x[n] === y[n]) n++;
  return n;
}

/** The file and top-level function a call in `file` names, through the file's imports. */
function resolve(program: PythonProgram, file: ProgramFile, callee: string): { file: ProgramFile; name: string } | undefined {
  const parts = callee.split('.');
  let name = parts.pop()!;
  let module: string;
  if (!parts.length) {
    const target = file.importedNames.get(name);
    const at = target?.lastIndexOf('.') ?? -1;
    if (!target || at < 0) return undefined;
    module = target.slice(0, at);
    name = target.slice(at + 1);
  } else {
    const head = file.importedNames.get(parts[0]);
    if (!head) return undefined;
    module = [head, ...parts.slice(1)].join('.');
  }
  module = module.replace(/^\.+/, '');
  if (!module) return undefined;
  const candidates = program.files.filter((f) => f !== file && (f.module === module || f.module.endsWith(`.${module}`)) && f.functions.has(name));
  candidates.sort((a, b) => sharedDepth(b.module, file.module) - sharedDepth(a.module, file.module));
  return candidates[0] ? { file: candidates[0], name } : undefined;
}

const describe = (h: Handler, line: number) => `${h.file.path}:${line} (${h.className ? `${h.className}.` : ''}${h.name})`;

export function entryPointsOf(program: PythonProgram): EntryPoints {
  const entries: EntryPoints = new Map();
  const add = (file: ProgramFile, name: string, from: string) => {
    let names = entries.get(file);
    if (!names) entries.set(file, (names = new Map()));
    if (!names.has(name)) names.set(name, from);
  };
  for (const h of program.handlers) {
    if (h.operation && !h.className) add(h.file, h.name, `the API operation ${h.operation.method} ${h.operation.path}`);
    for (const call of h.requestCalls) {
      const target = resolve(program, h.file, call.callee);
      if (target) add(target.file, target.name, describe(h, call.line));
    }
  }
  return entries;
}
