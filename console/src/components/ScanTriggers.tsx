// A repository's automatic scans, for admins: the scan types started when its code host reports a push to
// the branch it scans, and those run on pull requests into that branch.
import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import { errorText } from '../api/errors.ts';
import { REPOSITORY_SCAN_TYPES, scanTypeLabel, type ScanType } from '../api/vocabulary.ts';
import { useLoad } from '../lib/use-load.ts';
import { Link } from '../router.tsx';
import { FormPanel, LoadedView, MessageAlert, type Message } from './ui.tsx';

function TypeChecks({ id, legend, value, onChange }: { id: string; legend: string; value: ScanType[]; onChange(next: ScanType[]): void }) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      <div className="checks">
        {REPOSITORY_SCAN_TYPES.map((type) => (
          <label key={type} className="check">
            <input
              type="checkbox"
              name={id}
              value={type}
              checked={value.includes(type)}
              onChange={(e) => onChange(e.target.checked ? [...value, type] : value.filter((t) => t !== type))}
            />
            {scanTypeLabel(type)}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

export function ScanTriggers({ orgId, unitId, branch }: { orgId: string; unitId: string; branch: string }) {
  const path = { org_id: orgId, unit_id: unitId };
  const triggers = useLoad(`scan-triggers:${unitId}`, () => api.GET('/console/api/organizations/{org_id}/units/{unit_id}/scan-triggers', { params: { path } }));
  const [onPush, setOnPush] = useState<ScanType[]>([]);
  const [onPullRequest, setOnPullRequest] = useState<ScanType[]>([]);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<Message | null>(null);

  useEffect(() => {
    if (!triggers.data) return;
    setOnPush(triggers.data.on_push as ScanType[]);
    setOnPullRequest((triggers.data.on_pull_request ?? []) as ScanType[]);
  }, [triggers.data]);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setMessage(null);
    const { data, error, response } = await api.PUT('/console/api/organizations/{org_id}/units/{unit_id}/scan-triggers', {
      params: { path },
      body: { on_push: onPush, on_pull_request: onPullRequest },
    });
    setBusy(false);
    if (!data) return setMessage({ kind: 'error', text: errorText(error, response) });
    setMessage({ kind: 'success', text: 'Automatic scans saved.' });
    triggers.reload();
  };

  return (
    <FormPanel
      titleId="automatic-scans"
      title="Automatic scans"
      before={
        <p className="muted">
          These need a code-host webhook that covers this repository (<Link to={`/orgs/${orgId}/settings/webhooks`}>Settings → Webhooks</Link>). Each scan started by a
          push is charged like a scan started by hand.
        </p>
      }
      onSubmit={save}
      submitLabel="Save automatic scans"
      disabled={busy || !triggers.data}
    >
      <LoadedView load={triggers}>
        {() => (
          <>
            <TypeChecks id="on-push" legend={`On a push to ${branch}`} value={onPush} onChange={setOnPush} />
            <TypeChecks id="on-pull-request" legend={`On pull requests into ${branch}`} value={onPullRequest} onChange={setOnPullRequest} />
          </>
        )}
      </LoadedView>
      <MessageAlert message={message} />
    </FormPanel>
  );
}
