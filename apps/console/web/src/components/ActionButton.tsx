import { Button, type ButtonProps } from 'react-aria-components';

interface ActionButtonProps extends Omit<ButtonProps, 'isPending' | 'className'> {
  className: string;
  /** While true the button shows a spinner and ignores presses (a submit button stops submitting). */
  isPending?: boolean;
}

/**
 * A button with a busy state that keeps focus where it is. Not react-aria's own `isPending`: that
 * one announces through a live region whose entries point at the button by id and outlive it (a
 * sign-in navigates away), which accessibility checkers report as unnamed images. The outcome is
 * announced by the page instead (role status / alert).
 */
export function ActionButton({ isPending = false, className, onPress, type, ...props }: ActionButtonProps) {
  return (
    <Button
      {...props}
      type={isPending && type === 'submit' ? 'button' : type}
      className={`${className}${isPending ? ' button--busy' : ''}`}
      aria-disabled={isPending || undefined}
      onPress={isPending ? undefined : onPress}
    />
  );
}
