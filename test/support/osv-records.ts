import fs from 'node:fs';
import path from 'node:path';
import yazl from 'yazl';
import type { OsvRecord } from '../../src/osv/record.ts';

/** A made-up advisory (ids in the 2099 range cannot be mistaken for real ones) affecting one package. */
export function osvRecord(id: string, ecosystem: string, name: string, events: Record<string, string>[], extra: Partial<OsvRecord> = {}): OsvRecord {
  return {
    id,
    modified: '2099-01-01T00:00:00Z',
    published: '2099-01-01T00:00:00Z',
    summary: `${name} flaw ${id}`,
    affected: [{ package: { ecosystem, name }, ranges: [{ type: 'ECOSYSTEM', events }] }],
    ...extra,
  };
}

export function writeRecordDir(dir: string, records: OsvRecord[]): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const record of records) fs.writeFileSync(path.join(dir, `${record.id}.json`), JSON.stringify(record, null, 2));
}

/** The layout of OSV's per-ecosystem `all.zip`: one `<id>.json` per record at the top. */
export async function writeRecordZip(file: string, records: (OsvRecord | string)[]): Promise<void> {
  const zip = new yazl.ZipFile();
  records.forEach((record, i) => {
    const name = typeof record === 'string' ? `broken-${i}.json` : `${record.id}.json`;
    zip.addBuffer(Buffer.from(typeof record === 'string' ? record : JSON.stringify(record)), name);
  });
  zip.end();
  await new Promise<void>((resolve, reject) => {
    const out = fs.createWriteStream(file);
    zip.outputStream.pipe(out).on('close', resolve).on('error', reject);
  });
}
