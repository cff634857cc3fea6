import { useState } from 'react';
import { Button } from 'react-aria-components';

/** "Copy": puts `text` on the clipboard and says so; without clipboard access, selects the text instead. */
export function CopyButton({ text, inputId }: { text: string; inputId: string }) {
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
            const input = document.getElementById(inputId);
            if (input instanceof HTMLInputElement) {
              input.focus();
              input.select();
            }
            setState('failed');
          }
        }}
      >
        Copy
      </Button>
      <span className="copy-status" role="status">
        {state === 'copied' ? 'Copied to the clipboard.' : state === 'failed' ? 'The clipboard is not available: the secret is selected, copy it with Ctrl+C or ⌘C.' : ''}
      </span>
    </>
  );
}
