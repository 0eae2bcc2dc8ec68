import { PageHeader } from '../components/ui.tsx';

export function EventsPage() {
  return <PageHeader title="Events" />;
}
