import type { ReactNode } from 'react';
import { Button, ErrorNotice, Group, Modal, Stack, Text } from '@engram/console-kit';

/** Asks before something that cannot be undone: `children` says what happens, the red button does it. */
export function ConfirmDialog({
  title,
  confirmLabel,
  mutation,
  onConfirm,
  onClose,
  children,
}: {
  title: string;
  confirmLabel: string;
  mutation: { error: unknown; isPending: boolean };
  onConfirm: () => void;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <Modal opened onClose={onClose} title={title} centered>
      <Stack>
        {mutation.error ? <ErrorNotice error={mutation.error} title="Nothing was changed" /> : null}
        <Text size="sm">{children}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color="red" loading={mutation.isPending} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
