import { useEffect, type ReactNode } from 'react';
import { Shell } from './components/Shell.tsx';
import { Loading, PageHeader } from './components/ui.tsx';
import { DevicePage } from './pages/Device.tsx';
import { EventsPage } from './pages/Events.tsx';
import { FindingPage } from './pages/Finding.tsx';
import { FindingsPage } from './pages/Findings.tsx';
import { FixPage } from './pages/Fix.tsx';
import { FixesPage } from './pages/Fixes.tsx';
import { LoginPage } from './pages/Login.tsx';
import { ApiKeysPage } from './pages/settings/ApiKeys.tsx';
import { MembersPage } from './pages/settings/Members.tsx';
import { QuotasPage } from './pages/settings/Quotas.tsx';
import { WebhooksPage } from './pages/settings/Webhooks.tsx';
import { UnitPage } from './pages/Unit.tsx';
import { UnitsPage } from './pages/Units.tsx';
import type { Family } from './lib/units.ts';
import { Link, matchPath, navigate, useLocation } from './router.tsx';
import { useSession } from './session.tsx';

type Params = Record<string, string>;
const family = (params: Params) => params.family as Family;

/** Pages under /orgs/:orgId, most specific first. */
const ORG_ROUTES: [string, (params: Params) => ReactNode][] = [
  [':family/:unitId/findings/:findingId', (p) => <FindingPage family={family(p)} unitId={p.unitId!} findingId={p.findingId!} />],
  [':family/:unitId/fixes/:fixId', (p) => <FixPage family={family(p)} unitId={p.unitId!} fixId={p.fixId!} />],
  [':family/:unitId', (p) => <UnitPage family={family(p)} unitId={p.unitId!} />],
  [':family', (p) => <UnitsPage family={family(p)} />],
  ['findings', () => <FindingsPage />],
  ['fixes', () => <FixesPage />],
  ['events', () => <EventsPage />],
  ['settings/api-keys', () => <ApiKeysPage />],
  ['settings/members', () => <MembersPage />],
  ['settings/quotas', () => <QuotasPage />],
  ['settings/webhooks', () => <WebhooksPage />],
];

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

function NotFound({ home }: { home: string }) {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>
        There is no page at this address. <Link to={home}>Go to the console's start page</Link>.
      </p>
    </>
  );
}

export function App() {
  const { status, session } = useSession();
  const { pathname, href } = useLocation();

  if (status === 'loading') {
    return (
      <main className="auth-page" id="main">
        <Loading />
      </main>
    );
  }
  if (pathname === '/login') return <LoginPage />;
  if (status === 'signed-out' || !session) return <Redirect to={`/login?next=${encodeURIComponent(href)}`} />;
  if (pathname === '/device') return <DevicePage />;

  const first = session.organizations[0];
  if (!first) {
    return (
      <main className="auth-page" id="main">
        <div className="auth-card">
          <h1>No organization</h1>
          <p>{session.user.email} is not a member of any organization yet. Ask an administrator to add you.</p>
        </div>
      </main>
    );
  }
  const home = `/orgs/${first.id}/repositories`;
  if (pathname === '/' || pathname === '') return <Redirect to={home} />;

  const orgMatch = /^\/orgs\/([^/]+)(?:\/(.*))?$/.exec(pathname);
  const organization = orgMatch ? session.organizations.find((org) => org.id === decodeURIComponent(orgMatch[1]!)) : undefined;
  if (!orgMatch || !organization) {
    return (
      <Shell organization={first}>
        <NotFound home={home} />
      </Shell>
    );
  }
  const rest = `/${orgMatch[2] ?? ''}`;
  if (rest === '/') return <Redirect to={`/orgs/${organization.id}/repositories`} />;
  for (const [pattern, render] of ORG_ROUTES) {
    const params = matchPath(`/${pattern}`, rest);
    if (!params) continue;
    if (params.family !== undefined && params.family !== 'repositories' && params.family !== 'applications') continue;
    return (
      <Shell organization={organization} key={organization.id}>
        {render(params)}
      </Shell>
    );
  }
  return (
    <Shell organization={organization}>
      <NotFound home={home} />
    </Shell>
  );
}
