import { batch } from '@preact/signals';
import type { DocId } from '../core/ids.ts';
import type { EmbeddingEvent, LibraryEvent } from '../core/types.ts';
import { addNotes, alreadyNote, emptyTally, finishRun, type ActivityNote } from './activity.ts';
import { answerModelStatus } from './answer-models-state.ts';
import { conversationsSeq } from './conversation-state.ts';
import { cancelDelete } from './delete-state.ts';
import { activity, currentDrop, percents, queue, type QueueStatus } from './indexing-state.ts';
import { scheduleRefresh } from './library-state.ts';
import { semantic } from './models-state.ts';
import { closedReason, fatal, ready, waiting } from './storage-state.ts';

/**
 * Events arrive by the thousand during a large drop (several per file). They are buffered and applied
 * together at most every {@link FLUSH_MS}, so the page renders a few times a second, not once per event.
 */
const FLUSH_MS = 120;
let pending: LibraryEvent[] = [];
let flushTimer: ReturnType<typeof setTimeout> | undefined;

/** What became of the files added since the queue was last empty (see activity.ts finishRun). */
let tally = emptyTally();

/** Hears one of the library's events (from any tab); the page applies them in batches (see {@link FLUSH_MS}). */
export function onLibraryEvent(event: LibraryEvent): void {
  pending.push(event);
  flushTimer ??= setTimeout(flushEvents, FLUSH_MS);
}

type FileEnd = Extract<LibraryEvent, { type: 'file-done' | 'file-failed' }>;

/** Counts a file's outcome in the run's tally; returns its Activity line, if it has one (`drop`: the drop it is grouped with). */
function endFile(event: FileEnd, drop: number): ActivityNote | undefined {
  if (event.type === 'file-failed') {
    tally.failed++;
    return { text: event.error.message, path: event.path };
  }
  if (event.outcome === 'indexed') tally.indexed++;
  else if (event.outcome === 'replaced') tally.updated++;
  else if (event.outcome === 'already-in-library') tally.already++;
  else if (event.outcome === 'read-again') tally.readAgain = (tally.readAgain ?? 0) + 1;
  else if (event.outcome === 'no-text') tally.noText = (tally.noText ?? 0) + 1;
  if (event.outcome === 'no-text') return { text: `${event.path}: no text found in this picture; left out`, path: event.path, group: { key: `no-text:${drop}`, summary: 'pictures without text left out', count: 1 } };
  if (event.outcome === 'already-in-library') return alreadyNote(event.path, event.matches, drop);
  if (event.outcome === 'replaced') return { text: `${event.path}: updated to the new version`, path: event.path, group: { key: `replaced:${drop}`, summary: 'updated to the new version', count: 1 } };
  return undefined;
}

function flushEvents(): void {
  flushTimer = undefined;
  const events = pending;
  pending = [];
  const dropSeq = currentDrop();
  const nextPercents = { ...percents.value };
  const notes: ActivityNote[] = [];
  let nextQueue: QueueStatus | undefined | null = null;
  let nextSemantic: EmbeddingEvent | undefined;
  let changed = false;
  let runEnded = false;
  /** Documents whose file was just added again: a Delete of theirs still inside its Undo window is cancelled. */
  const addedAgain: DocId[] = [];
  for (const event of events) {
    switch (event.type) {
      case 'file-progress':
        // Once the storage was closed under this tab, late progress from before must not revive the line.
        if (closedReason.value) break;
        nextPercents[event.queueId] = { percent: event.percent, ...(event.stage && { stage: event.stage }) };
        break;
      case 'file-done':
      case 'file-failed': {
        delete nextPercents[event.queueId];
        const line = endFile(event, dropSeq);
        if (line) notes.push(line);
        if (event.type === 'file-done' && event.outcome === 'already-in-library' && event.docId) addedAgain.push(event.docId);
        break;
      }
      case 'queue':
        if (closedReason.value) break;
        nextQueue = event.done >= event.total ? undefined : { done: event.done, total: event.total, etaMs: event.etaMs };
        runEnded ||= event.total > 0 && event.done >= event.total;
        break;
      case 'changed':
        changed = true;
        break;
      case 'folder-synced':
      case 'files-skipped':
        notes.push({ text: `${event.folders.join(', ')}: ${event.summary}`, path: event.folders[0] ?? '' });
        break;
      case 'conversations':
        conversationsSeq.value++;
        break;
      case 'embedding':
        nextSemantic = event;
        break;
      case 'answer-model':
        answerModelStatus.value = event.status;
        break;
      case 'library-closed':
        fatal.value = event.message;
        closedReason.value = event.reason;
        // Nothing is being indexed any more: the progress line and the rows' percentages go.
        nextQueue = undefined;
        for (const key of Object.keys(nextPercents)) delete nextPercents[key];
        break;
      case 'library-blocked':
        // Arriving after the library opened (events are buffered), it is already out of date.
        if (!ready.value) waiting.value = event.message;
        break;
    }
  }
  batch(() => {
    percents.value = nextPercents;
    if (nextQueue !== null) queue.value = nextQueue;
    if (nextSemantic) semantic.value = nextSemantic;
    if (notes.length) activity.value = addNotes(activity.value, notes);
    if (runEnded) {
      activity.value = finishRun(activity.value, tally);
      tally = emptyTally();
    }
  });
  for (const docId of addedAgain) cancelDelete(docId);
  if (changed) scheduleRefresh();
}
