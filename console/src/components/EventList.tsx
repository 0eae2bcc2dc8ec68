import type { FindingEvent } from '../lib/units.ts';
import { formatDateTime, humanize } from '../lib/format.ts';
import { Badge } from './ui.tsx';

export function describeEvent(event: FindingEvent): string {
  if (event.event_type === 'status_changed' && event.new_status) {
    return `Status ${event.previous_status ? `${humanize(event.previous_status).toLowerCase()} → ` : ''}${humanize(event.new_status).toLowerCase()}`;
  }
  return humanize(event.event_type);
}

/** A finding's history, newest first. */
export function EventTimeline({ events }: { events: FindingEvent[] }) {
  return (
    <ol className="timeline">
      {events.map((event) => (
        <li key={event.id}>
          <div>
            <strong>{describeEvent(event)}</strong> <span className="muted small-text">{formatDateTime(event.event_timestamp)}</span>
          </div>
          {event.comment ? <blockquote className="comment">{event.comment}</blockquote> : null}
          {event.new_status && event.event_type !== 'status_changed' ? <Badge value={event.new_status} /> : null}
        </li>
      ))}
    </ol>
  );
}
