import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Link } from 'react-router';
import { useConfirmPasswordReset } from '../../api/public';
import { ErrorMessage, InfoMessage, SuccessMessage } from '../../components/Messages';
import { takeFragmentToken } from '../../lib/fragment';
import { AuthLayout } from '../layout/AuthLayout';
import { NewPasswordField } from './NewPasswordField';
import { ActionButton } from '../../components/ActionButton';

/** `/reset-password#token=…`: the link from the reset e-mail. */
export function ResetPasswordPage() {
  const [token] = useState(takeFragmentToken);
  const confirmReset = useConfirmPasswordReset();
  const [password, setPassword] = useState('');

  if (!token) {
    return (
      <AuthLayout title="Choose a new password" footer={<Link to="/sign-in">Back to sign-in</Link>}>
        <InfoMessage tone="warning">
          <p>
            This page needs the link from your password reset e-mail. <Link to="/forgot-password">Ask for a new link</Link>.
          </p>
        </InfoMessage>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout title="Choose a new password" footer={<Link to="/sign-in">Back to sign-in</Link>}>
      {confirmReset.isSuccess ? (
        <SuccessMessage>
          <p>
            Your password is changed and your other sessions have ended. <Link to="/sign-in">Sign in</Link> with the new password.
          </p>
        </SuccessMessage>
      ) : (
        <Form
          className="form"
          onSubmit={(e) => {
            e.preventDefault();
            confirmReset.mutate({ token, password });
          }}
        >
          <ErrorMessage error={confirmReset.error} />
          {confirmReset.error ? (
            <p>
              <Link to="/forgot-password">Ask for a new link</Link> if this one has expired or was used already.
            </p>
          ) : null}
          <NewPasswordField label="New password" value={password} onChange={setPassword} />
          <ActionButton type="submit" className="button button--primary button--block" isPending={confirmReset.isPending}>
            Set password
          </ActionButton>
        </Form>
      )}
    </AuthLayout>
  );
}
