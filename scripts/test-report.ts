// A node:test reporter used beside the usual one by scripts/test.ts: at the end of a pass it prints the
// pass's wall time and its 15 slowest files, each with its wall time (process start to exit) and the CPU
// it used with the processes it started (recorded by scripts/test-cpu.ts when BULWARK_TEST_CPU_DIR is set).
import fs from 'node:fs';
import path from 'node:path';

const SHOWN = 15;

interface TestEvent {
  type: string;
  data: { name?: string; file?: string; nesting?: number; details?: { duration_ms?: number }; duration_ms?: number };
}

function cpuByFile(): Map<string, number> {
  const byFile = new Map<string, number>();
  const dir = process.env.BULWARK_TEST_CPU_DIR;
  if (!dir || !fs.existsSync(dir)) return byFile;
  for (const name of fs.readdirSync(dir)) {
    try {
      const { file, cpuMs } = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as { file: string; cpuMs: number };
      byFile.set(path.resolve(file), (byFile.get(path.resolve(file)) ?? 0) + cpuMs);
    } catch {
      // written as the process died: left out
    }
  }
  return byFile;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1).padStart(6)} s`;

export default async function* slowestFiles(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  // scripts/test.ts says when it started the pass; the reporter itself starts later.
  const started = Number(process.env.BULWARK_TEST_PASS_STARTED) || Date.now();
  const whole = new Map<string, number>();
  const topLevel = new Map<string, number>();
  for await (const { type, data } of source) {
    if (type !== 'test:complete' || data.nesting !== 0 || !data.file) continue;
    const duration = data.details?.duration_ms ?? data.duration_ms ?? 0;
    // A file's own entry (named after the file) spans its whole process; without one, its top-level tests add up.
    if (data.name !== undefined && path.resolve(data.name) === path.resolve(data.file)) whole.set(data.file, duration);
    else topLevel.set(data.file, (topLevel.get(data.file) ?? 0) + duration);
  }
  const cpu = cpuByFile();
  const rows = [...new Set([...whole.keys(), ...topLevel.keys()])]
    .map((file): [string, number] => [file, whole.get(file) ?? topLevel.get(file)!])
    .sort((a, b) => b[1] - a[1]);
  const pass = process.env.BULWARK_TEST_PASS ?? 'the run';
  const totalCpu = [...cpu.values()].reduce((sum, ms) => sum + ms, 0);
  const lines = [
    '',
    `--- ${pass}: ${rows.length} file${rows.length === 1 ? '' : 's'} in ${seconds(Date.now() - started).trim()} wall time${cpu.size ? `, ${seconds(totalCpu).trim()} CPU` : ''}; the ${Math.min(SHOWN, rows.length)} slowest:`,
    `   wall       CPU  file`,
    ...rows.slice(0, SHOWN).map(([file, ms]) => {
      const used = cpu.get(path.resolve(file));
      return `${seconds(ms)}  ${used === undefined ? '       ' : seconds(used)}  ${path.relative(process.cwd(), file)}`;
    }),
    '',
  ];
  yield lines.join('\n');
}
