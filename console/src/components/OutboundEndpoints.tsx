// An organization's outbound webhook endpoints, for admins: add one (its whsec_ signing secret shown once),
// the list with each one's status and last delivery, enabling and disabling it, rotating its secret,
// removing it, and its latest deliveries, any of which can be sent again.
import { useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import { errorText } from '../api/errors.ts';
import type { paths } from '../api/schema';
import type { Success } from '../api/types.ts';
import { FINDING_EVENT_TYPES, type FindingEventType } from '../api/vocabulary.ts';
import { formatDateTime } from '../lib/format.ts';
import { useLoad } from '../lib/use-load.ts';
import { Badge, ConfirmButton, CopyButton, DataTable, ErrorAlert, FormPanel, LoadedView } from './ui.tsx';

type Endpoint = Success<paths['/console/api/organizations/{org_id}/webhook-endpoints']['get']>['items'][number];
type Delivery = Success<paths['/console/api/organizations/{org_id}/webhook-endpoints/{endpoint_id}/deliveries']['get']>['items'][number];

const DELIVERY_TONE: Record<Delivery['status'], string> = { pending: 'queued', delivered: 'completed', failed: 'failed' };

function SecretShown({ heading, secret, onDone }: { heading: string; secret: string; onDone(): void }) {
  return (
    <div className="alert alert-success" role="status">
      <p>{heading} Copy the signing secret now: it will not be shown again.</p>
      <div className="secret">
        <code aria-label="Endpoint signing secret">{secret}</code>
        <CopyButton text={secret} label="Copy signing secret" />
        <button type="button" className="button ghost small" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

export function OutboundEndpoints({ orgId, orgName }: { orgId: string; orgName: string }) {
  const path = { org_id: orgId };
  const endpoints = useLoad(`webhook-endpoints:${orgId}`, () => api.GET('/console/api/organizations/{org_id}/webhook-endpoints', { params: { path } }));
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<FindingEventType[]>([]);
  const [busy, setBusy] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);
  const [rotated, setRotated] = useState<{ url: string; secret: string } | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);

  const toggle = (type: FindingEventType, on: boolean) => setEvents((now) => (on ? [...now, type] : now.filter((t) => t !== type)));

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setFormError(null);
    const { data, error, response } = await api.POST('/console/api/organizations/{org_id}/webhook-endpoints', {
      params: { path },
      body: { url: url.trim(), description: description.trim(), events },
    });
    setBusy(false);
    if (!data) return setFormError(errorText(error, response));
    setCreated({ url: data.endpoint.url, secret: data.secret });
    setUrl('');
    setDescription('');
    setEvents([]);
    endpoints.reload();
  };

  const setEnabled = async (endpoint: Endpoint, enabled: boolean) => {
    setListError(null);
    const { data, error, response } = await api.PATCH('/console/api/organizations/{org_id}/webhook-endpoints/{endpoint_id}', {
      params: { path: { ...path, endpoint_id: endpoint.id } },
      body: { enabled },
    });
    if (!data) setListError(errorText(error, response));
    endpoints.reload();
  };

  const rotate = async (endpoint: Endpoint) => {
    setListError(null);
    const { data, error, response } = await api.POST('/console/api/organizations/{org_id}/webhook-endpoints/{endpoint_id}/rotate-secret', {
      params: { path: { ...path, endpoint_id: endpoint.id } },
    });
    if (!data) return setListError(errorText(error, response));
    setRotated({ url: data.endpoint.url, secret: data.secret });
  };

  const remove = async (endpoint: Endpoint) => {
    setListError(null);
    const { error, response } = await api.DELETE('/console/api/organizations/{org_id}/webhook-endpoints/{endpoint_id}', {
      params: { path: { ...path, endpoint_id: endpoint.id } },
    });
    if (!response.ok) setListError(errorText(error, response));
    if (rotated?.url === endpoint.url) setRotated(null);
    endpoints.reload();
  };

  return (
    <>
      <h2 id="outbound-endpoints">Outbound endpoints</h2>
      <p className="muted">
        Bulwark sends {orgName}&apos;s finding events (detected, triaged, fixed, resolved…) to these HTTPS endpoints, signed with each one&apos;s secret. Failed deliveries are
        retried; an endpoint that keeps failing is disabled.
      </p>
      <FormPanel
        titleId="new-endpoint"
        title="Add an outbound endpoint"
        before={created ? <SecretShown heading={`Endpoint ${created.url} added.`} secret={created.secret} onDone={() => setCreated(null)} /> : null}
        onSubmit={create}
        submitLabel="Add endpoint"
        disabled={busy}
      >
        <div className="row">
          <div className="field" style={{ flex: '2 1 22rem' }}>
            <label htmlFor="endpoint-url">Endpoint URL</label>
            <input id="endpoint-url" type="url" value={url} onChange={(e) => setUrl(e.target.value)} required maxLength={2000} placeholder="https://hooks.example.com/bulwark" />
          </div>
          <div className="field" style={{ flex: '1 1 16rem' }}>
            <label htmlFor="endpoint-description">Description (optional)</label>
            <input id="endpoint-description" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={500} />
          </div>
        </div>
        <fieldset aria-describedby="endpoint-events-hint">
          <legend>Events</legend>
          <div className="checks">
            {FINDING_EVENT_TYPES.map((type) => (
              <label key={type} className="check">
                <input type="checkbox" checked={events.includes(type)} onChange={(e) => toggle(type, e.target.checked)} />
                <code>{type}</code>
              </label>
            ))}
          </div>
          <p id="endpoint-events-hint" className="hint">
            None ticked: every event type, including ones added later.
          </p>
        </fieldset>
        <ErrorAlert error={formError} />
      </FormPanel>

      <ErrorAlert error={listError} />
      {rotated ? <SecretShown heading={`New secret for ${rotated.url}; the previous one also signs for 24 hours.`} secret={rotated.secret} onDone={() => setRotated(null)} /> : null}
      <LoadedView load={endpoints} isEmpty={(page) => !page.items.length} empty="No outbound endpoints yet.">
        {(page) => (
          <DataTable caption={<>Outbound webhook endpoints of {orgName}</>} columns={['Endpoint', 'Events', 'Status', 'Last delivery', { label: 'Actions', hidden: true }]}>
            {page.items.map((endpoint) => (
              <EndpointRows
                key={endpoint.id}
                orgId={orgId}
                endpoint={endpoint}
                open={open === endpoint.id}
                onToggleOpen={() => setOpen(open === endpoint.id ? null : endpoint.id)}
                onEnable={(on) => setEnabled(endpoint, on)}
                onRotate={() => rotate(endpoint)}
                onRemove={() => remove(endpoint)}
              />
            ))}
          </DataTable>
        )}
      </LoadedView>
    </>
  );
}

function EndpointRows({
  orgId,
  endpoint,
  open,
  onToggleOpen,
  onEnable,
  onRotate,
  onRemove,
}: {
  orgId: string;
  endpoint: Endpoint;
  open: boolean;
  onToggleOpen(): void;
  onEnable(on: boolean): Promise<void>;
  onRotate(): Promise<void>;
  onRemove(): Promise<void>;
}) {
  const path = { org_id: orgId, endpoint_id: endpoint.id };
  const latest = useLoad(`endpoint-latest:${endpoint.id}:${endpoint.updated_at}`, () =>
    api.GET('/console/api/organizations/{org_id}/webhook-endpoints/{endpoint_id}/deliveries', { params: { path, query: { limit: 1 } } }),
  );
  const last = latest.data?.items[0];
  const [switching, setSwitching] = useState(false);
  const name = endpoint.url;
  const enable = async (on: boolean) => {
    setSwitching(true);
    await onEnable(on);
    setSwitching(false);
  };
  return (
    <>
      <tr>
        <td style={{ minWidth: '16rem' }}>
          <code style={{ overflowWrap: 'anywhere' }}>{endpoint.url}</code>
          {endpoint.description ? <div className="muted small-text">{endpoint.description}</div> : null}
        </td>
        <td>
          {endpoint.events.length ? (
            <span className="tags">
              {endpoint.events.map((type) => (
                <span className="tag" key={type}>
                  {type}
                </span>
              ))}
            </span>
          ) : (
            'All events'
          )}
        </td>
        <td>
          {endpoint.enabled ? <Badge value="completed" label="Enabled" /> : <Badge value="cancelled" label="Disabled" />}
          {!endpoint.enabled && endpoint.disabled_reason ? <div className="muted small-text">{endpoint.disabled_reason}</div> : null}
          {endpoint.enabled && endpoint.failing_since ? <div className="small-text">Failing since {formatDateTime(endpoint.failing_since)}</div> : null}
        </td>
        <td>
          {latest.error ? (
            <span className="muted">—</span>
          ) : last ? (
            <>
              {formatDateTime(last.last_attempt_at ?? last.created_at)} <Badge value={DELIVERY_TONE[last.status]} label={last.status} />
            </>
          ) : latest.data ? (
            'Never'
          ) : (
            '…'
          )}
        </td>
        <td>
          <div style={{ display: 'flex', flexWrap: 'wrap', gap: '0.35rem', maxWidth: '16rem' }}>
            <button type="button" className="button secondary small" disabled={switching} aria-label={`${endpoint.enabled ? 'Disable' : 'Enable'} ${name}`} onClick={() => void enable(!endpoint.enabled)}>
              {endpoint.enabled ? 'Disable' : 'Enable'}
            </button>
            <button type="button" className="button ghost small" aria-expanded={open} aria-label={`${open ? 'Hide deliveries' : 'Deliveries'} of ${name}`} onClick={onToggleOpen}>
              {open ? 'Hide deliveries' : 'Deliveries'}
            </button>
            <ConfirmButton
              label="Rotate secret"
              accessibleLabel={`Rotate the secret of ${name}`}
              danger={false}
              question={<>Make a new signing secret for {name}? The current one keeps signing for 24 hours, so the receiver can switch over.</>}
              confirmLabel="Rotate secret"
              onConfirm={onRotate}
            />
            <ConfirmButton
              label="Remove"
              accessibleLabel={`Remove ${name}`}
              question={<>Remove the endpoint {name} and its delivery log? Nothing more is sent to it.</>}
              confirmLabel="Remove endpoint"
              onConfirm={onRemove}
            />
          </div>
        </td>
      </tr>
      {open ? (
        <tr>
          <td colSpan={5}>
            <Deliveries orgId={orgId} endpoint={endpoint} onChanged={latest.reload} />
          </td>
        </tr>
      ) : null}
    </>
  );
}

function Deliveries({ orgId, endpoint, onChanged }: { orgId: string; endpoint: Endpoint; onChanged(): void }) {
  const path = { org_id: orgId, endpoint_id: endpoint.id };
  const deliveries = useLoad(`endpoint-deliveries:${endpoint.id}`, () =>
    api.GET('/console/api/organizations/{org_id}/webhook-endpoints/{endpoint_id}/deliveries', { params: { path, query: { limit: 20 } } }),
  );
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  const redeliver = async (delivery: Delivery) => {
    setError(null);
    setBusy(delivery.id);
    const { data, error: failure, response } = await api.POST('/console/api/organizations/{org_id}/webhook-endpoints/{endpoint_id}/deliveries/{delivery_id}/redeliver', {
      params: { path: { ...path, delivery_id: delivery.id } },
    });
    setBusy(null);
    if (!data) setError(errorText(failure, response));
    deliveries.reload();
    onChanged();
  };

  return (
    <>
      <ErrorAlert error={error} />
      <LoadedView load={deliveries} isEmpty={(page) => !page.items.length} empty="Nothing sent to this endpoint yet.">
        {(page) => (
          <DataTable
            caption={<>Latest deliveries to {endpoint.url}</>}
            columns={['Event', 'Created', 'Status', 'HTTP status', 'Latency', 'Attempts', 'Next attempt', { label: 'Actions', hidden: true }]}
          >
            {page.items.map((delivery) => (
              <tr key={delivery.id}>
                <td>
                  <code>{delivery.event_type}</code>
                </td>
                <td>{formatDateTime(delivery.created_at)}</td>
                <td>
                  <Badge value={DELIVERY_TONE[delivery.status]} label={delivery.status} />
                  {delivery.error ? <div className="muted small-text">{delivery.error}</div> : null}
                </td>
                <td>{delivery.response_status ?? 'No answer'}</td>
                <td>{delivery.latency_ms === null ? '—' : `${delivery.latency_ms.toLocaleString()} ms`}</td>
                <td>{delivery.attempt}</td>
                <td>{formatDateTime(delivery.next_attempt_at)}</td>
                <td>
                  <button
                    type="button"
                    className="button secondary small"
                    disabled={busy === delivery.id}
                    aria-label={`Redeliver the ${delivery.event_type} event of ${formatDateTime(delivery.created_at)}`}
                    onClick={() => void redeliver(delivery)}
                  >
                    Redeliver
                  </button>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </LoadedView>
    </>
  );
}
