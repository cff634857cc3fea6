import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Link } from 'react-router';
import { useRequestPasswordReset } from '../../api/public';
import { TextInput } from '../../components/Fields';
import { ErrorMessage, SuccessMessage } from '../../components/Messages';
import { AuthLayout } from '../layout/AuthLayout';
import { ActionButton } from '../../components/ActionButton';

export function ForgotPasswordPage() {
  const request = useRequestPasswordReset();
  const [email, setEmail] = useState('');
  return (
    <AuthLayout title="Reset your password" footer={<Link to="/sign-in">Back to sign-in</Link>}>
      {request.isSuccess ? (
        <SuccessMessage>
          <p>If an account uses {email}, an e-mail with a link to choose a new password is on its way. The link works once and expires within an hour.</p>
        </SuccessMessage>
      ) : (
        <Form
          className="form"
          onSubmit={(e) => {
            e.preventDefault();
            request.mutate(email);
          }}
        >
          <p>Enter the e-mail address you sign in with. We will send you a link to choose a new password.</p>
          <ErrorMessage error={request.error} />
          <TextInput label="Email" name="email" type="email" autoComplete="username" isRequired value={email} onChange={setEmail} autoFocus />
          <ActionButton type="submit" className="button button--primary button--block" isPending={request.isPending}>
            Send reset link
          </ActionButton>
        </Form>
      )}
    </AuthLayout>
  );
}
