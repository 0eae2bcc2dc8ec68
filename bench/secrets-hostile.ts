// The secrets rules on hostile input (test/support/hostile-inputs.ts, which the rule tests also run): each
// rule's regex is timed on every input and on its own near miss, best of a few runs, and the rules slowest on
// the input that is worst for them are listed. `npm run bench:secrets` prints the table after its corpus
// figures; this module prints it alone:
//
//   node bench/secrets-hostile.ts [--top 5] [--runs 3] [--length 20000]
import { SECRET_RULES } from '../src/scanning/secrets/rules.ts';
import { allMatches, hostileInputs, nearMiss } from '../test/support/hostile-inputs.ts';

export interface HostileTiming {
  rule: string;
  /** The input the rule is slowest on. */
  input: string;
  characters: number;
  /** Best of the runs on that input. */
  ms: number;
}

export interface HostileReport {
  /** Every rule, slowest first. */
  rules: HostileTiming[];
  inputs: number;
  characters: number;
  runs: number;
  /** All rules over all inputs, once. */
  totalMs: number;
}

export function timeHostileInputs(runs = 3, length?: number): HostileReport {
  const inputs = hostileInputs(length);
  const rules: HostileTiming[] = [];
  let totalMs = 0;
  for (const rule of SECRET_RULES) {
    let worst: HostileTiming | undefined;
    for (const { name, text } of [...inputs, { name: 'its own near miss', text: nearMiss(rule, length) }]) {
      let best = Infinity;
      for (let run = 0; run < runs; run++) {
        const started = performance.now();
        allMatches(rule.pattern, text);
        best = Math.min(best, performance.now() - started);
      }
      totalMs += best;
      if (!worst || best > worst.ms) worst = { rule: rule.id, input: name, characters: text.length, ms: best };
    }
    rules.push(worst!);
  }
  rules.sort((a, b) => b.ms - a.ms);
  return { rules, inputs: inputs.length, characters: inputs.reduce((sum, i) => sum + i.text.length, 0), runs, totalMs };
}

export function hostileTable(report: HostileReport, top = 5): string {
  const width = Math.max(...report.rules.slice(0, top).map((r) => r.rule.length), 4);
  return [
    `slowest rules on hostile input (${report.inputs} inputs, ${(report.characters / 1024).toFixed(0)} KiB, and each rule's near miss; best of ${report.runs} runs):`,
    `  ${'rule'.padEnd(width)}       ms  slowest input`,
    ...report.rules.slice(0, top).map((r) => `  ${r.rule.padEnd(width)} ${r.ms.toFixed(2).padStart(8)}  ${r.input} (${r.characters} characters)`),
    `  all ${report.rules.length} rules on all inputs: ${report.totalMs.toFixed(0)} ms`,
  ].join('\n');
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const option = (flag: string) => {
    const at = args.indexOf(flag);
    return at === -1 ? undefined : Number(args[at + 1]);
  };
  console.log(hostileTable(timeHostileInputs(option('--runs') ?? 3, option('--length')), option('--top') ?? 5));
}
