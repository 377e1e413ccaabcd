/** A block edit through the API. Unlike the agent's own memory tools, the API may edit read-only blocks. */
export type BlockPatch = {
  value?: string | null | undefined;
  limit?: number | null | undefined;
  label?: string | null | undefined;
  description?: string | null | undefined;
  read_only?: boolean | undefined;
  hidden?: boolean | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  tags?: string[] | null | undefined;
  preserve_on_migration?: boolean | null | undefined;
};
