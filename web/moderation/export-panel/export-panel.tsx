/**
 * Exporting the current queue (with its search): starts `api/export`, asks `api/export/status`
 * until the job is done, then offers the CSV and JSON downloads. Progress is announced politely.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../../shared/api.js';
import { type Strings, t } from '../model/strings.js';

/** How often the job's status is asked while it runs. */
const POLL_MS = 1000;

export interface ExportPanelProps {
  strings: Strings;
  api: Api;
  base: string;
  /** The current queue's filter and search, as `api/export` takes them. */
  query: { filters: string; 'text-search'?: string };
}

type Job = { state: 'idle' } | { state: 'pending' } | { state: 'failed' } | { state: 'done'; id: string; count: number };

export function ExportPanel({ strings, api, base, query }: ExportPanelProps) {
  const [job, setJob] = useState<Job>({ state: 'idle' });
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const start = async () => {
    clearTimeout(timer.current);
    setJob({ state: 'pending' });
    try {
      const { batchJobId } = await api.call<{ batchJobId: string }>('POST', `${base}/api/export`, query);
      const poll = async () => {
        try {
          const status = await api.call<{ jobStatus: string; recordCount: number }>('GET', `${base}/api/export/status`, { batchJobId });
          if (status.jobStatus === 'done') setJob({ state: 'done', id: batchJobId, count: status.recordCount });
          else if (status.jobStatus === 'failed') setJob({ state: 'failed' });
          else timer.current = setTimeout(poll, POLL_MS);
        } catch {
          setJob({ state: 'failed' });
        }
      };
      await poll();
    } catch {
      setJob({ state: 'failed' });
    }
  };

  const download = (format: string) => (job.state === 'done' ? `${base}/api/export/download?batchJobId=${encodeURIComponent(job.id)}&format=${format}` : '');
  return (
    <section aria-labelledby="export-title" class="export">
      <h2 id="export-title">{t(strings, 'EXPORT')}</h2>
      <button type="button" onClick={start} disabled={job.state === 'pending'}>
        {t(strings, 'EXPORT_START')}
      </button>
      <p role="status">
        {job.state === 'pending' && t(strings, 'EXPORT_PENDING')}
        {job.state === 'failed' && t(strings, 'EXPORT_FAILED')}
        {job.state === 'done' && t(strings, 'EXPORT_DONE', { count: job.count })}
      </p>
      {job.state === 'done' && (
        <p>
          <a href={download('csv')} download>
            {t(strings, 'DOWNLOAD_CSV')}
          </a>{' '}
          ·{' '}
          <a href={download('json')} download>
            {t(strings, 'DOWNLOAD_JSON')}
          </a>
        </p>
      )}
    </section>
  );
}
