import { PageHeader } from '../components/ui.tsx';
import { FAMILY_LABEL, type Family } from '../lib/units.ts';

export function UnitsPage({ family }: { family: Family }) {
  return <PageHeader title={FAMILY_LABEL[family].title} />;
}
