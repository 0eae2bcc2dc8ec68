import { useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import { errorText } from '../api/errors.ts';
import { Alert, AuthPage, ErrorAlert, Loading, SelectField } from '../components/ui.tsx';
import { formatDateTime } from '../lib/format.ts';
import { useLoad } from '../lib/use-load.ts';
import { Link, useLocation } from '../router.tsx';
import { useSession } from '../session.tsx';

/** Approving a command-line client's sign-in (RFC 8628 device flow): the code it shows, the organization it acts for. */
export function DevicePage() {
  const { session } = useSession();
  const { search } = useLocation();
  const userCode = (search.get('user_code') ?? '').trim().toUpperCase();
  const organizations = session?.organizations ?? [];
  const [organizationId, setOrganizationId] = useState(organizations[0]?.id ?? '');
  const organizationNames = new Map(organizations.map((org) => [org.id, `${org.name} (${org.role})`]));
  const [label, setLabel] = useState('');
  const [outcome, setOutcome] = useState<'approved' | 'denied' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [typed, setTyped] = useState('');

  const request = useLoad(userCode ? `device:${userCode}` : null, () =>
    api.GET('/device-authorizations/{user_code}', { params: { path: { user_code: userCode } } }),
  );

  const decide = async (approve: boolean, event?: FormEvent) => {
    event?.preventDefault();
    setBusy(true);
    setError(null);
    const path = { user_code: userCode };
    const answer = approve
      ? await api.POST('/device-authorizations/{user_code}/approve', {
          params: { path },
          body: { organization_id: organizationId, ...(label.trim() ? { device_label: label.trim() } : {}) },
        })
      : await api.POST('/device-authorizations/{user_code}/deny', { params: { path } });
    setBusy(false);
    if (answer.data) setOutcome(approve ? 'approved' : 'denied');
    else setError(errorText(answer.error, answer.response));
  };

  return (
    <AuthPage title="Authorize a device" wide>
      {!userCode ? (
        <form
          className="stack"
          onSubmit={(event) => {
            event.preventDefault();
            window.location.search = `?user_code=${encodeURIComponent(typed.trim().toUpperCase())}`;
          }}
        >
          <p>Enter the code your command-line client shows.</p>
          <div className="field">
            <label htmlFor="device-code">Code</label>
            <input id="device-code" value={typed} onChange={(e) => setTyped(e.target.value)} placeholder="ABCD-EFGH" autoComplete="off" required />
          </div>
          <button className="button primary" type="submit">
            Continue
          </button>
        </form>
      ) : request.loading ? (
        <Loading />
      ) : request.error || !request.data ? (
        <Alert>{request.status === 404 ? `No sign-in request has the code ${userCode}. It may have expired: start again from your client.` : request.error}</Alert>
      ) : outcome ? (
        <Alert kind={outcome === 'approved' ? 'success' : 'info'}>
          {outcome === 'approved'
            ? `${request.data.client_name} is signed in. You can close this page and return to it.`
            : `The request of ${request.data.client_name} was denied. No access was granted.`}
        </Alert>
      ) : request.data.status !== 'pending' ? (
        <Alert kind="warning">This request is {request.data.status.replace(/_/g, ' ')} and can no longer be approved.</Alert>
      ) : (
        <form className="stack" onSubmit={(event) => void decide(true, event)}>
          <p>
            A command-line client asks to act on your behalf. Approve only if you started this sign-in yourself, just now, and your client shows
            this code:
          </p>
          <p className="user-code" aria-label={`Code ${request.data.user_code.split('').join(' ')}`}>
            {request.data.user_code}
          </p>
          <dl className="facts">
            <dt>Client name</dt>
            <dd>
              {request.data.client_name ?? '(none given)'} <span className="muted">(chosen by the client itself: anyone can claim any name)</span>
            </dd>
            <dt>Requested</dt>
            <dd>{formatDateTime(request.data.requested_at)}</dd>
            <dt>Requested from</dt>
            <dd>{request.data.requested_from ?? 'unknown address'}</dd>
            <dt>Expires</dt>
            <dd>{formatDateTime(request.data.expires_at)}</dd>
          </dl>
          {organizations.length === 0 ? (
            <Alert kind="warning">You belong to no organization, so there is nothing to grant.</Alert>
          ) : (
            <SelectField
              id="device-org"
              label="Organization"
              value={organizationId}
              options={organizations.map((org) => org.id)}
              optionLabel={(id) => organizationNames.get(id)}
              onChange={setOrganizationId}
            />
          )}
          <div className="field">
            <label htmlFor="device-label">Device name (optional)</label>
            <input id="device-label" value={label} onChange={(e) => setLabel(e.target.value)} placeholder="e.g. work laptop" maxLength={100} />
          </div>
          <ErrorAlert error={error} />
          <div className="row">
            <button type="submit" className="button primary" disabled={busy || !organizationId}>
              Approve
            </button>
            <button type="button" className="button secondary" disabled={busy} onClick={() => void decide(false)}>
              Deny
            </button>
          </div>
        </form>
      )}
      <p className="small-text">
        <Link to="/">Go to the console</Link>
      </p>
    </AuthPage>
  );
}
