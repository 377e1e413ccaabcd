import { z } from 'zod';

/** `GET /…/count`: how many there are, as a bare JSON number. */
export const CountResponse = z.number().int();

/** The `{"message": "… successfully deleted"}` some writes answer with, as the reference server words it. */
export const ConfirmationResponse = z.object({ message: z.string() });

/**
 * The JSON `null` most deletes (and the 1.0-style attach and detach) answer with. Declared per media type:
 * the document generator reads a bare `type: null` response schema as "no body".
 */
export const NullResponse = { description: 'null', content: { 'application/json': { schema: z.null() } } };

/** A 204: no body at all. */
export const NoContentResponse = z.undefined().describe('No content');

/**
 * A route that answers with Server-Sent Events, written frame by frame to the socket: the document names the
 * media type, and no serializer ever sees the body.
 */
export function eventStreamResponse(description: string) {
  return { description, content: { 'text/event-stream': { schema: z.string() } } };
}
