/** PostgreSQL NOTIFY channels that wake stream readers; payloads are small, readers query the log. */
export const RUN_EVENTS_CHANNEL = 'engram_run_events';
/** Token deltas are live-only: they are not in the log (a resumed stream gets the complete messages). */
export const RUN_DELTAS_CHANNEL = 'engram_run_deltas';
/** pg_notify payloads must stay under 8000 bytes. */
export const MAX_NOTIFY_PAYLOAD_BYTES = 7500;
