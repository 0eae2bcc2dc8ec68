export const QUOTA_PERIODS = ['monthly', 'weekly', 'daily'] as const;
export type QuotaPeriodKind = (typeof QUOTA_PERIODS)[number];

export interface Period {
  start: string;
  end: string;
}

export function isQuotaPeriodKind(value: string): value is QuotaPeriodKind {
  return (QUOTA_PERIODS as readonly string[]).includes(value);
}

/** Calendar-aligned UTC periods: months start on the 1st, weeks on Monday, days at midnight. */
export function periodContaining(kind: string, now: Date): Period {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  let start: Date;
  let end: Date;
  if (kind === 'daily') {
    start = new Date(Date.UTC(y, m, d));
    end = new Date(Date.UTC(y, m, d + 1));
  } else if (kind === 'weekly') {
    const sinceMonday = (now.getUTCDay() + 6) % 7;
    start = new Date(Date.UTC(y, m, d - sinceMonday));
    end = new Date(Date.UTC(y, m, d - sinceMonday + 7));
  } else {
    start = new Date(Date.UTC(y, m, 1));
    end = new Date(Date.UTC(y, m + 1, 1));
  }
  return { start: start.toISOString(), end: end.toISOString() };
}
