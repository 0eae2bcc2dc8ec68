import { PageHeader } from '../components/ui.tsx';

export function FindingsPage() {
  return <PageHeader title="Findings" />;
}
