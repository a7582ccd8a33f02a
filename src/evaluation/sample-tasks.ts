import type { Task } from './taskset.ts';

/**
 * A small task set written for this project (no copied benchmark data): easy facts, arithmetic, logic
 * and short code, enough to compare strategies on a pool in a few minutes and a few cents.
 */
export const SAMPLE_TASKS: Task[] = [
  {
    id: 'fact-1',
    kind: 'exact',
    question: 'What is the chemical symbol for sodium? Reply with the symbol only.',
    answer: 'Na',
  },
  {
    id: 'fact-2',
    kind: 'exact',
    question:
      'Which planet in our solar system has the most moons known as of 2024? Reply with the name only.',
    answer: 'Saturn',
  },
  {
    id: 'fact-3',
    kind: 'exact',
    question:
      'In which programming language was the Linux kernel originally written? Reply with the name only.',
    answer: 'C',
  },
  {
    id: 'fact-4',
    kind: 'choice',
    question: 'Which of these is a prime number?',
    choices: ['21', '27', '29', '33'],
    answer: 'C',
  },
  {
    id: 'fact-5',
    kind: 'choice',
    question: 'Which data structure gives O(1) average-time lookup by key?',
    choices: ['Linked list', 'Hash table', 'Binary heap', 'Sorted array'],
    answer: 'B',
  },
  { id: 'math-1', kind: 'numeric', question: 'What is 17 * 23? Reply with the number only.', answer: '391' },
  {
    id: 'math-2',
    kind: 'numeric',
    question: 'A train travels 150 km in 1.25 hours. What is its average speed in km/h?',
    answer: '120',
  },
  { id: 'math-3', kind: 'numeric', question: 'What is the sum of the integers from 1 to 40?', answer: '820' },
  {
    id: 'math-4',
    kind: 'numeric',
    question: 'A price of 80 is raised by 25% and then lowered by 20%. What is the final price?',
    answer: '80',
  },
  {
    id: 'logic-1',
    kind: 'exact',
    question: 'Ann is taller than Bo. Bo is taller than Cy. Who is the shortest? Reply with the name only.',
    answer: 'Cy',
  },
  {
    id: 'logic-2',
    kind: 'regex',
    question:
      'If all blips are blops and no blops are blups, can a blip be a blup? Answer yes or no, then explain.',
    answer: '^\\W*no\\b',
  },
  {
    id: 'logic-3',
    kind: 'numeric',
    question:
      'A farmer has 3 fields. Each field has 4 rows of 6 apple trees, and each tree gives 10 apples. How many apples in all?',
    answer: '720',
  },
  {
    id: 'code-1',
    kind: 'code',
    question:
      'Write a JavaScript function `isPalindrome(s)` that returns true when s reads the same backwards, ignoring case and non-letters. Reply with the code in one ```js block.',
    answer: '',
    tests:
      "assert(isPalindrome('A man, a plan, a canal: Panama') === true); assert(isPalindrome('Baton') === false); assert(isPalindrome('') === true);",
  },
  {
    id: 'code-2',
    kind: 'code',
    question:
      'Write a JavaScript function `chunk(array, size)` that splits an array into arrays of at most `size` items, in order. Reply with the code in one ```js block.',
    answer: '',
    tests:
      "assert(JSON.stringify(chunk([1,2,3,4,5], 2)) === '[[1,2],[3,4],[5]]'); assert(JSON.stringify(chunk([], 3)) === '[]');",
  },
];
