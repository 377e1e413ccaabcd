/** How an item's answer is scored against what it expects: the same words, the words somewhere in it, or a model's verdict. */
export type AnswerScorer = 'exact' | 'contains' | 'llm';

export type Score = { score: number; reason: string };

/** Whitespace runs count as one space and the ends are trimmed: a model's line breaks are not a different answer. */
function normalized(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Exact and contains scores, 1 or 0; the LLM grader's is given by `parseGrade`. */
export function scoreAnswer(scorer: 'exact' | 'contains', answer: string, expected: string): Score {
  if (scorer === 'exact') {
    const matched = normalized(answer) === normalized(expected);
    return { score: matched ? 1 : 0, reason: matched ? 'The answer is the expected answer' : 'The answer differs from the expected answer' };
  }
  const matched = normalized(answer).toLowerCase().includes(normalized(expected).toLowerCase());
  return { score: matched ? 1 : 0, reason: matched ? 'The answer contains the expected answer' : 'The answer does not contain the expected answer' };
}

/** The grader's instructions: it answers on its first line PASS or FAIL, then why. */
export function graderPrompt(input: { question: string; answer: string; expected: string | null; note: string | null }): {
  system: string;
  user: string;
} {
  const system = [
    'You grade an AI agent\'s answer to a question.',
    'Reply with PASS or FAIL on the first line, then one sentence saying why.',
  ].join(' ');
  const user = [
    `Question:\n${input.question}`,
    `Agent's answer:\n${input.answer}`,
    ...(input.expected !== null ? [`Expected answer:\n${input.expected}`] : []),
    ...(input.note !== null ? [`What to look for:\n${input.note}`] : []),
  ].join('\n\n');
  return { system, user };
}

/** The grader's reply as a score: PASS is 1, FAIL 0; a reply that says neither first scores 0 with the reply as the reason. */
export function parseGrade(reply: string): Score {
  const text = reply.trim();
  const verdict = /^\W*(PASS|FAIL)\b/i.exec(text)?.[1]?.toUpperCase();
  const reason = text.replace(/^\W*(PASS|FAIL)\b[\W_]*/i, '').trim();
  if (verdict === 'PASS') return { score: 1, reason: reason || 'The grader passed the answer' };
  if (verdict === 'FAIL') return { score: 0, reason: reason || 'The grader failed the answer' };
  return { score: 0, reason: `The grader gave no verdict: ${text.slice(0, 500)}` };
}
