import { useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import { errorText } from '../api/errors.ts';
import type { CreateRepositoryBody } from '../api/types.ts';
import { Badge, DataTable, ErrorAlert, FormPanel, LoadedView, PageHeader, QueryPager, SelectField } from '../components/ui.tsx';
import { formatDate } from '../lib/format.ts';
import { atLeast, useOrganization } from '../lib/organization.ts';
import { useLoad } from '../lib/use-load.ts';
import { FAMILY_LABEL, listUnits, PROVIDER_LABEL, PROVIDERS, type Family } from '../lib/units.ts';
import { Link, navigate, skipOf, useLocation, withQuery } from '../router.tsx';

const LIMIT = 50;

export function UnitsPage({ family }: { family: Family }) {
  const org = useOrganization();
  const { pathname, search } = useLocation();
  const archived = search.get('archived') === '1';
  const skip = skipOf(search);
  const label = FAMILY_LABEL[family];
  const units = useLoad(`${org.id}:${family}:${archived}:${skip}`, () => listUnits(family, { include_archived: archived, limit: LIMIT, skip }));
  const [adding, setAdding] = useState(false);

  return (
    <>
      <PageHeader title={label.title}>
        {family === 'repositories' && atLeast(org.role, 'admin') ? (
          <button type="button" className={adding ? 'button secondary' : 'button primary'} aria-expanded={adding} aria-controls="add-repository" onClick={() => setAdding(!adding)}>
            {adding ? 'Close the form' : 'Add repository'}
          </button>
        ) : null}
      </PageHeader>
      {family === 'applications' ? (
        <p className="muted">An application groups several source repositories; a scan of it runs across all of them.</p>
      ) : null}
      {adding ? <AddRepository onAdded={(id) => navigate(`/orgs/${org.id}/repositories/${id}`)} /> : null}
      <div className="filters">
        <label className="check">
          <input type="checkbox" checked={archived} onChange={(e) => navigate(withQuery(pathname, search, { archived: e.target.checked ? '1' : null, skip: null }))} />
          Show archived {label.many}
        </label>
      </div>
      <LoadedView
        load={units}
        isEmpty={(page) => page.items.length === 0}
        empty={
          <>
            No {label.many} yet.{' '}
            {family === 'repositories' ? 'Add one with the button above, or with `bulwark repo add`.' : 'Create one with `bulwark app add`.'}
          </>
        }
      >
        {(page) => (
          <>
            <DataTable caption={label.title} columns={['Name', 'Source repositories', 'Status', 'Added', 'Updated']}>
              {page.items.map((unit) => (
                <tr key={unit.id}>
                  <td>
                    <Link to={`/orgs/${org.id}/${family}/${unit.id}`}>{unit.name}</Link>
                    {unit.description ? <div className="muted small-text">{unit.description}</div> : null}
                  </td>
                  <td>
                    {(unit.repositories ?? []).map((repo) => (
                      <div key={`${repo.provider}:${repo.full_name}`} className="small-text">
                        <span className="mono">{repo.full_name}</span> <span className="muted">@{repo.default_branch} · {repo.provider}</span>
                      </div>
                    ))}
                  </td>
                  <td>{unit.archived ? <Badge value="archived" label="Archived" /> : <Badge value="completed" label="Active" />}</td>
                  <td>{formatDate(unit.created_at)}</td>
                  <td>{formatDate(unit.updated_at)}</td>
                </tr>
              ))}
            </DataTable>
            <QueryPager total={page.total} limit={LIMIT} noun={label.title} />
          </>
        )}
      </LoadedView>
    </>
  );
}

function AddRepository({ onAdded }: { onAdded(id: string): void }) {
  const org = useOrganization();
  const [form, setForm] = useState<CreateRepositoryBody>({ provider: 'github', full_name: '', default_branch: 'main', clone_url: '', access_token: '' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const set = (field: 'full_name' | 'default_branch' | 'clone_url' | 'access_token') => (event: { target: { value: string } }) => setForm({ ...form, [field]: event.target.value });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const body: CreateRepositoryBody = {
      provider: form.provider,
      full_name: form.full_name.trim(),
      default_branch: (form.default_branch ?? '').trim() || undefined,
      clone_url: form.clone_url?.trim() || null,
      access_token: form.access_token || null,
    };
    const { data, error: failure, response } = await api.POST('/console/api/organizations/{org_id}/repositories', { params: { path: { org_id: org.id } }, body });
    setBusy(false);
    if (data) return onAdded(data.id);
    setError(errorText(failure, response));
  };

  return (
    <FormPanel id="add-repository" titleId="add-repository-title" title="Add a repository" onSubmit={submit} submitLabel="Add repository" disabled={busy}>
      <div className="row">
        <SelectField id="repo-provider" label="Provider" value={form.provider} options={PROVIDERS} optionLabel={(provider) => PROVIDER_LABEL[provider]} onChange={(provider) => setForm({ ...form, provider })} />
        <div className="field" style={{ flex: '1 1 16rem' }}>
          <label htmlFor="repo-full-name">Full name</label>
          <input id="repo-full-name" required value={form.full_name} onChange={set('full_name')} placeholder="owner/repository" pattern="[^\/\s]+(\/[^\/\s]+)+" aria-describedby="repo-full-name-hint" />
        </div>
        <div className="field">
          <label htmlFor="repo-branch">Default branch</label>
          <input id="repo-branch" value={form.default_branch ?? ''} onChange={set('default_branch')} />
        </div>
      </div>
      <p id="repo-full-name-hint" className="hint">
        As the code host names it, e.g. <code>acme/payments-api</code>.
      </p>
      <div className="row">
        <div className="field" style={{ flex: '1 1 20rem' }}>
          <label htmlFor="repo-clone-url">Clone URL (optional)</label>
          <input id="repo-clone-url" type="url" value={form.clone_url ?? ''} onChange={set('clone_url')} placeholder="https://github.com/owner/repository.git" />
        </div>
        <div className="field" style={{ flex: '1 1 16rem' }}>
          <label htmlFor="repo-token">Access token (optional)</label>
          <input id="repo-token" type="password" autoComplete="off" value={form.access_token ?? ''} onChange={set('access_token')} aria-describedby="repo-token-hint" />
        </div>
      </div>
      <p id="repo-token-hint" className="hint">
        Needed for private repositories and pull requests. Stored encrypted; never shown again.
      </p>
      <ErrorAlert error={error} />
    </FormPanel>
  );
}
