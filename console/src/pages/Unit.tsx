import { PageHeader } from '../components/ui.tsx';
import type { Family } from '../lib/units.ts';

export function UnitPage(_: { family: Family; unitId: string }) {
  return <PageHeader title="Unit" />;
}
