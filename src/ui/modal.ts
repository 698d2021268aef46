import type { RefObject } from 'preact';
import { useLayoutEffect } from 'preact/hooks';

/**
 * Shows `ref`'s `<dialog>` as a modal while `open`, and closes it when not. As the render lands, not
 * after the next frame (as `useEffect` would): until a modal dialog closes the rest of the page is inert,
 * and what the person types there in that moment would be lost. `onOpen` runs just before it opens.
 */
export function useModal(ref: RefObject<HTMLDialogElement>, open: boolean, onOpen?: () => void): void {
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      onOpen?.();
      dialog.showModal();
    }
    if (!open && dialog.open) dialog.close();
  }, [open]);
}
