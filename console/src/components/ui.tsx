import { useEffect, useId, useRef, useState, type CSSProperties, type FormEvent, type ReactNode } from 'react';
import type { FindingStatus, FixStatus, ScanBatchStatus, Severity } from '../api/vocabulary.ts';
import { humanize } from '../lib/format.ts';
import type { Loaded } from '../lib/use-load.ts';
import { Link, navigate, skipOf, useLocation, withQuery } from '../router.tsx';

/** Sets the browser tab's title: `<title> · Bulwark`. */
export function useDocumentTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · Bulwark`;
  }, [title]);
}

/** The page's heading; it takes focus when the page changes, so screen readers announce the new page. */
export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useDocumentTitle(title);
  useEffect(() => {
    heading.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <div className="page-header">
      <h1 ref={heading} tabIndex={-1}>
        {title}
      </h1>
      {children ? <div className="page-actions">{children}</div> : null}
    </div>
  );
}

export function Alert({ kind = 'error', children }: { kind?: 'error' | 'success' | 'info' | 'warning'; children: ReactNode }) {
  return (
    <div className={`alert alert-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

/** The outcome of a form: shown after it is sent, cleared when it is sent again. */
export type Message = { kind: 'error' | 'success'; text: string };

export function MessageAlert({ message }: { message: Message | null }) {
  return message ? <Alert kind={message.kind}>{message.text}</Alert> : null;
}

/** An error text, when there is one. */
export function ErrorAlert({ error }: { error: string | null | undefined }) {
  return error ? <Alert>{error}</Alert> : null;
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="muted" role="status">
      {label}
    </p>
  );
}

export function ProgressBar({ percent, label }: { percent: number; label: string }) {
  const value = Math.max(0, Math.min(100, Math.round(percent)));
  return (
    <div className="progress-wrap">
      <div className="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={value}>
        <div className="progress-fill" style={{ width: `${value}%` }} />
      </div>
      <span className="progress-text">{value}%</span>
    </div>
  );
}

/** Every severity and status has a tone; a value the server adds fails to compile until it has one. */
const TONE: Record<Severity | FindingStatus | ScanBatchStatus | FixStatus, string> = {
  critical: 'danger',
  high: 'danger',
  medium: 'warning',
  low: 'neutral',
  open: 'warning',
  resolved: 'success',
  ignored: 'neutral',
  false_positive: 'neutral',
  needs_manual_review: 'warning',
  completed: 'success',
  failed: 'danger',
  partial_failure: 'warning',
  cancelled: 'neutral',
  pr_creation_failed: 'danger',
  pending: 'info',
  running: 'info',
  queued: 'info',
  creating_scans: 'info',
  scanning: 'info',
  assessing: 'info',
};

export function Badge({ value, label }: { value: string | null | undefined; label?: string }) {
  const key = (value ?? '').toLowerCase();
  return <span className={`badge badge-${TONE[key as keyof typeof TONE] ?? 'neutral'}`}>{label ?? humanize(value)}</span>;
}

/** A labelled <select> over a list of values; `anyOption` adds a first, empty choice "Any" (a filter that is off). */
export function SelectField<T extends string>({
  id,
  label,
  value,
  options,
  onChange,
  optionLabel = humanize,
  anyOption = false,
  describedBy,
  disabled,
  style,
}: {
  id: string;
  label: string;
  value: string;
  options: readonly T[];
  onChange(value: NoInfer<T>): void;
  optionLabel?: (value: NoInfer<T>) => ReactNode;
  anyOption?: boolean;
  describedBy?: string;
  disabled?: boolean;
  style?: CSSProperties;
}) {
  return (
    <div className="field" style={style}>
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value as T)} aria-describedby={describedBy} disabled={disabled}>
        {anyOption ? <option value="">Any</option> : null}
        {options.map((option) => (
          <option key={option} value={option}>
            {optionLabel(option)}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * A panel with a heading (which names it) and one form that ends in a primary submit button; `before` stands
 * between the heading and the form. `onSubmit` gets the submit event (and calls preventDefault itself).
 */
export function FormPanel({
  id,
  titleId,
  title,
  before,
  layout = 'stack',
  onSubmit,
  submitLabel,
  disabled,
  children,
}: {
  id?: string;
  titleId: string;
  title: ReactNode;
  before?: ReactNode;
  layout?: 'stack' | 'row';
  onSubmit(event: FormEvent): void | Promise<void>;
  submitLabel: ReactNode;
  disabled?: boolean;
  children: ReactNode;
}) {
  return (
    <section className="panel" id={id} aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      {before}
      <form className={layout} onSubmit={(event) => void onSubmit(event)}>
        {children}
        <button type="submit" className="button primary" disabled={disabled}>
          {submitLabel}
        </button>
      </form>
    </section>
  );
}

/** A table column heading: its text, or one that only screen readers hear (`hidden`), or other content. */
export type Column = string | { label: ReactNode; hidden?: boolean; className?: string };

/** A scrollable table, with a caption for screen readers when one is given; `columns` left out with false or null are not drawn. */
export function DataTable({ caption, columns, children }: { caption?: ReactNode; columns: (Column | false | null)[]; children: ReactNode }) {
  return (
    <div className="table-wrap">
      <table>
        {caption ? <caption className="visually-hidden">{caption}</caption> : null}
        <thead>
          <tr>
            {columns.map((column, index) =>
              !column ? null : typeof column === 'string' ? (
                <th key={index} scope="col">
                  {column}
                </th>
              ) : (
                <th key={index} scope="col" className={column.className}>
                  {column.hidden ? <span className="visually-hidden">{column.label}</span> : column.label}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/**
 * What loaded data shows: "Loading…" until it is there (or while `ready` is false), its error, `empty` when
 * `isEmpty(data)` holds, else `children(data)`.
 */
export function LoadedView<T>({
  load,
  ready = true,
  isEmpty,
  empty,
  children,
}: {
  load: Loaded<T>;
  ready?: boolean;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children(data: T): ReactNode;
}) {
  if (!ready || (load.loading && !load.data)) return <Loading />;
  if (load.error || !load.data) return <Alert>{load.error}</Alert>;
  if (isEmpty?.(load.data)) return <EmptyState>{empty}</EmptyState>;
  return <>{children(load.data)}</>;
}

/** The page of one item (a unit, finding, fix) that could not be loaded: "not found" for a 404, else the error. */
export function NotFound({ title, load, missing, back, backLabel }: { title: string; load: Loaded<unknown>; missing: string; back: string; backLabel: string }) {
  return (
    <>
      <PageHeader title={title} />
      <Alert>{load.status === 404 ? missing : load.error}</Alert>
      <Link to={back}>{backLabel}</Link>
    </>
  );
}

/** A Pager whose position is the `skip` value of the query string. */
export function QueryPager({ total, limit, noun }: { total: number; limit: number; noun: string }) {
  const { pathname, search } = useLocation();
  return <Pager total={total} limit={limit} skip={skipOf(search)} noun={noun} onSkip={(next) => navigate(withQuery(pathname, search, { skip: next || null }))} />;
}

/** The centred card of the pages outside an organization (signing in, approving a device). */
export function AuthPage({ title, wide = false, children }: { title: string; wide?: boolean; children: ReactNode }) {
  useDocumentTitle(title);
  return (
    <main className="auth-page" id="main">
      <div className={wide ? 'auth-card wide-card' : 'auth-card'}>
        <div className="brand brand-large" aria-hidden="true">
          <span className="brand-mark" /> Bulwark
        </div>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

/** Previous / next paging of a list envelope. */
export function Pager({ total, limit, skip, onSkip, noun }: { total: number; limit: number; skip: number; onSkip(skip: number): void; noun: string }) {
  if (total === 0) return null;
  const first = skip + 1;
  const last = Math.min(skip + limit, total);
  if (skip === 0 && total <= limit) {
    return (
      <p className="pager muted small-text">
        {total.toLocaleString()} in all
      </p>
    );
  }
  return (
    <nav className="pager" aria-label={`${noun} pages`}>
      <span aria-live="polite">
        {first.toLocaleString()}–{last.toLocaleString()} of {total.toLocaleString()}
      </span>
      <button type="button" className="button secondary" disabled={skip === 0} onClick={() => onSkip(Math.max(0, skip - limit))}>
        Previous page
      </button>
      <button type="button" className="button secondary" disabled={last >= total} onClick={() => onSkip(skip + limit)}>
        Next page
      </button>
    </nav>
  );
}

/** A button that asks first, in a modal dialog (focus kept inside; Escape cancels). */
export function ConfirmButton({
  label,
  accessibleLabel,
  question,
  confirmLabel,
  onConfirm,
  danger = true,
  disabled,
  small = true,
}: {
  label: string;
  accessibleLabel?: string;
  question: ReactNode;
  confirmLabel: string;
  onConfirm(): void | Promise<void>;
  danger?: boolean;
  disabled?: boolean;
  small?: boolean;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
      dialog.current?.close();
    }
  };
  return (
    <>
      <button type="button" className={`button ${danger ? 'danger-outline' : 'secondary'}${small ? ' small' : ''}`} aria-label={accessibleLabel} disabled={disabled} onClick={() => dialog.current?.showModal()}>
        {label}
      </button>
      <dialog ref={dialog} className="dialog" aria-labelledby={titleId}>
        <p id={titleId} className="dialog-question">
          {question}
        </p>
        <div className="dialog-actions">
          <button type="button" className="button secondary" onClick={() => dialog.current?.close()} autoFocus>
            Cancel
          </button>
          <button type="button" className={`button ${danger ? 'danger' : 'primary'}`} disabled={busy} onClick={() => void confirm()}>
            {confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState<'copied' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone('copied');
    } catch {
      setDone('failed');
    }
  };
  return (
    <span className="copy">
      <button type="button" className="button secondary small" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" className="muted small-text">
        {done === 'copied' ? 'Copied to the clipboard' : done === 'failed' ? 'Copy failed: select the text and copy it' : ''}
      </span>
    </span>
  );
}

export function EmptyState({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}
