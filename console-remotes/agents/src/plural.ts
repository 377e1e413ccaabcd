/** "1 message", "2 messages": a count with its noun, singular for one. `shown` formats the number (locale digits). */
export function plural(count: number, one: string, many = `${one}s`, shown: (value: number) => string = String): string {
  return `${shown(count)} ${count === 1 ? one : many}`;
}
