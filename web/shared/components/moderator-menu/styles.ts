/** The moderation menu: its actions on a line of their own under the comment's. */
export const MODERATOR_MENU_STYLES = `
.mod-menu{display:flex;gap:6px;flex-wrap:wrap;flex-basis:100%;padding:6px;border:1px dashed var(--line);border-radius:6px}
`;
