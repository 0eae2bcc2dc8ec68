import type { ScanType } from '../scanning/scan-type-names.ts';

// Which contract scan type another tool's results are filed under. The tool's own name settles it unless
// its rules say otherwise (Trivy reports vulnerable packages, misconfigurations and secrets in one log and
// tags each rule with which it is).

export type ToolKind = 'code' | 'secrets' | 'dependencies';

export const SCAN_TYPE_OF_KIND: Record<ToolKind, ScanType> = { code: 'semgrep_scan', secrets: 'secrets_scan', dependencies: 'sbom_scan' };

/** Names tools give themselves in tool.driver.name that mean one tool. */
const TOOL_ALIASES: Record<string, string> = {
  'semgrep oss': 'semgrep',
  'semgrep pro': 'semgrep',
  'semgrep code': 'semgrep',
  'semgrep supply chain': 'semgrep-supply-chain',
  'trivy vulnerability scanner': 'trivy',
  'owasp dependency-check': 'dependency-check',
  'dependency check': 'dependency-check',
  'osv scanner': 'osv-scanner',
  'trufflehog': 'trufflehog',
  'nosey parker': 'noseyparker',
};

const SECRET_TOOLS = new Set(['gitleaks', 'trufflehog', 'detect-secrets', 'ggshield', 'gitguardian', 'noseyparker', 'secretlint', 'talisman', 'kingfisher']);

const DEPENDENCY_TOOLS = new Set([
  'trivy', 'grype', 'osv-scanner', 'dependency-check', 'snyk-open-source', 'npm-audit', 'pip-audit', 'govulncheck', 'retire.js',
  'safety', 'bundler-audit', 'cargo-audit', 'semgrep-supply-chain',
]);

/** A tool's name as a key: lower case, runs of other characters than letters, digits, `.`, `_` and `-` as one `-`. */
export function toolKey(name: string): string {
  const lower = name.trim().toLowerCase().replace(/\s+/g, ' ');
  const key = (TOOL_ALIASES[lower] ?? lower).replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 50);
  return key || 'tool';
}

export const toolKindOf = (key: string): ToolKind => (SECRET_TOOLS.has(key) ? 'secrets' : DEPENDENCY_TOOLS.has(key) ? 'dependencies' : 'code');

const SECRET_TAGS = new Set(['secret', 'secrets', 'credential', 'credentials']);
const DEPENDENCY_TAGS = new Set(['vulnerability', 'license']);
const CODE_TAGS = new Set(['misconfiguration']);

/** The kind of one result: a secret or credential tag makes it a secret; a dependency scanner's rule tagged as a misconfiguration is code. */
export function resultKind(toolKind: ToolKind, tags: readonly string[]): ToolKind {
  const lower = tags.map((t) => t.toLowerCase());
  if (lower.some((t) => SECRET_TAGS.has(t))) return 'secrets';
  if (toolKind === 'dependencies' && lower.some((t) => CODE_TAGS.has(t)) && !lower.some((t) => DEPENDENCY_TAGS.has(t))) return 'code';
  return toolKind;
}
