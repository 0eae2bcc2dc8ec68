import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { humanize } from '../lib/format.ts';

/** The page's heading; it takes focus when the page changes, so screen readers announce the new page. */
export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Bulwark`;
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

const TONE: Record<string, string> = {
  critical: 'danger',
  high: 'danger',
  medium: 'warning',
  low: 'neutral',
  info: 'neutral',
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
  return <span className={`badge badge-${TONE[key] ?? 'neutral'}`}>{label ?? humanize(value)}</span>;
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
