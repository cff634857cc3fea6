import { useState, type ReactNode } from 'react';
import { Button, Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { ErrorMessage } from './Messages';
import { CopyButton } from './CopyButton';
import { ActionButton } from './ActionButton';

/**
 * The footer of a form in a dialog: a secondary button that closes it (disabled while the form is
 * sent) and the form's submit button, showing that it is pending.
 */
export function FormDialogActions({ onCancel, pending, submit, cancel = 'Cancel' }: { onCancel: () => void; pending: boolean; submit: ReactNode; cancel?: string }) {
  return (
    <div className="dialog__actions">
      <Button className="button button--secondary" onPress={onCancel} isDisabled={pending}>
        {cancel}
      </Button>
      <ActionButton type="submit" className="button button--primary" isPending={pending}>
        {submit}
      </ActionButton>
    </div>
  );
}

/** When the element that opened a dialog is gone (a revoked row's button), focus the page heading. */
function refocusPage() {
  window.setTimeout(() => {
    if (!document.activeElement || document.activeElement === document.body) document.querySelector<HTMLElement>('main h1')?.focus();
  }, 0);
}

interface ConfirmProps {
  /** The trigger's text, also its accessible name ("Revoke", "Delete", …). */
  trigger: string;
  title: string;
  children: ReactNode;
  /** The confirming button's text; defaults to the trigger's. */
  confirm?: string;
  dismiss?: string;
  tone?: 'danger' | 'default';
  triggerVariant?: 'danger' | 'secondary' | 'ghost';
  /** Resolves when done; a rejection keeps the dialog open and shows the error. */
  onConfirm: () => Promise<unknown>;
  describedBy?: string;
  /** Told when the dialog opens or closes (e.g. to refresh a list once a refusal has been read). */
  onOpenChange?: (open: boolean) => void;
}

/** A button that asks first (alertdialog): focus moves into it, stays inside, and returns. */
export function ConfirmButton({ trigger, title, children, confirm, dismiss = 'Cancel', tone = 'danger', triggerVariant = 'danger', onConfirm, describedBy, onOpenChange }: ConfirmProps) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <DialogTrigger
      onOpenChange={(open) => {
        if (open) setError(null);
        onOpenChange?.(open);
      }}
    >
      <Button className={`button button--${triggerVariant} button--small`} aria-describedby={describedBy}>
        {trigger}
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable={!pending}>
        <Modal className="modal">
          <Dialog role="alertdialog" className="dialog">
            {({ close }) => (
              <>
                <Heading slot="title" className="dialog__title">
                  {title}
                </Heading>
                <div className="dialog__body">{children}</div>
                <ErrorMessage error={error} />
                <div className="dialog__actions">
                  <Button className="button button--secondary" onPress={close} isDisabled={pending}>
                    {dismiss}
                  </Button>
                  <ActionButton
                    className={`button ${tone === 'danger' ? 'button--danger' : 'button--primary'}`}
                    isPending={pending}
                    onPress={async () => {
                      setPending(true);
                      setError(null);
                      try {
                        await onConfirm();
                        close();
                        refocusPage();
                      } catch (err) {
                        setError(err);
                      } finally {
                        setPending(false);
                      }
                    }}
                  >
                    {confirm ?? trigger}
                  </ActionButton>
                </div>
              </>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}

interface SecretProps {
  title: string;
  /** The secret; the dialog is open while it is not null. */
  secret: string | null;
  secretLabel: string;
  /** The copy button's text ("Copy", "Copy secret"). */
  copyLabel?: string;
  children?: ReactNode;
  onClose: () => void;
}

/** Shows a secret once, with a copy button and the warning that it will not be shown again. */
export function SecretDialog({ title, secret, secretLabel, copyLabel, children, onClose }: SecretProps) {
  return (
    <ModalOverlay className="modal-overlay" isOpen={secret !== null} onOpenChange={(open) => !open && onClose()} isKeyboardDismissDisabled>
      <Modal className="modal">
        <Dialog className="dialog">
          {({ close }) => (
            <>
              <Heading slot="title" className="dialog__title">
                {title}
              </Heading>
              <div className="notice notice--warning">
                <span className="notice__icon" aria-hidden="true" />
                <p>
                  <strong>Copy it now.</strong> This secret is shown only this once. The console does not keep it and cannot show it again.
                </p>
              </div>
              <div className="field">
                <label className="field__label" htmlFor="secret-value">
                  {secretLabel}
                </label>
                <div className="secret">
                  <input id="secret-value" className="field__input secret__value" readOnly value={secret ?? ''} spellCheck={false} autoComplete="off" onFocus={(e) => e.currentTarget.select()} />
                  <CopyButton text={secret ?? ''} inputId="secret-value" label={copyLabel} />
                </div>
              </div>
              {children}
              <div className="dialog__actions">
                <Button className="button button--primary" onPress={close}>
                  Done
                </Button>
              </div>
            </>
          )}
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
