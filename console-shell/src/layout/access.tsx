import { cloneElement, type ReactElement } from 'react';
import { Alert, Tooltip, useMemberAccess, type Permission, type Role } from '@engram/console-kit';
import { IconLock } from '@tabler/icons-react';

const ROLE_NAMES: Record<Role, string> = { admin: 'an admin', editor: 'an editor', analyst: 'an analyst', custom: 'a member with custom permissions' };

/** "As an analyst you cannot delete API keys." — or, before the role is known, that it is being checked. */
function deniedReason(role: Role | null, action: string): string {
  return role ? `As ${ROLE_NAMES[role]} you cannot ${action}. Ask an admin.` : 'Checking what your role allows…';
}

/**
 * An action the member's role cannot take stays in view but disabled, saying why on hover, instead
 * of being refused after it is tried. `action` completes "you cannot …"; `label` is the control's own
 * tooltip while it is allowed.
 */
export function Permitted({ permission, action, label, children }: {
  permission: Permission;
  action: string;
  label?: string;
  children: ReactElement<{ disabled?: boolean; style?: object }>;
}) {
  const access = useMemberAccess();
  if (access.can(permission)) return label ? <Tooltip label={label}>{children}</Tooltip> : children;
  const reason = deniedReason(access.role, action);
  return (
    <Tooltip label={reason} multiline maw={300} withinPortal>
      {/* A disabled button takes no pointer events, so the tooltip listens on this wrapper. */}
      <span style={{ display: 'inline-block', cursor: 'not-allowed' }} data-testid="permission-denied" aria-label={reason} tabIndex={0}>
        {cloneElement(children, { disabled: true, style: { pointerEvents: 'none' } })}
      </span>
    </Tooltip>
  );
}

/** In place of a screen the member's role cannot use: what it is for, and who can. */
export function RoleNotice({ action }: { action: string }) {
  const { role } = useMemberAccess();
  return (
    <Alert color="gray" variant="light" icon={<IconLock size={18} />} mb="md" data-testid="role-notice">
      {deniedReason(role, action)}
    </Alert>
  );
}
