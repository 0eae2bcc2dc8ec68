// Loaded into each test file's process by scripts/test.ts (--import): on exit it records the CPU the file
// used, its own plus that of the processes it started and waited for (servers, git, workers), as
// `<BULWARK_TEST_CPU_DIR>/<pid>.json`, for the slowest-files report (scripts/test-report.ts).
import fs from 'node:fs';
import path from 'node:path';

const dir = process.env.BULWARK_TEST_CPU_DIR;
const file = process.argv[1];

/** utime, stime, cutime and cstime of /proc/self/stat in milliseconds (USER_HZ is 100 on Linux). */
function cpuMsWithChildren(): number {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) * 10;
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  }
}

if (dir && file?.endsWith('.test.ts')) {
  process.on('exit', () => {
    try {
      fs.writeFileSync(path.join(dir, `${process.pid}.json`), JSON.stringify({ file, cpuMs: cpuMsWithChildren() }));
    } catch {
      // a missing figure only leaves a blank in the report
    }
  });
}
