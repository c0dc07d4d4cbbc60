/**
 * The page's reactions above the thread: one toggle button per configured reaction (its image
 * or emoji, and its count), pressed when the reader gave it; refusals are shown in words.
 */
import type { WidgetController } from '../../../widget/controller.js';

export function PageReactions({ c }: { c: WidgetController }) {
  const r = c.reactions;
  const options = r.options;
  if (options.length === 0 || c.ssr) return null;
  return (
    <div class="reacts">
      <div class="row" role="group" aria-label={c.t('PAGE_REACTIONS')}>
        {options.map((o) => {
          const pressed = r.mine.has(o.id);
          const count = r.counts.get(o.id) ?? 0;
          const label = o.label ?? o.id;
          const src = pressed && o.selectedSrc ? o.selectedSrc : o.src;
          return (
            <button
              type="button"
              class="react"
              aria-pressed={pressed}
              aria-label={c.t('REACTION_COUNT', { name: label, count })}
              disabled={Boolean(c.config.readonly)}
              onClick={() => void r.toggle(o.id)}
            >
              {src ? <img src={src} alt="" width={20} height={20} /> : <span aria-hidden="true">{o.emoji ?? label}</span>}
              <span aria-hidden="true">{count}</span>
            </button>
          );
        })}
      </div>
      {r.error && (
        <p class="err" role="alert">
          {r.error}
        </p>
      )}
    </div>
  );
}
