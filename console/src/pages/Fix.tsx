import { useState, type FormEvent } from 'react';
import { errorText } from '../api/errors.ts';
import { DiffView } from '../components/DiffView.tsx';
import { Alert, Badge, ConfirmButton, EmptyState, ErrorAlert, Loading, MessageAlert, NotFound, PageHeader, type Message } from '../components/ui.tsx';
import { formatDateTime } from '../lib/format.ts';
import { ExternalLink } from '../components/ExternalLink.tsx';
import { atLeast, useOrganization } from '../lib/organization.ts';
import { useLoad } from '../lib/use-load.ts';
import { ACTIVE_FIX, cancelFix, createPullRequests, fixDiff, fixProgress, getFix, refineFix, type Family, type Fix } from '../lib/units.ts';
import { Link } from '../router.tsx';

export function FixPage({ family, unitId, fixId }: { family: Family; unitId: string; fixId: string }) {
  const org = useOrganization();
  const fix = useLoad(`fix:${fixId}`, () => getFix(family, unitId, fixId), { pollMs: 3000, shouldPoll: (f) => ACTIVE_FIX.includes(f.status) });
  const status = fix.data?.status;
  const active = status !== undefined && ACTIVE_FIX.includes(status);
  const progress = useLoad(`fix-progress:${fixId}:${status}`, () => fixProgress(family, unitId, fixId), { pollMs: 2000, shouldPoll: (p) => ACTIVE_FIX.includes(p.status) });
  const diff = useLoad(status && !active ? `fix-diff:${fixId}:${status}` : null, () => fixDiff(family, unitId, fixId));
  const [message, setMessage] = useState<Message | null>(null);
  const fixesHref = `/orgs/${org.id}/fixes?unit=${family}:${unitId}`;

  if (fix.loading && !fix.data) return <Loading />;
  if (!fix.data) {
    return <NotFound title="Fix not found" load={fix} missing="There is no fix with this id here." back={fixesHref} backLabel="Back to fixes" />;
  }
  const data = fix.data;
  const canWrite = atLeast(org.role, 'member');
  const repositoryFamily = family === 'repositories';

  const cancel = async () => {
    const { data: cancelled, error, response } = await cancelFix(unitId, fixId);
    setMessage(cancelled ? { kind: 'success', text: 'The fix was cancelled.' } : { kind: 'error', text: errorText(error, response) });
    fix.reload();
  };

  return (
    <>
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <Link to={fixesHref}>Fixes</Link> / {data.title}
      </nav>
      <PageHeader title={data.title}>
        <Badge value={data.status} />
        {canWrite && repositoryFamily && active ? (
          <ConfirmButton small={false} label="Cancel fix" question="Cancel this fix? A fix cancelled before it starts gives its credit back." confirmLabel="Cancel the fix" onConfirm={cancel} />
        ) : null}
      </PageHeader>
      <MessageAlert message={message} />
      <ErrorAlert error={data.error_message} />

      <div className="grid-2">
        <section className="panel" aria-labelledby="fix-progress">
          <h2 id="fix-progress">Progress</h2>
          {active ? (
            <div className="progress indeterminate" role="progressbar" aria-label="Fix in progress" aria-valuetext={progress.data?.current_step ?? 'Working'}>
              <div className="progress-fill" />
            </div>
          ) : null}
          <dl className="facts" style={{ marginTop: '0.75rem' }}>
            <dt>Status</dt>
            <dd aria-live="polite">{progress.data?.current_step ?? data.status.replace(/_/g, ' ')}</dd>
            <dt>Agent steps</dt>
            <dd>{progress.data?.agent_steps_completed ?? 0}</dd>
            <dt>Started</dt>
            <dd>{formatDateTime(data.started_at)}</dd>
            <dt>Finished</dt>
            <dd>{formatDateTime(data.completed_at)}</dd>
            {progress.data?.duration_seconds != null ? (
              <>
                <dt>Duration</dt>
                <dd>{Math.round(progress.data.duration_seconds)} s</dd>
              </>
            ) : null}
            <dt>Last activity</dt>
            <dd>{formatDateTime(progress.data?.latest_activity_at)}</dd>
            <dt>Repository</dt>
            <dd className="mono">{data.source_repo ?? '—'}{data.source_scan_branch ? ` @ ${data.source_scan_branch}` : ''}</dd>
            <dt>Findings</dt>
            <dd>
              {data.finding_ids.map((id, index) => (
                <span key={id}>
                  {index ? ', ' : ''}
                  <Link to={`/orgs/${org.id}/${family}/${unitId}/findings/${id}`}>{id.slice(0, 8)}…</Link>
                </span>
              ))}
            </dd>
          </dl>
        </section>
        <PullRequests family={family} unitId={unitId} fix={data} canWrite={canWrite} onOpened={fix.reload} />
      </div>

      {(data.finding_outcomes ?? []).length || (data.notes ?? []).length ? (
        <section className="panel" aria-labelledby="fix-outcome">
          <h2 id="fix-outcome">Outcome</h2>
          <ul>
            {(data.finding_outcomes ?? []).map((outcome) => (
              <li key={outcome.finding_id}>
                <Badge value={outcome.fixed ? 'completed' : 'failed'} label={outcome.fixed ? 'Fixed' : 'Not fixed'} /> {outcome.detail}
              </li>
            ))}
          </ul>
          {(data.notes ?? []).length ? (
            <>
              <h3>Left to do</h3>
              <ul>
                {(data.notes ?? []).map((note) => (
                  <li key={note}>{note}</li>
                ))}
              </ul>
            </>
          ) : null}
        </section>
      ) : null}

      <h2>Changes</h2>
      {active ? (
        <EmptyState>The diff appears when the fix completes.</EmptyState>
      ) : diff.loading && !diff.data ? (
        <Loading />
      ) : diff.error ? (
        <Alert>{diff.error}</Alert>
      ) : diff.data?.diff ? (
        <DiffView diff={diff.data.diff} />
      ) : (
        <EmptyState>This fix has no changes.</EmptyState>
      )}

      {canWrite && repositoryFamily && data.status === 'completed' ? <Refine unitId={unitId} fixId={fixId} onRefined={fix.reload} /> : null}
    </>
  );
}

function Refine({ unitId, fixId, onRefined }: { unitId: string; fixId: string; onRefined(): void }) {
  const [instructions, setInstructions] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const { data, error: failure, response } = await refineFix(unitId, fixId, instructions.trim());
    setBusy(false);
    if (!data) return setError(response.status === 409 ? `${errorText(failure, response)}` : errorText(failure, response));
    setInstructions('');
    onRefined();
  };
  return (
    <section className="panel" aria-labelledby="refine" style={{ marginTop: '1.25rem' }}>
      <h2 id="refine">Refine</h2>
      <form className="stack" onSubmit={(event) => void submit(event)}>
        <div className="field">
          <label htmlFor="refine-instructions">Follow-up instructions</label>
          <textarea id="refine-instructions" required value={instructions} onChange={(e) => setInstructions(e.target.value)} placeholder="e.g. Keep the old function name and add a test" />
        </div>
        <ErrorAlert error={error} />
        <button type="submit" className="button secondary" disabled={busy || !instructions.trim()}>
          Refine fix
        </button>
      </form>
    </section>
  );
}

function PullRequests({ family, unitId, fix, canWrite, onOpened }: { family: Family; unitId: string; fix: Fix; canWrite: boolean; onOpened(): void }) {
  const [title, setTitle] = useState(fix.title);
  const [body, setBody] = useState('');
  const [branch, setBranch] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const pulls = fix.pull_requests ?? [];
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const { data, error: failure, response } = await createPullRequests(family, unitId, fix.id, {
      title: title.trim() || null,
      body: body.trim() || null,
      branch_name: branch.trim() || null,
    });
    setBusy(false);
    if (!data) return setError(errorText(failure, response));
    onOpened();
  };
  return (
    <section className="panel" aria-labelledby="pull-requests">
      <h2 id="pull-requests">Pull requests</h2>
      {pulls.length ? (
        <ul>
          {pulls.map((pr) => (
            <li key={pr.pr_url}>
              <ExternalLink href={pr.pr_url}>
                {pr.repo_full_name}#{pr.pr_number}
              </ExternalLink>{' '}
              <span className="muted small-text">
                {pr.branch_name} · {pr.merge_status}
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">None opened yet.</p>
      )}
      {canWrite && (fix.status === 'completed' || fix.status === 'pr_creation_failed') && !pulls.length ? (
        <form className="stack" onSubmit={(event) => void submit(event)}>
          <div className="field">
            <label htmlFor="pr-title">Title</label>
            <input id="pr-title" value={title} onChange={(e) => setTitle(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="pr-body">Description (optional, Markdown)</label>
            <textarea id="pr-body" value={body} onChange={(e) => setBody(e.target.value)} placeholder="Generated from the fix when left empty" />
          </div>
          <div className="field">
            <label htmlFor="pr-branch">Branch name (optional)</label>
            <input id="pr-branch" value={branch} onChange={(e) => setBranch(e.target.value)} placeholder="Generated when left empty" />
          </div>
          <ErrorAlert error={error} />
          <button type="submit" className="button primary" disabled={busy}>
            {busy ? 'Opening…' : 'Open pull request'}
          </button>
        </form>
      ) : null}
    </section>
  );
}
