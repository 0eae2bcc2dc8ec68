import type { ReactNode } from 'react';
import { webUrl } from '../../../src/web-url.ts';

/** A link to another site, opened in a new tab; its text alone when the address is not http(s). */
export function ExternalLink({ href, className, children }: { href: string | null | undefined; className?: string; children: ReactNode }) {
  const safe = webUrl(href);
  if (!safe) return <span className={className}>{children}</span>;
  return (
    <a href={safe} className={className} target="_blank" rel="noreferrer noopener">
      {children}
    </a>
  );
}
