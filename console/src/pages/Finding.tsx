import { PageHeader } from '../components/ui.tsx';
import type { Family } from '../lib/units.ts';

export function FindingPage(_: { family: Family; unitId: string; findingId: string }) {
  return <PageHeader title="Finding" />;
}
