import { useState, type FormEvent } from 'react';
import { errorText } from '../api/errors.ts';
import { DetectedBy } from '../components/DetectedBy.tsx';
import { EventTimeline } from '../components/EventList.tsx';
import { cweUrl, owaspUrl, Snippet } from '../components/Snippet.tsx';
import { Alert, Badge, EmptyState, ErrorAlert, FormPanel, Loading, MessageAlert, NotFound, PageHeader, SelectField, type Message } from '../components/ui.tsx';
import { formatDateTime, humanize } from '../lib/format.ts';
import { webUrl } from '../../../src/web-url.ts';
import { ExternalLink } from '../components/ExternalLink.tsx';
import { FINDING_STATUSES } from '../api/vocabulary.ts';
import { atLeast, useOrganization } from '../lib/organization.ts';
import { useLoad } from '../lib/use-load.ts';
import {
  createFix,
  FAMILY_LABEL,
  getFinding,
  getUnit,
  listEvents,
  listFixes,
  type Provider,
  updateFinding,
  type Family,
  type Finding,
  type FindingStatus,
} from '../lib/units.ts';
import { Link, navigate } from '../router.tsx';

export function FindingPage({ family, unitId, findingId }: { family: Family; unitId: string; findingId: string }) {
  const org = useOrganization();
  const finding = useLoad(`finding:${findingId}`, () => getFinding(family, unitId, findingId));
  const events = useLoad(`finding-events:${findingId}`, () => listEvents({ finding_id: findingId, limit: 100, skip: 0 }));
  const fixes = useLoad(`finding-fixes:${findingId}`, () => listFixes(family, unitId, { finding_id: findingId, limit: 20, skip: 0 }));
  const unit = useLoad(`${family}:${unitId}`, () => getUnit(family, unitId));
  const [fixing, setFixing] = useState(false);
  const findingsHref = `/orgs/${org.id}/findings?unit=${family}:${unitId}`;

  if (finding.loading && !finding.data) return <Loading />;
  if (!finding.data) {
    return <NotFound title="Finding not found" load={finding} missing="There is no finding with this id here." back={findingsHref} backLabel="Back to findings" />;
  }
  const data = finding.data;
  const title = ('title' in data && data.title) || data.check_id;
  const canWrite = atLeast(org.role, 'member');
  const onChanged = () => {
    finding.reload();
    events.reload();
  };

  return (
    <>
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <Link to={findingsHref}>Findings</Link> / <Link to={`/orgs/${org.id}/${family}/${unitId}`}>{unit.data?.name ?? FAMILY_LABEL[family].one}</Link> / {title}
      </nav>
      <PageHeader title={title}>
        <Badge value={data.severity} />
        <Badge value={data.status} />
        {canWrite ? (
          <button type="button" className="button primary" aria-expanded={fixing} aria-controls="fix-form" onClick={() => setFixing(!fixing)}>
            Fix
          </button>
        ) : null}
      </PageHeader>
      {fixing && unit.data ? (
        <FixForm family={family} unitId={unitId} finding={data} title={title} repositories={(unit.data.repositories ?? []).map((r) => ({ full_name: r.full_name, provider: r.provider, branch: r.default_branch }))} />
      ) : null}
      <p>{data.message}</p>
      <div className="grid-2">
        <section className="panel" aria-labelledby="details">
          <h2 id="details">Details</h2>
          <dl className="facts">
            <dt>Rule</dt>
            <dd className="mono">{data.check_id}</dd>
            <dt>Location</dt>
            <dd className="mono">
              {data.file_path}
              {data.start_line ? `:${data.start_line}${data.end_line && data.end_line !== data.start_line ? `–${data.end_line}` : ''}` : ''}
            </dd>
            {data.source_repo ? (
              <>
                <dt>Repository</dt>
                <dd>
                  <ExternalLink href={data.source_url}>{data.source_repo}</ExternalLink>
                </dd>
              </>
            ) : null}
            {data.commit_sha ? (
              <>
                <dt>Commit</dt>
                <dd className="mono">{data.commit_sha.slice(0, 12)}</dd>
              </>
            ) : null}
            <dt>Detected by</dt>
            <dd>
              <DetectedBy finding={data} />
            </dd>
            <dt>Category</dt>
            <dd>{humanize(data.category)}</dd>
            {data.scan_batch_id ? (
              <>
                <dt>Scan batch</dt>
                <dd>
                  <Link to={`${findingsHref}&batch=${data.scan_batch_id}`}>{data.scan_batch_id.slice(0, 8)}…</Link>
                </dd>
              </>
            ) : null}
            {data.cvss_base_score != null ? (
              <>
                <dt>CVSS</dt>
                <dd>
                  {data.cvss_base_score} {data.cvss_severity ? `(${humanize(data.cvss_severity)})` : ''} <span className="mono small-text">{data.cvss_vector}</span>
                </dd>
              </>
            ) : null}
            {data.confidence != null ? (
              <>
                <dt>Confidence</dt>
                <dd>{data.confidence}</dd>
              </>
            ) : null}
            <dt>First seen</dt>
            <dd>{formatDateTime(data.first_detected_at)}</dd>
            <dt>Last seen</dt>
            <dd>{formatDateTime(data.last_detected_at)}</dd>
            {data.resolved_at ? (
              <>
                <dt>Resolved</dt>
                <dd>{formatDateTime(data.resolved_at)}</dd>
              </>
            ) : null}
          </dl>
          {data.cwe?.length || data.owasp?.length || data.references?.length ? (
            <>
              <h3 style={{ marginTop: '1rem' }}>References</h3>
              <ul className="link-list">
                {(data.cwe ?? []).map((cwe) => (
                  <li key={cwe}>{cweUrl(cwe) ? <a href={cweUrl(cwe)!} target="_blank" rel="noreferrer noopener">{cwe}</a> : cwe}</li>
                ))}
                {(data.owasp ?? []).map((entry) => (
                  <li key={entry}>
                    <a href={owaspUrl(entry)} target="_blank" rel="noreferrer noopener">
                      OWASP {entry}
                    </a>
                  </li>
                ))}
                {(data.references ?? []).filter((ref) => webUrl(ref)).map((ref) => (
                  <li key={ref}>
                    <ExternalLink href={ref}>{new URL(ref).hostname}</ExternalLink>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </section>
        {canWrite ? <Triage family={family} unitId={unitId} finding={data} onChanged={onChanged} /> : null}
      </div>

      <h2>Code</h2>
      {data.snippet ? (
        <Snippet code={data.snippet} startLine={data.start_line ?? null} endLine={data.end_line ?? null} label={`Code of ${data.file_path}`} />
      ) : (
        <EmptyState>No code excerpt was stored for this finding.</EmptyState>
      )}

      <div className="grid-2" style={{ marginTop: '1.25rem' }}>
        <section aria-labelledby="history">
          <h2 id="history">History</h2>
          {events.error ? <Alert>{events.error}</Alert> : events.data?.items.length ? <EventTimeline events={events.data.items} /> : <EmptyState>No events yet.</EmptyState>}
        </section>
        <section aria-labelledby="finding-fixes">
          <h2 id="finding-fixes">Fixes</h2>
          {fixes.data?.items.length ? (
            <ul>
              {fixes.data.items.map((fix) => (
                <li key={fix.id}>
                  <Link to={`/orgs/${org.id}/${family}/${unitId}/fixes/${fix.id}`}>{fix.title}</Link> <Badge value={fix.status} />
                </li>
              ))}
            </ul>
          ) : (
            <EmptyState>No fix has been started for this finding.</EmptyState>
          )}
        </section>
      </div>
    </>
  );
}

function Triage({ family, unitId, finding, onChanged }: { family: Family; unitId: string; finding: Finding; onChanged(): void }) {
  const [status, setStatus] = useState<FindingStatus>(finding.status as FindingStatus);
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<Message | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    const { data, error, response } = await updateFinding(family, unitId, finding.id, { status, comment: comment.trim() || null });
    setBusy(false);
    setMessage(data ? { kind: 'success', text: `Marked ${humanize(data.status).toLowerCase()}.` } : { kind: 'error', text: errorText(error, response) });
    if (data) {
      setComment('');
      onChanged();
    }
  };
  return (
    <FormPanel titleId="triage" title="Triage" onSubmit={submit} submitLabel="Update status" disabled={busy}>
      <SelectField id="triage-status" label="Status" value={status} options={FINDING_STATUSES} onChange={setStatus} />
      <div className="field">
        <label htmlFor="triage-comment">Comment (optional)</label>
        <textarea id="triage-comment" value={comment} maxLength={2000} onChange={(e) => setComment(e.target.value)} />
      </div>
      <MessageAlert message={message} />
    </FormPanel>
  );
}

function FixForm({ family, unitId, finding, title, repositories }: { family: Family; unitId: string; finding: Finding; title: string; repositories: { full_name: string; provider: string; branch: string }[] }) {
  const org = useOrganization();
  const initialRepo = repositories.find((r) => r.full_name === finding.source_repo) ?? repositories[0];
  const [fixTitle, setFixTitle] = useState(`Fix: ${title}`);
  const [instructions, setInstructions] = useState(`Fix ${finding.check_id} in ${finding.file_path} without changing behaviour.`);
  const [repo, setRepo] = useState(initialRepo?.full_name ?? finding.source_repo ?? '');
  const [branch, setBranch] = useState(initialRepo?.branch ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const provider = (repositories.find((r) => r.full_name === repo)?.provider ?? 'github') as Provider;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const { data, error: failure, response } = await createFix(family, unitId, {
      finding_ids: [finding.id],
      title: fixTitle.trim(),
      instructions: instructions.trim(),
      source_repo: repo,
      source_repo_provider: provider,
      source_scan_branch: branch.trim() || null,
    });
    setBusy(false);
    if (data) navigate(`/orgs/${org.id}/${family}/${unitId}/fixes/${data.id}`);
    else setError(errorText(failure, response));
  };

  return (
    <FormPanel
      id="fix-form"
      titleId="fix-form-title"
      title="Start a fix"
      before={<p className="muted small-text">A fix uses one credit of the fixes quota. Deterministic fixers run first, then the agent when one is configured.</p>}
      onSubmit={submit}
      submitLabel="Start fix"
      disabled={busy}
    >
      <div className="field">
        <label htmlFor="fix-title">Title</label>
        <input id="fix-title" required value={fixTitle} onChange={(e) => setFixTitle(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="fix-instructions">Instructions</label>
        <textarea id="fix-instructions" required value={instructions} onChange={(e) => setInstructions(e.target.value)} />
      </div>
      <div className="row">
        <SelectField id="fix-repo" label="Repository" value={repo} options={repositories.map((r) => r.full_name)} optionLabel={(name) => name} onChange={setRepo} />
        <div className="field">
          <label htmlFor="fix-branch">Branch</label>
          <input id="fix-branch" value={branch} onChange={(e) => setBranch(e.target.value)} />
        </div>
      </div>
      <ErrorAlert error={error} />
    </FormPanel>
  );
}
