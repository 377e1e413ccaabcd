import type { FormEvent, ReactNode } from 'react';
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { Button, ErrorNotice, Group, Modal, Stack, Text } from '@engram/console-kit';

/** What a dialog shows of the mutation it runs: its failure, and a busy button while it is under way. */
export interface MutationProgress {
  error: unknown;
  isPending: boolean;
}

/** A dialog's mutation: on success it refreshes the lists under `invalidates`, then `onDone` closes the dialog. */
export function useDialogMutation<Variables = void>(mutationFn: (variables: Variables) => Promise<unknown>, invalidates: QueryKey, onDone: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: invalidates });
      onDone();
    },
  });
}

/** A dialog's content: the failure of its last attempt, `children`, then Cancel and `action` bottom right. */
function DialogContent({
  mutation,
  failureTitle,
  onCancel,
  action,
  children,
}: {
  mutation: MutationProgress;
  failureTitle: string;
  onCancel: () => void;
  action: ReactNode;
  children: ReactNode;
}) {
  return (
    <Stack>
      {mutation.error ? <ErrorNotice error={mutation.error} title={failureTitle} /> : null}
      {children}
      <Group justify="flex-end">
        <Button variant="default" onClick={onCancel}>
          Cancel
        </Button>
        {action}
      </Group>
    </Stack>
  );
}

/** The form inside a dialog: the failure of its last submit, its fields, then Cancel and the submit button. */
export function ModalForm({
  onSubmit,
  mutation,
  failureTitle,
  submitLabel,
  submitIcon,
  onCancel,
  children,
}: {
  onSubmit: (event: FormEvent) => void;
  mutation: MutationProgress;
  failureTitle: string;
  submitLabel: ReactNode;
  submitIcon?: ReactNode;
  onCancel: () => void;
  children: ReactNode;
}) {
  return (
    <form onSubmit={onSubmit} noValidate>
      <DialogContent
        mutation={mutation}
        failureTitle={failureTitle}
        onCancel={onCancel}
        action={
          <Button type="submit" loading={mutation.isPending} leftSection={submitIcon}>
            {submitLabel}
          </Button>
        }
      >
        {children}
      </DialogContent>
    </form>
  );
}

/** Asks before something that cannot be undone: `children` says what happens, the red button does it. */
export function ConfirmDialog({
  opened = true,
  title,
  mutation,
  failureTitle,
  confirmLabel,
  onConfirm,
  onClose,
  children,
}: {
  opened?: boolean;
  title: string;
  mutation: MutationProgress;
  failureTitle: string;
  confirmLabel: string;
  onConfirm: () => void;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered>
      <DialogContent
        mutation={mutation}
        failureTitle={failureTitle}
        onCancel={onClose}
        action={
          <Button color="red" loading={mutation.isPending} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        }
      >
        <Text size="sm">{children}</Text>
      </DialogContent>
    </Modal>
  );
}
