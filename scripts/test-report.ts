// A node:test reporter used beside the usual one by scripts/test.ts: at the end of the run it prints, for
// each pass (without a database, on sqlite, on postgres), its wall time (first file started to last file
// ended) and its 15 slowest files, each with its wall time (process start to exit) and the CPU it used with
// the processes it started (recorded by scripts/test-cpu.ts when BULWARK_TEST_CPU_DIR is set).
import fs from 'node:fs';
import path from 'node:path';

const SHOWN = 15;
const PASS_NAMES: Record<string, string> = { none: 'without a database', sqlite: 'on sqlite', postgres: 'on postgres' };

interface TestEvent {
  type: string;
  data: { name?: string; file?: string; nesting?: number; details?: { duration_ms?: number } };
}

interface FileRun {
  pass: string;
  file: string;
  wallMs: number;
  endedAt: number;
}

/** The pass and test file of a module scripts/test.ts wrote as `<run>/<database>/<file>`; else the file itself. */
function passAndFile(module: string): { pass: string; file: string } {
  const runDir = process.env.BULWARK_TEST_RUN_DIR;
  const inRun = runDir ? path.relative(runDir, module) : '..';
  if (inRun.startsWith('..')) return { pass: 'the run', file: path.relative(process.cwd(), module) };
  const [database, ...rest] = inRun.split(path.sep);
  return { pass: PASS_NAMES[database!] ?? database!, file: rest.join(path.sep) };
}

function cpuByModule(): Map<string, number> {
  const byModule = new Map<string, number>();
  const dir = process.env.BULWARK_TEST_CPU_DIR;
  if (!dir || !fs.existsSync(dir)) return byModule;
  for (const name of fs.readdirSync(dir)) {
    try {
      const { file, cpuMs } = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as { file: string; cpuMs: number };
      byModule.set(path.resolve(file), (byModule.get(path.resolve(file)) ?? 0) + cpuMs);
    } catch {
      // written as the process died: left out
    }
  }
  return byModule;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1).padStart(6)} s`;

export default async function* slowestFiles(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  // scripts/test.ts says when it started the run; the reporter itself starts later.
  const started = Number(process.env.BULWARK_TEST_STARTED) || Date.now();
  const runs = new Map<string, FileRun>();
  for await (const { type, data } of source) {
    if (type !== 'test:complete' || data.nesting !== 0 || !data.file || data.name === undefined) continue;
    // A file's own entry, named after the file, spans its whole process.
    if (path.resolve(data.name) !== path.resolve(data.file)) continue;
    runs.set(path.resolve(data.file), { ...passAndFile(path.resolve(data.file)), wallMs: data.details?.duration_ms ?? 0, endedAt: Date.now() });
  }
  const cpu = cpuByModule();
  const lines: string[] = [''];
  const order = Object.values(PASS_NAMES);
  const passes = [...new Set([...runs.values()].map((run) => run.pass))].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  for (const pass of passes) {
    const rows = [...runs].filter(([, run]) => run.pass === pass).sort((a, b) => b[1].wallMs - a[1].wallMs);
    const first = Math.min(...rows.map(([, run]) => run.endedAt - run.wallMs));
    const last = Math.max(...rows.map(([, run]) => run.endedAt));
    const passCpu = rows.reduce((sum, [module]) => sum + (cpu.get(module) ?? 0), 0);
    lines.push(
      `--- ${pass}: ${rows.length} file${rows.length === 1 ? '' : 's'} in ${seconds(last - first).trim()} wall time${cpu.size ? `, ${seconds(passCpu).trim()} CPU` : ''}; the ${Math.min(SHOWN, rows.length)} slowest:`,
      `   wall       CPU  file`,
      ...rows.slice(0, SHOWN).map(([module, run]) => {
        const used = cpu.get(module);
        return `${seconds(run.wallMs)}  ${used === undefined ? '        ' : seconds(used)}  ${run.file}`;
      }),
      '',
    );
  }
  const totalCpu = [...cpu.values()].reduce((sum, ms) => sum + ms, 0);
  lines.push(`--- the whole run: ${runs.size} files in ${seconds(Date.now() - started).trim()} wall time${cpu.size ? `, ${seconds(totalCpu).trim()} CPU in test files` : ''}`, '');
  yield lines.join('\n');
}
