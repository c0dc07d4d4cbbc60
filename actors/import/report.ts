/**
 * The report of an import: counts that add up to the source's records, and every problem
 * found (the first `KEPT_PROBLEMS` kept in full, all of them counted by reason).
 */
import type { ImportFormat, ImportProblem } from './records.js';

/** Problems kept in full in a report; the rest are counted by reason (and streamed to `onProblem`). */
export const KEPT_PROBLEMS = 1000;

/** A problem, and whether its record was imported anyway (changed as the reason says). */
export interface ReportedProblem extends ImportProblem {
  readonly imported: boolean;
}

/** What an import did (or, in a dry run, would do). */
export interface ImportReport {
  format: ImportFormat;
  dryRun: boolean;
  threads: { total: number; skipped: number; pages: number };
  /** `total` = `imported` + `alreadyPresent` + `skipped`. */
  comments: { total: number; imported: number; alreadyPresent: number; skipped: number };
  votes: { imported: number };
  /** Authors with an email: users made for them, users they already had (dry run: distinct emails). */
  users: { created: number; existing: number };
  problems: { total: number; byReason: Record<string, number>; first: ReportedProblem[] };
}

/** An empty report. */
export function newReport(format: ImportFormat, dryRun: boolean): ImportReport {
  return {
    format,
    dryRun,
    threads: { total: 0, skipped: 0, pages: 0 },
    comments: { total: 0, imported: 0, alreadyPresent: 0, skipped: 0 },
    votes: { imported: 0 },
    users: { created: 0, existing: 0 },
    problems: { total: 0, byReason: {}, first: [] },
  };
}

/** The reason without the record's own details, to count alike problems together. */
function reasonKey(reason: string): string {
  return reason.replace(/\b[0-9a-f]{6,}\b|\b\d+\b/gi, '#').replace(/"[^"]*"/g, '"…"');
}

/** Adds a problem to the report. */
export function addProblem(report: ImportReport, problem: ReportedProblem): void {
  report.problems.total++;
  const key = reasonKey(problem.reason);
  report.problems.byReason[key] = (report.problems.byReason[key] ?? 0) + 1;
  if (report.problems.first.length < KEPT_PROBLEMS) report.problems.first.push(problem);
}
