import type { ClosedReason } from '../core/types.ts';

/** What the person is told when the library's database is closed under the page, by reason. */
export function closedMessage(reason: ClosedReason): string {
  switch (reason) {
    case 'updated':
      return 'DocQA was updated in another tab: reload this page to continue';
    case 'deleted':
      return "This site's stored library was deleted (its site data was cleared, in another tab or in the browser's settings), so indexing stopped. Reload to start again; documents that were in the library must be added again";
    case 'terminated':
      return "The browser closed this site's storage while the app was running (site data was cleared, or the browser reclaimed space), so indexing stopped. Reload to open the library again; if documents are missing, add them again";
  }
}
