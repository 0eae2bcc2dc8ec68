import { PageHeader } from '../../components/ui.tsx';

export function QuotasPage() {
  return <PageHeader title="Quotas" />;
}
