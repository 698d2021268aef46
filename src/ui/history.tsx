import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ConversationHeader } from '../core/conversation.ts';
import { conversationId, conversations, conversationsSeq, deleteConversation, refreshConversations, renameConversation, reopenConversation } from './conversation-state.ts';
import { asking } from './ask-state.ts';
import { ready } from './storage-state.ts';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A conversation's title as an inline text field: Enter saves, Escape cancels. */
function RenameField({ c, onDone }: { c: ConversationHeader; onDone: () => void }) {
  const [title, setTitle] = useState(c.title);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => {
    field.current?.focus();
    field.current?.select();
  }, []);
  return (
    <input
      ref={field}
      type="text"
      class="rename"
      aria-label="Conversation title"
      value={title}
      onInput={(e) => setTitle(e.currentTarget.value)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          void renameConversation(c.id, title).then(onDone);
        } else if (e.key === 'Escape') {
          e.preventDefault();
          onDone();
        }
      }}
    />
  );
}

function HistoryItem({ c, onDeleted }: { c: ConversationHeader; onDeleted: () => void }) {
  const [renaming, setRenaming] = useState(false);
  const current = conversationId.value === c.id;
  const renameButton = useRef<HTMLButtonElement>(null);
  // Back on Rename once the title field closes (Enter or Escape), so the keyboard stays where it was.
  const wasRenaming = useRef(false);
  // A layout effect: focus moves in the same task that removes the field, never left on the page's body.
  useLayoutEffect(() => {
    if (wasRenaming.current && !renaming) renameButton.current?.focus();
    wasRenaming.current = renaming;
  }, [renaming]);
  return (
    <li class={current ? 'current' : undefined}>
      {renaming ? (
        <RenameField c={c} onDone={() => setRenaming(false)} />
      ) : (
        <button type="button" class="link conversation-title" aria-current={current ? 'true' : undefined} disabled={asking.value} onClick={() => void reopenConversation(c.id)}>
          <bdi>{c.title}</bdi>
        </button>
      )}
      <span class="conversation-meta">
        {' '}
        {c.turnCount} question{c.turnCount === 1 ? '' : 's'} · {dateFormat.format(c.updatedAt)}
      </span>{' '}
      {!renaming && (
        <button ref={renameButton} type="button" class="link" aria-label={`Rename conversation ${c.title}`} onClick={() => setRenaming(true)}>
          Rename
        </button>
      )}{' '}
      <button type="button" class="link" aria-label={`Delete conversation ${c.title}`} disabled={asking.value && current} onClick={() => void deleteConversation(c.id).then(onDeleted)}>
        Delete
      </button>
    </li>
  );
}

/** The saved conversations, newest first: reopen, rename, delete. */
export function History() {
  const isReady = ready.value;
  // Read again once the library is open, and after any change in any tab.
  const changes = conversationsSeq.value;
  useEffect(() => {
    if (isReady) void refreshConversations();
  }, [isReady, changes]);
  const list = conversations.value;
  const heading = useRef<HTMLHeadingElement>(null);
  return (
    <nav class="history" aria-label="Conversations">
      <h2 ref={heading} tabIndex={-1}>
        Conversations
      </h2>
      {list.length ? (
        <ul>
          {list.map((c) => (
            // A deleted conversation's row goes: the keyboard goes to the list's heading.
            <HistoryItem key={c.id} c={c} onDeleted={() => heading.current?.focus()} />
          ))}
        </ul>
      ) : (
        <p class="hint">Questions you ask are kept here, on this device, to reopen later.</p>
      )}
    </nav>
  );
}
