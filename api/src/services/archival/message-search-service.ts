import { Agent, Conversation, Message, type Database, type MessageRole, ofVisibleAgent } from '@engram/db';
import { embedLocally, anyWordQuery, fuseRankings, type FusedRank, type SearchMode, dot } from '@engram/integrations/archival';
import { NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { DEFAULT_CONVERSATION } from '../conversations/conversation-service.js';
import { findAgent } from '../agents/agent-views.js';
import { searchBounds } from './archival-support.js';

export type MessageSearchInput = {
  query: string;
  searchMode: SearchMode;
  /** Default: user and assistant messages, the conversation itself (the system message is the compiled prompt). */
  roles?: MessageRole[] | undefined;
  agentId?: string | undefined;
  /** Only this conversation's own messages; `default`: only those of agents' own histories (of `agentId`'s, with it). */
  conversationId?: string | undefined;
  projectId?: string | undefined;
  limit: number;
  startDate?: string | null | undefined;
  endDate?: string | null | undefined;
};

export type RankedMessage = FusedRank & { message: Message; text: string };

const DEFAULT_ROLES: MessageRole[] = ['user', 'assistant'];

/**
 * The text of a stored message as search sees it: its text parts. Identical to the expression the migration
 * indexes; `\\?` is knex's escape for the jsonpath filter's literal `?`.
 */
const MESSAGE_TEXT_SQL = `to_tsvector('english', jsonb_path_query_array(messages.content, '$[*] \\? (@.type == "text").text'))`;

/**
 * The vector arm embeds messages when it searches instead of storing their embeddings: it scores the
 * full-text candidates plus this many newest messages in scope. Messages belong to agents whose embedding
 * models differ, so one organization-wide space is needed, and the local embedder (~25 µs a message) makes
 * scoring on demand cheaper than an embedding write on every message of every run. The cost: a message
 * older than this window is found only through its words.
 */
const RECENT_WINDOW = 1000;

const armDepth = (limit: number) => Math.min(Math.max(limit * 3, 50), 500);

function messageText(message: Message): string {
  return message.content
    .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
    .join('\n');
}

export type MessageSearchServiceDeps = { db: Database };

/** `POST /v1/agents/messages/search` (and the client's `/v1/messages/search`): the organization's messages, by words and by meaning. */
export function createMessageSearchService(deps: MessageSearchServiceDeps) {
  const { db } = deps;

  return {
    async search(ctx: RequestContext, input: MessageSearchInput): Promise<RankedMessage[]> {
      if (input.agentId) await findAgent(db, ctx.organizationId, input.agentId);
      const inDefault = input.conversationId === DEFAULT_CONVERSATION;
      if (input.conversationId && !inDefault) {
        const conversation = await Conversation.query(db).forOrg(ctx.organizationId).findById(input.conversationId).whereNull('deletedAt');
        if (!conversation) throw new NotFoundError('Conversation');
      }
      const { start, end } = searchBounds({ start: input.startDate, end: input.endDate }, 'UTC', {
        start: ['body', 'start_date'],
        end: ['body', 'end_date'],
      });
      const inScope = () => {
        const query = Message.query(db)
          .forOrg(ctx.organizationId)
          .whereIn('messages.role', input.roles?.length ? input.roles : DEFAULT_ROLES);
        // Hidden agents' messages (a visitor's conversation, an evaluation's) are searched only through their agent.
        if (input.agentId) query.where('messages.agent_id', input.agentId);
        else query.whereRaw(ofVisibleAgent('messages'));
        if (inDefault) query.whereNull('messages.conversation_id');
        else if (input.conversationId) query.where('messages.conversation_id', input.conversationId);
        if (input.projectId) {
          query.whereExists(Agent.query(db).whereColumn('agents.id', 'messages.agent_id').where('agents.project_id', input.projectId));
        }
        if (start) query.where('messages.created_at', '>=', start);
        if (end) query.where('messages.created_at', '<=', end);
        return query;
      };
      const depth = armDepth(input.limit);
      const words = anyWordQuery(input.query);

      const byText =
        input.searchMode === 'vector' || !words
          ? []
          : await inScope()
              .whereRaw(`${MESSAGE_TEXT_SQL} @@ websearch_to_tsquery('english', ?)`, [words])
              .orderByRaw(`ts_rank(${MESSAGE_TEXT_SQL}, websearch_to_tsquery('english', ?)) desc, messages.created_at desc`, [words])
              .limit(depth);

      const messages = new Map(byText.map((message) => [message.id, message]));
      let byMeaning: string[] = [];
      if (input.searchMode !== 'fts') {
        const recent = await inScope().orderBy('messages.created_at', 'desc').limit(RECENT_WINDOW);
        for (const message of recent) messages.set(message.id, message);
        const queryVector = embedLocally(input.query);
        byMeaning = [...messages.values()]
          .map((message) => ({ id: message.id, text: messageText(message) }))
          .filter((candidate) => candidate.text.trim() !== '')
          .map((candidate) => ({ id: candidate.id, similarity: dot(queryVector, embedLocally(candidate.text)) }))
          .sort((a, b) => b.similarity - a.similarity)
          .slice(0, depth)
          .map((candidate) => candidate.id);
      }

      return fuseRankings(input.searchMode, { fts: byText.map((message) => message.id), vector: byMeaning })
        .slice(0, input.limit)
        .map((rank) => {
          const message = messages.get(rank.id)!;
          return { ...rank, message, text: messageText(message) };
        });
    },
  };
}

export type MessageSearchService = ReturnType<typeof createMessageSearchService>;
