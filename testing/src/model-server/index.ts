export { NO_REPLY_LEFT_MESSAGE, startScriptedModelServer } from './server.js';
export type {
  ChatContentPart,
  ChatMessage,
  ChatMessageToolCall,
  ChatRequest,
  ChatTool,
  ChatToolChoice,
  EmbeddingRequest,
  ScriptedModelServer,
  ScriptedReply,
  ScriptedToolCall,
  ScriptStep,
  Usage,
} from './types.js';
