/** A member a dynamic group's manager may pick, by the name it goes by. */
export type SpeakerCandidate = { id: string; name: string };

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The member a dynamic manager's reply names: the candidate whose name appears in it as a word (case
 * insensitive), the earliest mention winning; longer names first where one contains another. Null when none.
 */
export function pickNamedSpeaker(reply: string, candidates: SpeakerCandidate[]): string | null {
  let best: { id: string; at: number; length: number } | null = null;
  for (const candidate of candidates) {
    if (candidate.name.trim() === '') continue;
    const pattern = new RegExp(`(^|[^\\p{L}\\p{N}_])${escapeRegExp(candidate.name.trim())}(?=$|[^\\p{L}\\p{N}_])`, 'iu');
    const match = pattern.exec(reply);
    if (!match) continue;
    const at = match.index + match[1]!.length;
    if (!best || at < best.at || (at === best.at && candidate.name.length > best.length)) {
      best = { id: candidate.id, at, length: candidate.name.length };
    }
  }
  return best?.id ?? null;
}

/** Whether a reply ends a dynamic group's turn: it contains the group's termination token. */
export function saysTerminationToken(reply: string, token: string | null): boolean {
  return token !== null && token !== '' && reply.includes(token);
}

/** What a dynamic group's manager is asked before each turn of speech. */
export function speakerChoicePrompt(candidates: SpeakerCandidate[], terminationToken: string | null): string {
  const names = candidates.map((candidate) => candidate.name).join(', ');
  const stop = terminationToken ? ` If the conversation is complete and nobody needs to speak, reply with ${terminationToken} instead.` : '';
  return (
    `Choose who speaks next in the group chat, from: ${names}. ` +
    `Do not answer the messages yourself; reply with the name of the one participant best placed to respond to the latest message.${stop}`
  );
}

/** How a member sees what another member said: the speaker's name, then the words. */
export function relayedText(speakerName: string, text: string): string {
  return `${speakerName}: ${text}`;
}
