/** The commenter's picture: `avatarSrc`, else the configured `defaultAvatarSrc`, else a generated initial. */

export interface AvatarProps {
  name: string;
  src: string | null | undefined;
  /** The picture's text alternative ("Picture of Ann"). */
  alt: string;
}

export function Avatar({ name, src, alt }: AvatarProps) {
  if (src) return <img class="avatar" src={src} alt={alt} width={32} height={32} loading="lazy" decoding="async" referrerpolicy="no-referrer" />;
  // The name is written beside it: the initial is decoration, its colour steady per name.
  let hash = 0;
  for (const ch of name) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const initial = [...name.trim()][0]?.toUpperCase() ?? '?';
  return (
    <span class="avatar" aria-hidden="true" style={{ background: `hsl(${hash % 360} 45% 32%)` }}>
      {initial}
    </span>
  );
}
