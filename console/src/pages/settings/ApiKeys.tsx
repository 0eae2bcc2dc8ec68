import { useState, type FormEvent } from 'react';
import { api } from '../../api/client.ts';
import { errorText } from '../../api/errors.ts';
import { Alert, Badge, ConfirmButton, CopyButton, DataTable, ErrorAlert, FormPanel, LoadedView, PageHeader } from '../../components/ui.tsx';
import { formatDate, formatDateTime } from '../../lib/format.ts';
import type { Scope } from '../../api/vocabulary.ts';
import { atLeast, scopesOf, useOrganization } from '../../lib/organization.ts';
import { useLoad } from '../../lib/use-load.ts';

const SCOPE_HELP: Record<Scope, string> = {
  read: 'read everything',
  'scan:write': 'start scans',
  'finding:write': 'triage findings',
  'fix:write': 'start, refine and cancel fixes',
  'pr:write': 'open pull requests',
};

export function ApiKeysPage() {
  const org = useOrganization();
  const path = { org_id: org.id };
  const keys = useLoad(`keys:${org.id}`, () => api.GET('/console/api/organizations/{org_id}/api-keys', { params: { path } }));
  const allowed = scopesOf(org.role);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['read']);
  const [expires, setExpires] = useState('');
  const [busy, setBusy] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const canManage = atLeast(org.role, 'admin');

  const toggle = (scope: Scope, on: boolean) => setScopes((now) => (on ? [...now, scope] : now.filter((s) => s !== scope)));

  const create = async (event: FormEvent) => {
    event.preventDefault();
    if (scopes.length === 0) return setFormError('Choose at least one scope.');
    setBusy(true);
    setFormError(null);
    // The key stops working at the end of the chosen day, in the browser's time zone.
    const expires_at = expires ? new Date(`${expires}T23:59:59`).toISOString() : null;
    const { data, error, response } = await api.POST('/console/api/organizations/{org_id}/api-keys', {
      params: { path },
      body: { name: name.trim(), scopes, expires_at },
    });
    setBusy(false);
    if (!data) return setFormError(errorText(error, response));
    setCreated({ name: data.api_key.name, key: data.key });
    setName('');
    setScopes(['read']);
    setExpires('');
    keys.reload();
  };

  const revoke = async (id: string) => {
    setListError(null);
    const { data, error, response } = await api.DELETE('/console/api/organizations/{org_id}/api-keys/{key_id}', { params: { path: { ...path, key_id: id } } });
    if (!data) setListError(errorText(error, response));
    keys.reload();
  };

  const today = new Date().toISOString().slice(0, 10);

  return (
    <>
      <PageHeader title="API Keys" />
      <p className="muted">Keys let automation, CLIs and agents call the API for {org.name}. Each key is shown once, when it is created.</p>
      {!canManage ? (
        <Alert kind="info">Only admins and owners manage API keys. Your role in {org.name} is {org.role}.</Alert>
      ) : (
        <FormPanel
          titleId="new-key"
          title="Create a key"
          before={
            created ? (
              <div className="alert alert-success" role="status">
                <p>
                  <strong>{created.name}</strong> is ready. Copy it now: it will not be shown again.
                </p>
                <div className="secret">
                  <code aria-label="New API key">{created.key}</code>
                  <CopyButton text={created.key} />
                  <button type="button" className="button ghost small" onClick={() => setCreated(null)}>
                    Done
                  </button>
                </div>
              </div>
            ) : null
          }
          onSubmit={create}
          submitLabel="Create key"
          disabled={busy}
        >
          <div className="row">
            <div className="field" style={{ flex: '1 1 18rem' }}>
              <label htmlFor="key-name">Name</label>
              <input id="key-name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} placeholder="e.g. CI pipeline" />
            </div>
            <div className="field">
              <label htmlFor="key-expires">Expires on (optional)</label>
              <input id="key-expires" type="date" min={today} value={expires} onChange={(e) => setExpires(e.target.value)} aria-describedby="key-expires-hint" />
            </div>
          </div>
          <p id="key-expires-hint" className="hint">
            Without a date the key works until it is revoked.
          </p>
          <fieldset>
            <legend>Scopes</legend>
            <div className="checks">
              {allowed.map((scope) => (
                <label key={scope} className="check">
                  <input type="checkbox" checked={scopes.includes(scope)} onChange={(e) => toggle(scope, e.target.checked)} />
                  <span>
                    <code>{scope}</code> <span className="muted small-text">({SCOPE_HELP[scope]})</span>
                  </span>
                </label>
              ))}
            </div>
          </fieldset>
          <ErrorAlert error={formError} />
        </FormPanel>
      )}

      <h2>Keys</h2>
      <ErrorAlert error={listError} />
      <LoadedView load={keys} isEmpty={(page) => !page.items.length} empty="No API keys yet.">
        {(page) => (
          <DataTable caption={<>API keys of {org.name}</>} columns={['Name', 'Prefix', 'Scopes', 'Created by', 'Created', 'Last used', 'Expires', 'Status', { label: 'Actions', hidden: true }]}>
            {page.items.map((key) => (
              <tr key={key.id} className={key.revoked_at ? 'revoked' : undefined}>
                <td>{key.name}</td>
                <td>
                  <code>{key.prefix}…</code>
                </td>
                <td>
                  <span className="tags">
                    {key.scopes.map((scope) => (
                      <span className="tag" key={scope}>
                        {scope}
                      </span>
                    ))}
                  </span>
                </td>
                <td>{key.created_by?.email ?? '—'}</td>
                <td>{formatDate(key.created_at)}</td>
                <td>{formatDateTime(key.last_used_at, 'Never')}</td>
                <td>{formatDate(key.expires_at, 'Never')}</td>
                <td>{key.revoked_at ? <Badge value="cancelled" label={`Revoked ${formatDate(key.revoked_at)}`} /> : <Badge value="completed" label="Active" />}</td>
                <td>
                  {!key.revoked_at && canManage ? (
                    <ConfirmButton
                      label="Revoke"
                      accessibleLabel={`Revoke ${key.name}`}
                      question={
                        <>
                          Revoke <strong>{key.name}</strong> ({key.prefix}…)? Anything using it stops working at once. This cannot be undone.
                        </>
                      }
                      confirmLabel="Revoke key"
                      onConfirm={() => revoke(key.id)}
                    />
                  ) : null}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </LoadedView>
    </>
  );
}
