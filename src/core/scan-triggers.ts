import type { Kysely } from 'kysely';
import { nowIso } from '../ids.ts';
import { SCAN_TYPES } from '../scanning/scan-types/index.ts';
import type { ScanType } from '../scanning/scan-type-names.ts';
import { hasQueuedBatch, saveTriggers, triggersOf, unitsWithTriggers } from '../store/scan-triggers.ts';
import { decodeJson, encodeJson } from '../store/json-columns.ts';
import type { Database } from '../store/schema.ts';
import { ApiError, BodyValueError } from './errors.ts';
import { createScanBatch, type BatchDispatcher } from './scan-batches.ts';
import { getUnit } from './units.ts';

// A repository's scans on push: the scan types it runs by itself when its code host's webhook reports a
// push to the branch it scans (scans of pull requests into it: pull-request-scans.ts). Each is an ordinary scan batch, charged as one started by hand; a push
// while a batch of that type still waits to start adds none (the waiting one scans the newest commit).

export interface ScanTriggers {
  on_push: ScanType[];
  on_pull_request: ScanType[];
}

/** A reported push: the repository, the branch, the commit it now points at. */
export interface Push {
  provider: string;
  repoFullName: string;
  branch: string;
  sha: string | null;
}

export async function getScanTriggers(db: Kysely<Database>, orgId: string, unitId: string): Promise<ScanTriggers> {
  const unit = await getUnit(db, orgId, unitId);
  const row = await triggersOf(db, unit.id);
  return { on_push: decodeJson<ScanType[]>(row?.on_push ?? '[]', []), on_pull_request: decodeJson<ScanType[]>(row?.on_pull_request ?? '[]', []) };
}

/** The scan types of a list, in contract order and once each; a name that is none is a 422 naming its field. */
function scanTypesIn(field: string, names: string[]): ScanType[] {
  const unknown = names.filter((type) => !(SCAN_TYPES as readonly string[]).includes(type));
  if (unknown.length) throw new BodyValueError(['body', field], `Input should be scan types of ${SCAN_TYPES.map((t) => `'${t}'`).join(', ')}`, unknown);
  return SCAN_TYPES.filter((type) => names.includes(type));
}

export async function setScanTriggers(
  db: Kysely<Database>,
  orgId: string,
  unitId: string,
  wanted: { on_push: string[]; on_pull_request?: string[] },
  userId: string | null,
): Promise<ScanTriggers> {
  const unit = await getUnit(db, orgId, unitId);
  const triggers = { on_push: scanTypesIn('on_push', wanted.on_push), on_pull_request: scanTypesIn('on_pull_request', wanted.on_pull_request ?? []) };
  await saveTriggers(db, { unit_id: unit.id, on_push: encodeJson(triggers.on_push), on_pull_request: encodeJson(triggers.on_pull_request), updated_by_user_id: userId, updated_at: nowIso() });
  return triggers;
}

/**
 * The scans a push starts: for each unit of the organization (the hook's own, when it is for one) that scans
 * that branch of that repository, a batch of each of its push scan types. Returns what it did, in words.
 */
export async function scansOnPush(db: Kysely<Database>, dispatch: BatchDispatcher, orgId: string, push: Push, hookUnitId: string | null): Promise<string> {
  const said: string[] = [];
  for (const { unit_id, on_push } of await unitsWithTriggers(db, { orgId, ...push, unitId: hookUnitId })) {
    const unit = await getUnit(db, orgId, unit_id);
    for (const scanType of decodeJson<ScanType[]>(on_push, [])) {
      if (await hasQueuedBatch(db, unit.id, scanType)) {
        said.push(`${scanType} of ${unit.name}: one already waits to start`);
        continue;
      }
      try {
        const { batch } = await createScanBatch(db, orgId, unit, scanType, dispatch);
        said.push(`${scanType} of ${unit.name}: batch ${batch.id}`);
      } catch (error) {
        // Out of credits, say: the push is still applied to every other unit and type.
        if (!(error instanceof ApiError)) throw error;
        said.push(`${scanType} of ${unit.name}: not started (${error.message})`);
      }
    }
  }
  return said.length ? `push to ${push.branch}: ${said.join('; ')}` : `push to ${push.branch}: no repository scans on push there`;
}
