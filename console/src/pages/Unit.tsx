import { useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import { errorCode, errorText } from '../api/errors.ts';
import { Alert, Badge, ConfirmButton, DataTable, ErrorAlert, FormPanel, LoadedView, Loading, MessageAlert, NotFound, PageHeader, Pager, ProgressBar, SelectField, type Message } from '../components/ui.tsx';
import { scanTypeLabel } from '../api/vocabulary.ts';
import { formatDateTime, humanize, inSentence } from '../lib/format.ts';
import { webUrl } from '../../../src/web-url.ts';
import { ExternalLink } from '../components/ExternalLink.tsx';
import { ScanTriggers } from '../components/ScanTriggers.tsx';
import { SourceTokens } from '../components/SourceTokens.tsx';
import { atLeast, useOrganization } from '../lib/organization.ts';
import { useLoad } from '../lib/use-load.ts';
import {
  createScan,
  FAMILY_LABEL,
  FINISHED_BATCH,
  getUnit,
  listScans,
  PROVIDER_LABEL,
  quotaBalance,
  SCAN_QUOTA,
  SCAN_TYPES,
  scanProgress,
  type Family,
  type ScanBatch,
  type ScanType,
} from '../lib/units.ts';
import { Link } from '../router.tsx';

const LIMIT = 20;

export function UnitPage({ family, unitId }: { family: Family; unitId: string }) {
  const org = useOrganization();
  const label = FAMILY_LABEL[family];
  const unit = useLoad(`${family}:${unitId}`, () => getUnit(family, unitId));
  const [skip, setSkip] = useState(0);
  const [archiveError, setArchiveError] = useState<string | null>(null);
  const scans = useLoad(`${family}:${unitId}:scans:${skip}`, () => listScans(family, unitId, { limit: LIMIT, skip }), {
    pollMs: 5000,
    shouldPoll: (page) => page.items.some((batch) => !FINISHED_BATCH.includes(batch.status)),
  });

  if (unit.loading && !unit.data) return <Loading />;
  if (!unit.data) {
    return (
      <NotFound
        title={`${humanize(label.one)} not found`}
        load={unit}
        missing={`There is no ${label.one} with this id in ${org.name}.`}
        back={`/orgs/${org.id}/${family}`}
        backLabel={`Back to ${label.many}`}
      />
    );
  }
  const data = unit.data;
  const setArchived = async (archived: boolean) => {
    setArchiveError(null);
    const answer = await api.PATCH('/console/api/organizations/{org_id}/units/{unit_id}', {
      params: { path: { org_id: org.id, unit_id: unitId } },
      body: { archived },
    });
    if (!answer.data) setArchiveError(errorText(answer.error, answer.response));
    unit.reload();
  };
  return (
    <>
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <Link to={`/orgs/${org.id}/${family}`}>{label.title}</Link> / {data.name}
      </nav>
      <PageHeader title={data.name}>
        <Link className="button secondary" to={`/orgs/${org.id}/findings?unit=${family}:${unitId}`}>
          Findings
        </Link>
        <Link className="button secondary" to={`/orgs/${org.id}/fixes?unit=${family}:${unitId}`}>
          Fixes
        </Link>
        {atLeast(org.role, 'admin') ? (
          data.archived ? (
            <button type="button" className="button secondary" onClick={() => void setArchived(false)}>
              Restore
            </button>
          ) : (
            <ConfirmButton
              small={false}
              label="Archive"
              question={
                <>
                  Archive <strong>{data.name}</strong>? It leaves the lists (unless archived ones are shown); its scans and findings are kept.
                </>
              }
              confirmLabel={`Archive ${label.one}`}
              onConfirm={() => setArchived(true)}
            />
          )
        ) : null}
      </PageHeader>
      <ErrorAlert error={archiveError} />
      {data.archived ? <Alert kind="warning">This {label.one} is archived.</Alert> : null}
      <div className="grid-2">
        <section className="panel" aria-labelledby="sources">
          <h2 id="sources">Source repositories</h2>
          {data.description ? <p>{data.description}</p> : null}
          <ul>
            {(data.repositories ?? []).map((repo) => (
              <li key={`${repo.provider}:${repo.full_name}`}>
                <ExternalLink href={repo.html_url} className={webUrl(repo.html_url) ? undefined : 'mono'}>
                  {repo.full_name}
                </ExternalLink>{' '}
                <span className="muted">
                  branch {repo.default_branch} · {PROVIDER_LABEL[repo.provider] ?? repo.provider}
                </span>
              </li>
            ))}
          </ul>
        </section>
        {atLeast(org.role, 'member') ? <StartScan family={family} unitId={unitId} onStarted={() => (skip === 0 ? scans.reload() : setSkip(0))} /> : null}
      </div>
      {atLeast(org.role, 'admin') ? <SourceTokens orgId={org.id} unitId={unitId} /> : null}
      {atLeast(org.role, 'admin') && family === 'repositories' ? (
        <ScanTriggers orgId={org.id} unitId={unitId} branch={data.repositories?.[0]?.default_branch ?? 'the default branch'} />
      ) : null}

      <h2>Scans</h2>
      <LoadedView load={scans} isEmpty={(page) => page.items.length === 0} empty="No scans yet.">
        {(page) => (
          <>
            <DataTable caption={<>Scans of {data.name}</>} columns={['Type', 'Status', 'Progress', 'Started', 'Finished', { label: 'Findings', hidden: true }]}>
              {page.items.map((batch) => (
                <ScanRow key={batch.batch_id} family={family} unitId={unitId} batch={batch} findingsHref={`/orgs/${org.id}/findings?unit=${family}:${unitId}&batch=${batch.batch_id}`} />
              ))}
            </DataTable>
            <Pager total={page.total} limit={LIMIT} skip={skip} onSkip={setSkip} noun="Scans" />
          </>
        )}
      </LoadedView>
    </>
  );
}

/** One scan; while it runs, its progress is polled and drawn from percent_complete. */
function ScanRow({ family, unitId, batch, findingsHref }: { family: Family; unitId: string; batch: ScanBatch; findingsHref: string }) {
  const running = !FINISHED_BATCH.includes(batch.status);
  const progress = useLoad(running ? `progress:${batch.batch_id}` : null, () => scanProgress(family, unitId, batch.batch_id), {
    pollMs: 2000,
    shouldPoll: (p) => !FINISHED_BATCH.includes(p.status),
  });
  const status = progress.data?.status ?? batch.status;
  const percent = progress.data?.percent_complete ?? (running ? 0 : 100);
  const error = progress.data?.error_message ?? batch.error_message;
  return (
    <tr>
      <td>{scanTypeLabel(batch.scan_type)}</td>
      <td>
        <Badge value={status} />
        {error ? <div className="small-text" style={{ color: 'var(--danger)' }}>{error}</div> : null}
      </td>
      <td>
        <ProgressBar percent={percent} label={`${scanTypeLabel(batch.scan_type)} progress`} />
        {progress.data && (progress.data.repositories ?? []).length > 1 ? (
          <div className="muted small-text">
            {progress.data.scans_completed} of {progress.data.total_repositories} repositories done
          </div>
        ) : null}
      </td>
      <td>{formatDateTime(batch.started_at ?? batch.created_at)}</td>
      <td>{formatDateTime(progress.data?.completed_at ?? batch.completed_at)}</td>
      <td>
        <Link to={findingsHref} aria-label={`Findings of the ${inSentence(scanTypeLabel(batch.scan_type))} started ${formatDateTime(batch.created_at)}`}>
          Findings
        </Link>
      </td>
    </tr>
  );
}

function StartScan({ family, unitId, onStarted }: { family: Family; unitId: string; onStarted(): void }) {
  const org = useOrganization();
  const types = SCAN_TYPES[family];
  const [scanType, setScanType] = useState<ScanType>(types[0]!);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<Message | null>(null);
  const quota = useLoad(`quota:${org.id}`, quotaBalance);
  const counter = quota.data?.[SCAN_QUOTA[scanType]];
  const exhausted = counter !== undefined && counter.remaining <= 0;

  const start = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setMessage(null);
    const { data, error, response } = await createScan(family, unitId, scanType);
    setBusy(false);
    quota.reload();
    if (data) {
      setMessage({ kind: 'success', text: `${scanTypeLabel(scanType)} queued.` });
      onStarted();
    } else {
      setMessage({ kind: 'error', text: errorCode(error) === 'OPERATION_FAILED' && response.status === 403 ? `No quota left: ${errorText(error, response)}` : errorText(error, response) });
    }
  };

  return (
    <FormPanel titleId="start-scan" title="Start a scan" onSubmit={start} submitLabel="Start scan" disabled={busy || exhausted}>
      <SelectField id="scan-type" label="Scan type" value={scanType} options={types} optionLabel={scanTypeLabel} onChange={setScanType} describedBy="scan-quota" />
      <p id="scan-quota" className={exhausted ? '' : 'muted'} aria-live="polite">
        {quota.error
          ? `Quota balance unavailable: ${quota.error}`
          : counter === undefined
            ? 'Reading the quota balance…'
            : `${counter.remaining.toLocaleString()} ${SCAN_QUOTA[scanType] === 'deep_ai_scans' ? 'deep AI scans' : 'scans'} left this period (one is used by this scan).`}
      </p>
      {exhausted ? <Alert kind="warning">The quota for this scan type is used up until the next period.</Alert> : null}
      <MessageAlert message={message} />
    </FormPanel>
  );
}
