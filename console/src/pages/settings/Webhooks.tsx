import { useState, type FormEvent } from 'react';
import { api } from '../../api/client.ts';
import { errorText } from '../../api/errors.ts';
import { Alert, ConfirmButton, CopyButton, DataTable, ErrorAlert, FormPanel, LoadedView, PageHeader, SelectField } from '../../components/ui.tsx';
import { formatDateTime } from '../../lib/format.ts';
import { atLeast, useOrganization } from '../../lib/organization.ts';
import { OutboundEndpoints } from '../../components/OutboundEndpoints.tsx';
import { listUnits, PROVIDER_LABEL, PROVIDERS, type Provider } from '../../lib/units.ts';
import { useLoad } from '../../lib/use-load.ts';

interface Setup {
  secret: string;
  events: string;
}

/** What to fill in on the code host: the address, the secret (once) and the events to tick. */
function SetupSteps({ provider, url, setup, secret }: { provider: string; url: string; setup: Setup; secret?: string }) {
  return (
    <ol className="steps">
      <li>
        Payload URL: <code aria-label={`Address for ${PROVIDER_LABEL[provider] ?? provider}`}>{url}</code> <CopyButton text={url} label="Copy address" />
      </li>
      <li>
        {setup.secret}
        {secret ? (
          <span className="secret">
            {' '}
            <code aria-label="New webhook secret">{secret}</code> <CopyButton text={secret} label="Copy secret" />
          </span>
        ) : null}
      </li>
      <li>Events: {setup.events}</li>
    </ol>
  );
}

/** A webhook's latest deliveries, loaded when opened. */
function Deliveries({ orgId, hookId }: { orgId: string; hookId: string }) {
  const deliveries = useLoad(`deliveries:${hookId}`, () =>
    api.GET('/console/api/organizations/{org_id}/code-host-webhooks/{hook_id}/deliveries', { params: { path: { org_id: orgId, hook_id: hookId } } }),
  );
  return (
    <LoadedView load={deliveries} isEmpty={(page) => !page.items.length} empty="Nothing delivered yet.">
      {(page) => (
        <DataTable caption="Latest deliveries" columns={['Received', 'Event', 'Delivery id', 'Outcome']}>
          {page.items.map((d) => (
            <tr key={d.delivery_id}>
              <td>{formatDateTime(d.received_at)}</td>
              <td>{d.event}</td>
              <td>
                <code>{d.delivery_id}</code>
              </td>
              <td>{d.outcome ?? (d.applied_at ? 'applied' : 'being applied')}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </LoadedView>
  );
}

export function WebhooksPage() {
  const org = useOrganization();
  if (atLeast(org.role, 'admin')) return <ManageWebhooks />;
  return (
    <>
      <PageHeader title="Webhooks" />
      <Alert kind="info">Only admins and owners see and manage webhooks. Your role in {org.name} is {org.role}.</Alert>
    </>
  );
}

function ManageWebhooks() {
  const org = useOrganization();
  const path = { org_id: org.id };
  const hooks = useLoad(`code-host-webhooks:${org.id}`, () => api.GET('/console/api/organizations/{org_id}/code-host-webhooks', { params: { path } }));
  const units = useLoad(`webhook-units:${org.id}`, () => listUnits('repositories', { include_archived: false, limit: 200, skip: 0 }));
  const [provider, setProvider] = useState<Provider>(PROVIDERS[0]!);
  const [repository, setRepository] = useState('');
  const [busy, setBusy] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ provider: string; url: string; setup: Setup; secret: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);

  const repositoryName = (id: string | null, host: string) => {
    if (!id) return `every ${PROVIDER_LABEL[host] ?? host} repository`;
    const unit = units.data?.items.find((u) => u.id === id);
    return unit?.name ?? id;
  };

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setFormError(null);
    const { data, error, response } = await api.POST('/console/api/organizations/{org_id}/code-host-webhooks', {
      params: { path },
      body: { provider, repository_id: repository || null },
    });
    setBusy(false);
    if (!data) return setFormError(errorText(error, response));
    setCreated({ provider: data.webhook.provider, url: data.webhook.url, setup: data.webhook.setup, secret: data.secret });
    hooks.reload();
  };

  const remove = async (id: string) => {
    setListError(null);
    const { error, response } = await api.DELETE('/console/api/organizations/{org_id}/code-host-webhooks/{hook_id}', { params: { path: { ...path, hook_id: id } } });
    if (!response.ok) setListError(errorText(error, response));
    hooks.reload();
  };

  return (
    <>
      <PageHeader title="Webhooks" />
      <p className="muted">
        A code host&apos;s webhook tells Bulwark when a fix pull request is merged, closed, retitled or pushed to, and when a merged pull request says{' '}
        <code>Fixes bulwark:&lt;finding id&gt;</code>. Without one, Bulwark asks the host every few minutes.
      </p>
      <FormPanel
          titleId="new-webhook"
          title="Add a code-host webhook"
          before={
            created ? (
              <div className="alert alert-success" role="status">
                <p>
                  Set it up on {PROVIDER_LABEL[created.provider] ?? created.provider} now: the secret will not be shown again.
                </p>
                <SetupSteps provider={created.provider} url={created.url} setup={created.setup} secret={created.secret} />
                <button type="button" className="button ghost small" onClick={() => setCreated(null)}>
                  Done
                </button>
              </div>
            ) : null
          }
          onSubmit={create}
          submitLabel="Add webhook"
          disabled={busy}
        >
          <div className="row">
            <SelectField id="webhook-provider" label="Code host" value={provider} options={PROVIDERS} optionLabel={(p) => PROVIDER_LABEL[p] ?? p} onChange={setProvider} />
            <div className="field" style={{ flex: '1 1 18rem' }}>
              <label htmlFor="webhook-repository">Repositories</label>
              <select id="webhook-repository" value={repository} onChange={(e) => setRepository(e.target.value)}>
                <option value="">Every repository on this host (an organization or group webhook)</option>
                {(units.data?.items ?? []).map((unit) => (
                  <option key={unit.id} value={unit.id}>
                    {unit.name}
                  </option>
                ))}
              </select>
            </div>
          </div>
          <ErrorAlert error={formError} />
        </FormPanel>

      <h2>Code-host webhooks</h2>
      <ErrorAlert error={listError} />
      <LoadedView load={hooks} isEmpty={(page) => !page.items.length} empty="No code-host webhooks yet.">
        {(page) => (
          <DataTable caption={<>Code-host webhooks of {org.name}</>} columns={['Code host', 'Covers', 'Set up on the host', 'Last delivery', { label: 'Actions', hidden: true }]}>
            {page.items.map((hook) => (
              <tr key={hook.id}>
                <td>{PROVIDER_LABEL[hook.provider] ?? hook.provider}</td>
                <td>{repositoryName(hook.repository_id, hook.provider)}</td>
                <td>
                  <SetupSteps provider={hook.provider} url={hook.url} setup={hook.setup} />
                  {open === hook.id ? <Deliveries orgId={org.id} hookId={hook.id} /> : null}
                </td>
                <td>{formatDateTime(hook.last_delivery_at, 'Never')}</td>
                <td>
                  <button type="button" className="button ghost small" aria-expanded={open === hook.id} onClick={() => setOpen(open === hook.id ? null : hook.id)}>
                    {open === hook.id ? 'Hide deliveries' : 'Deliveries'}
                  </button>{' '}
                  <ConfirmButton
                    label="Remove"
                    accessibleLabel={`Remove the ${PROVIDER_LABEL[hook.provider] ?? hook.provider} webhook for ${repositoryName(hook.repository_id, hook.provider)}`}
                    question={<>Remove this webhook? Deliveries to its address will be refused; Bulwark goes back to asking the host.</>}
                    confirmLabel="Remove webhook"
                    onConfirm={() => remove(hook.id)}
                  />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </LoadedView>

      <OutboundEndpoints orgId={org.id} orgName={org.name} />
    </>
  );
}
