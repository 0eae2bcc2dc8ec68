import { PageHeader } from '../components/ui.tsx';
import type { Family } from '../lib/units.ts';

export function FixPage(_: { family: Family; unitId: string; fixId: string }) {
  return <PageHeader title="Fix" />;
}
