import type { Knex } from 'knex';
import { relayedText, spokenText, type RunInputMessage } from '@engram/core';
import { Agent, Message, toStoredMessage } from '@engram/db';

/**
 * What was said in a group: the user's messages to it and its speakers' replies, each stored once, in the
 * history of whoever received or said it first. Copies in other members' histories point back at it.
 */
export type SaidMessage = { message: Message; speakerName: string | null; text: string };

/**
 * What the agent has not seen of the group's conversation, oldest first: what was said by the user or by
 * another speaker (never the manager's own deliberations) and neither stored in nor copied to its history.
 * Only round-robin and dynamic members speak to each other; in the other groups only the user's words travel.
 */
export async function unseenBy(
  trx: Knex,
  group: { organizationId: string; id: string; managerAgentId: string | null; managerType: string },
  agentId: string,
): Promise<SaidMessage[]> {
  const membersSpeak = group.managerType === 'round_robin' || group.managerType === 'dynamic';
  const rows = await Message.query(trx)
    .forOrg(group.organizationId)
    .where({ groupId: group.id })
    .whereNull('copiedFromMessageId')
    .whereNot('messages.agent_id', agentId)
    .where((said) => {
      // User input is a run's input (no step); a reply is a speaker's assistant message.
      said.where((input) => {
        input.where('role', 'user').whereNull('step_id');
      });
      if (membersSpeak) {
        said.orWhere((reply) => {
          reply.where('role', 'assistant');
          if (group.managerAgentId) reply.whereNot('messages.agent_id', group.managerAgentId);
        });
      }
    })
    .whereNotExists(
      Message.query(trx)
        .from('messages as copy')
        .whereColumn('copy.copied_from_message_id', 'messages.id')
        .where('copy.agent_id', agentId),
    )
    .orderBy('sequence');
  const speakers = await Agent.query(trx).forOrg(group.organizationId).whereIn('id', [...new Set(rows.map((row) => row.agentId))]).select('id', 'name');
  const names = new Map(speakers.map((agent) => [agent.id, agent.name]));
  return rows.flatMap((message): SaidMessage[] => {
    if (message.role === 'user') return [{ message, speakerName: null, text: '' }];
    const text = spokenText(toStoredMessage(message));
    return text ? [{ message, speakerName: names.get(message.agentId) ?? message.agentId, text }] : [];
  });
}

/** A member's copy of something said: the user's words as they were, another speaker's with its name. */
export function copyFor(said: SaidMessage): RunInputMessage {
  const { message } = said;
  if (message.role === 'user') {
    const [first] = message.content;
    const single = message.content.length === 1 && first?.type === 'text';
    return {
      type: 'message',
      role: 'user',
      content: single ? (first as { text: string }).text : (message.content as Array<Record<string, unknown>>),
      name: message.name,
      sender_id: message.senderId,
    };
  }
  return { type: 'message', role: 'user', content: relayedText(said.speakerName ?? message.agentId, said.text), name: said.speakerName, sender_id: message.agentId };
}

/** What a run said, joined: the text of its assistant messages (and send_message calls). */
export async function spokenByRun(trx: Knex, organizationId: string, runId: string): Promise<string> {
  const replies = await Message.query(trx).forOrg(organizationId).where({ runId, role: 'assistant' }).orderBy('sequence');
  return replies.map((reply) => spokenText(toStoredMessage(reply))).filter(Boolean).join('\n');
}

