/** The smallest activity there is: what Temporal alone costs per activity round trip. */
export function createBareActivities() {
  return {
    async noop(): Promise<void> {},
  };
}

export type BareActivities = ReturnType<typeof createBareActivities>;
