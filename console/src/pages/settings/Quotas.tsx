import { DataTable, LoadedView, PageHeader, ProgressBar } from '../../components/ui.tsx';
import { formatDate } from '../../lib/format.ts';
import { useOrganization } from '../../lib/organization.ts';
import { useLoad } from '../../lib/use-load.ts';
import { quotaBalance } from '../../lib/units.ts';

const COUNTERS = [
  { key: 'sast_scans', label: 'Scans', hint: 'Secrets, SAST and SBOM scans' },
  { key: 'deep_ai_scans', label: 'Deep AI scans', hint: 'Whole-application deep analysis' },
  { key: 'prs', label: 'Fixes', hint: 'Autofix runs (one credit each)' },
] as const;

export function QuotasPage() {
  const org = useOrganization();
  const balance = useLoad(`quota:${org.id}`, quotaBalance);
  return (
    <>
      <PageHeader title="Quotas" />
      <LoadedView load={balance}>
        {(data) => (
          <>
            <p className="muted">
              Current period: {formatDate(data.period_start)} to {formatDate(data.period_end)}.
            </p>
            <div className="stats">
              {COUNTERS.map(({ key, label, hint }) => {
                const counter = data[key];
                const total = counter.plan + counter.topup;
                return (
                  <section className="stat" key={key} aria-labelledby={`quota-${key}`}>
                    <h2 className="stat-label" id={`quota-${key}`} style={{ margin: 0, fontSize: '0.85rem' }}>
                      {label}
                    </h2>
                    <div className="stat-value">{counter.remaining.toLocaleString()} left</div>
                    <ProgressBar percent={total ? (counter.used / total) * 100 : 0} label={`${label} used`} />
                    <p className="muted small-text" style={{ margin: '0.4rem 0 0' }}>
                      {counter.used.toLocaleString()} used of {counter.plan.toLocaleString()}
                      {counter.topup ? ` + ${counter.topup.toLocaleString()} top-up` : ''}. {hint}.
                    </p>
                  </section>
                );
              })}
            </div>
            <h2>Monitored units</h2>
            <DataTable columns={['Kind', { label: 'In use', className: 'num' }, { label: 'Limit', className: 'num' }]}>
              <tr>
                <td>Repositories</td>
                <td className="num">{data.repositories.current.toLocaleString()}</td>
                <td className="num">{data.repositories.max == null ? 'No limit' : data.repositories.max.toLocaleString()}</td>
              </tr>
              <tr>
                <td>Applications</td>
                <td className="num">{data.applications.current.toLocaleString()}</td>
                <td className="num">{data.applications.max == null ? 'No limit' : data.applications.max.toLocaleString()}</td>
              </tr>
            </DataTable>
          </>
        )}
      </LoadedView>
    </>
  );
}
