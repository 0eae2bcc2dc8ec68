import { useEffect, type ReactNode } from 'react';
import { setOrganization } from '../api/client.ts';
import { OrganizationContext } from '../lib/organization.ts';
import type { SessionOrganization } from '../api/types.ts';
import { Link, navigate, useLocation } from '../router.tsx';
import { useSession } from '../session.tsx';

const SECTIONS = [
  { path: 'repositories', label: 'Repositories' },
  { path: 'applications', label: 'Applications' },
  { path: 'findings', label: 'Findings' },
  { path: 'fixes', label: 'Fixes' },
  { path: 'events', label: 'Events' },
];
const SETTINGS = [
  { path: 'settings/api-keys', label: 'API Keys' },
  { path: 'settings/members', label: 'Members' },
  { path: 'settings/quotas', label: 'Quotas' },
  { path: 'settings/webhooks', label: 'Webhooks' },
];

/** The signed-in frame: organization switcher, navigation, the account's sign-out buttons. */
export function Shell({ organization, children }: { organization: SessionOrganization; children: ReactNode }) {
  const { session, signOut } = useSession();
  const { pathname } = useLocation();
  const base = `/orgs/${organization.id}`;
  setOrganization(organization.id);
  useEffect(() => setOrganization(organization.id), [organization.id]);

  const section = pathname.slice(base.length + 1);
  // A finding or fix page (…/:family/:unitId/findings/:id) belongs to Findings or Fixes.
  const detail = /^(?:repositories|applications)\/[^/]+\/(findings|fixes)\//.exec(section)?.[1];
  const link = (item: { path: string; label: string }) => {
    const current = detail ? item.path === detail : section === item.path || section.startsWith(`${item.path}/`);
    return (
      <li key={item.path}>
        <Link to={`${base}/${item.path}`} aria-current={current ? 'page' : undefined} className={current ? 'nav-link active' : 'nav-link'}>
          {item.label}
        </Link>
      </li>
    );
  };

  const switchTo = (id: string) => {
    // Same section in the other organization; ids of records do not carry over.
    const top = section.startsWith('settings/') ? section.split('/').slice(0, 2).join('/') : (section.split('/')[0] ?? 'repositories');
    navigate(`/orgs/${id}/${top || 'repositories'}`);
  };

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to={`${base}/repositories`} className="brand" aria-label="Bulwark home">
          <span className="brand-mark" aria-hidden="true" /> Bulwark
        </Link>
        <div className="org-switcher">
          <label htmlFor="org-switcher">Organization</label>
          <select id="org-switcher" value={organization.id} onChange={(e) => switchTo(e.target.value)}>
            {session?.organizations.map((org) => (
              <option key={org.id} value={org.id}>
                {org.name}
              </option>
            ))}
          </select>
          <span className="role-tag">{organization.role}</span>
        </div>
        <div className="account">
          <span className="account-email">{session?.user.email}</span>
          <button type="button" className="button ghost small" onClick={() => void signOut(false).then(() => navigate('/login'))}>
            Sign out
          </button>
          <button type="button" className="button ghost small" onClick={() => void signOut(true).then(() => navigate('/login'))}>
            Sign out everywhere
          </button>
        </div>
      </header>
      <div className="body">
        <nav className="sidebar" aria-label="Main">
          <ul>{SECTIONS.map(link)}</ul>
          <p className="nav-heading" id="nav-settings">
            Settings
          </p>
          <ul aria-labelledby="nav-settings">{SETTINGS.map(link)}</ul>
        </nav>
        <main id="main" className="content">
          <OrganizationContext.Provider value={organization}>{children}</OrganizationContext.Provider>
        </main>
      </div>
    </div>
  );
}
