/** Code of a finding, numbered from its first line, with the finding's lines highlighted. */
export function Snippet({ code, startLine, endLine, label }: { code: string; startLine: number | null; endLine: number | null; label: string }) {
  const first = startLine ?? 1;
  const last = endLine ?? first;
  const lines = code.replace(/\n$/, '').split('\n');
  return (
    <figure className="code-figure" style={{ margin: 0 }}>
      <figcaption className="visually-hidden">{label}</figcaption>
      <pre className="code" tabIndex={0} aria-label={label}>
        {lines.map((text, index) => {
          const number = first + index;
          const hit = startLine !== null && number >= first && number <= last;
          return (
            <div key={number} className={hit ? 'code-line hl' : 'code-line'}>
              <span className="ln" aria-hidden="true">
                {number}
              </span>
              <code>{text || ' '}</code>
              {hit ? <span className="visually-hidden"> (flagged line)</span> : null}
            </div>
          );
        })}
      </pre>
    </figure>
  );
}

const OWASP_2021: Record<string, string> = {
  A01: 'Broken_Access_Control',
  A02: 'Cryptographic_Failures',
  A03: 'Injection',
  A04: 'Insecure_Design',
  A05: 'Security_Misconfiguration',
  A06: 'Vulnerable_and_Outdated_Components',
  A07: 'Identification_and_Authentication_Failures',
  A08: 'Software_and_Data_Integrity_Failures',
  A09: 'Security_Logging_and_Monitoring_Failures',
  A10: 'Server-Side_Request_Forgery_%28SSRF%29',
};

export function cweUrl(cwe: string): string | null {
  const number = /CWE-(\d+)/i.exec(cwe)?.[1];
  return number ? `https://cwe.mitre.org/data/definitions/${number}.html` : null;
}

export function owaspUrl(entry: string): string {
  const match = /(A\d\d):(\d{4})/.exec(entry);
  if (match && match[2] === '2021' && OWASP_2021[match[1]!]) return `https://owasp.org/Top10/${match[1]}_2021-${OWASP_2021[match[1]!]}/`;
  return 'https://owasp.org/www-project-top-ten/';
}
