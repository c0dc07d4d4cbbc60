/**
 * What an export of a tenant holds and what it leaves out. Every collection the tenant-data
 * registry (storage/tenant-data.ts) lists is exported, except those holding only secrets or
 * work in flight; secret fields of the documents that are exported are removed.
 */

/** The first line of an export file. */
export interface ExportHeader {
  readonly kind: 'comments-export';
  readonly version: 1;
  readonly tenantId: string;
  readonly exportedAt: string;
  readonly storage: string;
}

/** One document line: its collection and the document. */
export interface ExportLine {
  readonly c: string;
  readonly d: Record<string, unknown> & { _id: string };
}

/** Collections not exported, and why (the docs list them). */
export const NOT_EXPORTED: Readonly<Record<string, string>> = {
  apiKeys: 'API key hashes: secrets of this server',
  oauthAccessTokens: 'OAuth token hashes: secrets',
  oauthGrants: 'OAuth grants and refresh token hashes: secrets',
  userTokens: 'sign-in sessions and login links: secrets',
  emailOutbox: 'emails waiting to be sent: importing them would send them again',
  notificationJobs: 'notification fan-outs in flight',
  pendingWebhookEvents: 'webhook deliveries in flight',
  jobs: 'background jobs in flight',
  eventLog: "live channels' catch-up log (short-lived)",
  eventLogBodies: "live channels' catch-up log (short-lived)",
  pendingCounts: 'vote counts being written (recomputed from votes)',
  importJobs: 'import and export jobs of this server, and their files',
  importParts: 'import and export jobs of this server, and their files',
  exportJobs: 'import and export jobs of this server, and their files',
  exportParts: 'import and export jobs of this server, and their files',
};

/** Collections exported but not imported: the receiving server's operator decides them. */
export const NOT_IMPORTED: Readonly<Record<string, string>> = {
  tenants: "the receiving tenant keeps its own record (name, API secret, package)",
  tenantPackages: "the receiving server's operator sets the tenant's package and limits",
};

/** Secret fields removed from every exported document. */
export const SECRET_FIELDS: readonly string[] = ['apiSecret', 'inviteHash', 'secretHash', 'codeHash', 'refreshHash', 'sessionHash', 'tokenHash', 'keyHash'];
