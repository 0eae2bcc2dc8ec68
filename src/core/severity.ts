/** How serious a finding is, most serious first. */
export const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;

export type Severity = (typeof SEVERITIES)[number];

export const isSeverity = (value: unknown): value is Severity => (SEVERITIES as readonly unknown[]).includes(value);

/** 0 for the most serious; a value that is no severity ranks after all of them. */
export function severityRank(severity: string): number {
  const rank = (SEVERITIES as readonly string[]).indexOf(severity);
  return rank === -1 ? SEVERITIES.length : rank;
}

/** Whether `severity` is `threshold` or more serious. */
export const atOrAbove = (severity: Severity, threshold: Severity) => severityRank(severity) <= severityRank(threshold);
