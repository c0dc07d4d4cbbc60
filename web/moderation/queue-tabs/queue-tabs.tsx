/** The queues as tabs (arrow keys move between them, as tabs do), each with its count. */
import { QUEUES, type QueueId } from '../model/queues.js';
import { type Strings, t } from '../model/strings.js';

export interface QueueTabsProps {
  strings: Strings;
  current: QueueId;
  counts: Partial<Record<QueueId, number>>;
  onChoose(id: QueueId): void;
}

export function QueueTabs({ strings, current, counts, onChoose }: QueueTabsProps) {
  const onKeyDown = (e: KeyboardEvent) => {
    const at = QUEUES.findIndex((q) => q.id === current);
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    e.preventDefault();
    // Right to left pages move the other way.
    const dir = document.documentElement.dir === 'rtl' ? -step : step;
    const next = QUEUES[(at + dir + QUEUES.length) % QUEUES.length]!;
    onChoose(next.id);
    requestAnimationFrame(() => document.getElementById(`tab-${next.id}`)?.focus());
  };
  return (
    <div role="tablist" aria-label={t(strings, 'QUEUES')} class="tabs" onKeyDown={onKeyDown}>
      {QUEUES.map((q) => {
        const name = t(strings, q.label);
        const count = counts[q.id];
        return (
          <button
            type="button"
            role="tab"
            id={`tab-${q.id}`}
            aria-selected={q.id === current}
            aria-controls="queue-panel"
            tabIndex={q.id === current ? 0 : -1}
            onClick={() => onChoose(q.id)}
          >
            {count === undefined ? name : t(strings, 'QUEUE_COUNT', { name, count })}
          </button>
        );
      })}
    </div>
  );
}
