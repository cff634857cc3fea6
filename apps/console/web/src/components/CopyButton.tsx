import { useState } from 'react';
import { Button } from 'react-aria-components';

/** Selects the text of the element `id`: an input's value, or the text of a code block. */
function selectText(id: string): void {
  const el = document.getElementById(id);
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
    el.focus();
    el.select();
  } else if (el) {
    el.focus();
    const range = document.createRange();
    range.selectNodeContents(el);
    const selection = window.getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
  }
}

/**
 * "Copy" (or `label`, e.g. "Copy snippet"): puts `text` on the clipboard and says so; without
 * clipboard access, selects the text of the element `inputId` instead.
 */
export function CopyButton({ text, inputId, label = 'Copy', what = 'secret' }: { text: string; inputId: string; label?: string; what?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <>
      <Button
        className="button button--secondary"
        onPress={async () => {
          try {
            await navigator.clipboard.writeText(text);
            setState('copied');
          } catch {
            selectText(inputId);
            setState('failed');
          }
        }}
      >
        {label}
      </Button>
      <span className="copy-status" role="status">
        {state === 'copied' ? 'Copied to the clipboard.' : state === 'failed' ? `The clipboard is not available: the ${what} is selected, copy it with Ctrl+C or ⌘C.` : ''}
      </span>
    </>
  );
}
