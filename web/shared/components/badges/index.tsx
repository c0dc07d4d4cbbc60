/**
 * The author's badges on a comment (CommentUserBadgeInfo): each named by its label (its
 * picture's text alternative when it has one) and described by its description; the tenant's
 * colours and `cssClass` apply.
 */
import type { CommentBadge } from '../../types.js';

export function Badges({ badges, label }: { badges: readonly CommentBadge[] | null | undefined; label: string }) {
  if (!badges || badges.length === 0) return null;
  return (
    <ul class="badges" aria-label={label}>
      {badges.map((b) => {
        const name = b.displayLabel || b.description;
        return (
          <li key={b.id} class={`badge${b.cssClass ? ` ${b.cssClass}` : ''}`} title={b.description} style={{ background: b.backgroundColor ?? undefined, color: b.textColor ?? undefined, borderColor: b.borderColor ?? undefined }}>
            {b.displaySrc ? <img src={b.displaySrc} alt={name} height={16} referrerpolicy="no-referrer" /> : name}
          </li>
        );
      })}
    </ul>
  );
}
