/** The thread: replies indented under their parent. */
export const THREAD_STYLES = `
ul ul{margin-inline-start:20px;padding-inline-start:10px;border-inline-start:2px solid var(--line)}
`;
