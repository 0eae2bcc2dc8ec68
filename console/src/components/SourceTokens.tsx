// The access tokens of a repository's (or application's) source repositories, for admins: whether each
// has one and when it last changed, and a form to set, replace or remove it. The token is never shown.
import { useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import { errorText } from '../api/errors.ts';
import { formatDateTime } from '../lib/format.ts';
import { PROVIDER_LABEL } from '../lib/units.ts';
import { useLoad } from '../lib/use-load.ts';
import { ConfirmButton, LoadedView, MessageAlert, type Message } from './ui.tsx';

interface Source {
  id: string;
  provider: string;
  full_name: string;
  has_token: boolean;
  token_changed_at?: string | null;
}

export function SourceTokens({ orgId, unitId }: { orgId: string; unitId: string }) {
  const path = { org_id: orgId, unit_id: unitId };
  const sources = useLoad(`sources:${unitId}`, () => api.GET('/console/api/organizations/{org_id}/units/{unit_id}/sources', { params: { path } }));
  return (
    <section className="panel" aria-labelledby="access-tokens">
      <h2 id="access-tokens">Access tokens</h2>
      <p className="muted">
        Scans of private repositories and pull requests use each source repository's access token. It is stored encrypted and never shown again.
      </p>
      <LoadedView load={sources} isEmpty={(page) => page.items.length === 0} empty="No source repositories.">
        {(page) => (
          <ul className="source-tokens">
            {page.items.map((source) => (
              <SourceToken key={source.id} orgId={orgId} unitId={unitId} source={source} onChanged={sources.reload} />
            ))}
          </ul>
        )}
      </LoadedView>
    </section>
  );
}

function SourceToken({ orgId, unitId, source, onChanged }: { orgId: string; unitId: string; source: Source; onChanged(): void }) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<Message | null>(null);
  const path = { org_id: orgId, unit_id: unitId, source_id: source.id };
  const inputId = `token-${source.id}`;
  const name = `${PROVIDER_LABEL[source.provider] ?? source.provider} ${source.full_name}`;

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setMessage(null);
    const { data, error, response } = await api.PUT('/console/api/organizations/{org_id}/units/{unit_id}/sources/{source_id}/token', {
      params: { path },
      body: { token: token.trim() },
    });
    setBusy(false);
    if (!data) return setMessage({ kind: 'error', text: errorText(error, response) });
    setToken('');
    setMessage({ kind: 'success', text: source.has_token ? 'Token replaced.' : 'Token saved.' });
    onChanged();
  };

  const remove = async () => {
    setMessage(null);
    const { data, error, response } = await api.DELETE('/console/api/organizations/{org_id}/units/{unit_id}/sources/{source_id}/token', { params: { path } });
    if (!data) return setMessage({ kind: 'error', text: errorText(error, response) });
    setMessage({ kind: 'success', text: 'Token removed.' });
    onChanged();
  };

  return (
    <li>
      <p>
        <strong>{source.full_name}</strong>{' '}
        <span className="muted" data-testid="token-state">
          {source.has_token ? `token set, changed ${formatDateTime(source.token_changed_at)}` : 'no token'}
        </span>
      </p>
      <form className="row" onSubmit={(event) => void save(event)}>
        <div className="field" style={{ flex: '1 1 18rem' }}>
          <label htmlFor={inputId}>{source.has_token ? 'New token' : 'Token'} for {name}</label>
          <input id={inputId} type="password" autoComplete="off" spellCheck={false} value={token} onChange={(e) => setToken(e.target.value)} required maxLength={4000} />
        </div>
        <button type="submit" className="button primary" disabled={busy || !token.trim()}>
          {source.has_token ? 'Replace token' : 'Set token'}
        </button>
        {source.has_token ? (
          <ConfirmButton
            small={false}
            label="Remove token"
            accessibleLabel={`Remove the token of ${source.full_name}`}
            question={
              <>
                Remove the access token of <strong>{source.full_name}</strong>? Scans of a private repository and pull requests need one.
              </>
            }
            confirmLabel="Remove token"
            onConfirm={remove}
          />
        ) : null}
      </form>
      <MessageAlert message={message} />
    </li>
  );
}
