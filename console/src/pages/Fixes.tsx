import { PageHeader } from '../components/ui.tsx';

export function FixesPage() {
  return <PageHeader title="Fixes" />;
}
