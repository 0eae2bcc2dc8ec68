// Rewrites the scan-type table in README.md from the registry in src/scanning/scan-types/.
import fs from 'node:fs';
import path from 'node:path';
import { withScanTypesTable } from '../src/scanning/scan-types/docs.ts';

const file = path.join(import.meta.dirname, '..', 'README.md');
fs.writeFileSync(file, withScanTypesTable(fs.readFileSync(file, 'utf8')));
