import { v7 as uuidv7 } from 'uuid';

/** Time-ordered ids: newer rows sort after older ones, which keeps "newest first" stable within a millisecond. */
export function newId(): string {
  return uuidv7();
}

export function nowIso(): string {
  return new Date().toISOString();
}
