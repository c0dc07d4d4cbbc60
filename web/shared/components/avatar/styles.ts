/** Avatars: round, fixed size; a generated initial is white on a dark colour (contrast above 7:1). */
export const AVATAR_STYLES = `
.avatar{width:32px;height:32px;border-radius:50%;flex:none;object-fit:cover;align-self:center;display:inline-grid;place-items:center;color:#fff;font-weight:600}
`;
