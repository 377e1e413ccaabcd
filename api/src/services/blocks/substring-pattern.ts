/** An ILIKE pattern matching `text` anywhere, with the caller's own `%`, `_` and `\` taken literally. */
export function substringPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, '\\$&')}%`;
}
