import { describe, expect, it } from 'vitest';
import { graderPrompt, parseGrade, scoreAnswer } from './scoring.js';

describe('scoreAnswer', () => {
  it('scores exact answers by their words, ignoring surrounding and repeated whitespace but not case', () => {
    expect(scoreAnswer('exact', '  Paris\n', 'Paris').score).toBe(1);
    expect(scoreAnswer('exact', 'The  capital\nis Paris', 'The capital is Paris').score).toBe(1);
    expect(scoreAnswer('exact', 'paris', 'Paris').score).toBe(0);
    expect(scoreAnswer('exact', 'Paris.', 'Paris')).toEqual({ score: 0, reason: 'The answer differs from the expected answer' });
  });

  it('scores contains answers by the expected words anywhere, in any case', () => {
    expect(scoreAnswer('contains', 'I think it is PARIS, France', 'paris')).toEqual({ score: 1, reason: 'The answer contains the expected answer' });
    expect(scoreAnswer('contains', 'Lyon', 'Paris').score).toBe(0);
  });
});

describe('the LLM grader', () => {
  it('is told the question, the answer, and what is expected only when the item says', () => {
    const full = graderPrompt({ question: 'Q?', answer: 'A.', expected: 'E', note: 'Be kind' });
    expect(full.user).toBe("Question:\nQ?\n\nAgent's answer:\nA.\n\nExpected answer:\nE\n\nWhat to look for:\nBe kind");
    expect(graderPrompt({ question: 'Q?', answer: 'A.', expected: null, note: null }).user).toBe("Question:\nQ?\n\nAgent's answer:\nA.");
    expect(full.system).toContain('PASS or FAIL');
  });

  it('reads PASS and FAIL from the first word, with the rest as the reason', () => {
    expect(parseGrade('PASS\nIt greets warmly.')).toEqual({ score: 1, reason: 'It greets warmly.' });
    expect(parseGrade('**fail**: wrong sum')).toEqual({ score: 0, reason: 'wrong sum' });
    expect(parseGrade('PASS')).toEqual({ score: 1, reason: 'The grader passed the answer' });
    expect(parseGrade('I am not sure')).toEqual({ score: 0, reason: 'The grader gave no verdict: I am not sure' });
    expect(parseGrade('PASSABLE answer').score).toBe(0);
  });
});
