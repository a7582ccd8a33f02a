/** One message of a chat: what the page sends a cloud worker, and what the thread sends its engine. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}
