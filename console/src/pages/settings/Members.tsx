import { PageHeader } from '../../components/ui.tsx';

export function MembersPage() {
  return <PageHeader title="Members" />;
}
